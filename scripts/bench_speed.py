"""Evaluation speed beside the official harness and the floor, measured in one run on one machine.

On the same rows and images (default: the demo rows and the classic local rows), with gold patches:

* the **floor**: each row's gold patch applied and its eval script run once with plain
  ``docker run --rm --network none IMAGE``, one row after the other, the sum divided over the
  workers: the work no harness can avoid (measured before the harnesses and after, averaged);
* the **official harness**: ``swebench`` 5.0.2's ``run_evaluation`` (from ``.venv-official``, made by
  ``.ci/official-venv.sh``) on the same rows in the v5 form, at ``--max_workers`` 1 and 2;
* **pytest-swe** with the gold agent at ``-n 1`` and ``-n 2`` (``--swe-no-cache`` when the option exists);
* ``docker run --rm IMAGE true`` on every image, before and after, the cost of one container, and
  ``docker exec CONTAINER true`` in a running container of each, the cost of one command in it;
* **pytest itself** at ``-n 1`` and ``-n 2`` on one empty test in the same environment (the
  plugins load, no benchmark): the start-up and shutdown every pytest run pays, which no
  change to pytest-swe's items can remove;
* pytest-swe with ``eval.policy=official`` (no probe around the test command, no neutralizing),
  so the strict policy's checks are measured apart from the harness.

Printed: wall time, per-phase time per item (create, apply, eval, teardown), the harness overhead
per item outside the eval script (``wall x workers / items`` minus the floor's mean eval-script
time) and the ratios pytest-swe/floor, pytest-swe/official and overhead/``docker run true``, and
beside them the same ratios with pytest's own start-up taken out of pytest-swe's wall time; and
the CPU seconds each run took per item, of the whole machine and of Docker's containers (from
their parent cgroup): a run whose CPU per item times the items, over the cores, is its wall time
is bound by CPU, and only less work, not less waiting, makes it faster. A machine shared with
other work is noisy: read the ratios, measured side by side.

Usage: python scripts/bench_speed.py [BENCHMARK.yaml ...] [--workers 1,2] [--no-official]
       [--no-policy-run] [--keep DIR] [--json FILE]
"""

from __future__ import annotations

import argparse
import base64
import concurrent.futures
import contextlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from datetime import datetime
from pathlib import Path
from typing import Any

from benchutil import PYTEST  # scripts/benchutil.py, beside this script
from benchutil import pytest_alone
from benchutil import pytest_env

REPO = Path(__file__).resolve().parent.parent
DEFAULT_BENCHMARKS = ("benchmarks/demo.yaml", "benchmarks/swebench-classic-local.yaml")
OFFICIAL_PYTHON = REPO / ".venv-official" / "bin" / "python"
EVAL_TIMEOUT = 300
PHASES = ("create", "apply", "eval", "teardown")
SETTLE_SECONDS = 10
"""A pause after the official harness, before the next measurement."""
TARGETS = {"floor": 1.2, "official": 0.35, "true": 1.2}
"""pytest-swe wall <= 1.2 x floor and <= 0.35 x official; overhead per item <= 1.2 x docker run true."""

# The floor's script: the gold patch written and applied, then the eval script, timed inside the
# container so the eval script's own time is known apart from the container's start and end.
FLOOR_SCRIPT = """\
set -u
echo {patch} | base64 -d > /tmp/gold.diff
echo {script} | base64 -d > /tmp/eval.sh
cd {workdir} && git apply --verbose /tmp/gold.diff >/dev/null 2>&1 || echo "FLOOR: the gold patch did not apply"
start=$(date +%s.%N)
/bin/bash /tmp/eval.sh > /tmp/eval.log 2>&1
end=$(date +%s.%N)
grep -q '>>>>> End Test Output' /tmp/eval.log || echo "FLOOR: the eval script did not reach its end marker"
echo "FLOOR-SCRIPT-SECONDS $start $end"
"""


@dataclass
class Row:
    instance_id: str
    image: str
    workdir: str
    gold: str
    eval_script: str
    official: dict[str, Any]
    """The row in the v5 form the official harness evaluates as is."""


@dataclass
class Harness:
    """One harness at one worker count: its wall time and its items' phases."""

    name: str
    workers: int
    wall: float = 0.0
    items: dict[str, dict[str, float]] = field(default_factory=dict)
    resolved: int = 0
    problems: list[str] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=dict)
    """CPU seconds the run took: ``machine`` (every process), ``containers`` (the engine's containers)."""

    def phase_mean(self, phase: str) -> float | None:
        values = [item[phase] for item in self.items.values() if phase in item]
        return statistics.mean(values) if values else None


CONTAINER_CPU_FILES = (
    ("/sys/fs/cgroup/cpuacct/docker/cpuacct.usage", 1e-9),  # cgroup v1, cgroupfs driver: ns
    ("/sys/fs/cgroup/docker/cpu.stat", 1e-6),  # cgroup v2, cgroupfs driver: usage_usec
)
"""Where Docker's containers' CPU time adds up (their parent cgroup keeps what removed ones used)."""


def cpu_seconds() -> dict[str, float]:
    """CPU seconds used so far: by the whole machine (``/proc/stat``, idle and I/O wait left out),
    and by Docker's containers where their parent cgroup is found."""
    seconds: dict[str, float] = {}
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
        user, nice, system, _idle, _iowait, irq, softirq, steal = (int(f) for f in fields[:8])
        seconds["machine"] = (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        pass
    for path, unit in CONTAINER_CPU_FILES:
        try:
            text = Path(path).read_text()
        except OSError:
            continue
        if text.startswith("usage_usec"):
            text = text.split()[1]
        seconds["containers"] = int(text.split()[0]) * unit
        break
    return seconds


@contextlib.contextmanager
def measured(harness: Harness) -> Iterator[None]:
    """Sets the harness's wall time and CPU seconds to what the block took."""
    before = cpu_seconds()
    start = time.monotonic()
    yield
    harness.wall = time.monotonic() - start
    now = cpu_seconds()
    harness.cpu = {key: now[key] - before[key] for key in before if key in now}


def load_rows(benchmarks: list[str]) -> list[Row]:
    """Every row of the benchmarks, normalized by its family, with its v5 form for the official harness."""
    from pytest_swe.tools.cli import _load_benchmark  # the installed package, as the runs use it

    rows = []
    for benchmark in benchmarks:
        settings, family, raw_rows = _load_benchmark(str(REPO / benchmark))
        for raw in raw_rows:
            task = family.normalize(raw, settings)
            official = {
                **{
                    k: raw[k]
                    for k in ("repo", "instance_id", "base_commit", "patch", "test_patch", "version")
                },
                "FAIL_TO_PASS": json.dumps(task.fail_to_pass),
                "PASS_TO_PASS": json.dumps(task.pass_to_pass),
                "image": task.image,
                "eval_script": task.eval_script,
                "log_parser": task.log_parser or "parse_log_pytest",
                "eval_type": raw.get("eval_type") or "pass_and_fail",
            }
            rows.append(
                Row(
                    task.instance_id,
                    task.image,
                    task.workdir,
                    task.gold_patch or "",
                    task.eval_script or "",
                    official,
                )
            )
    return rows


def _median_seconds(command: list[str], repeat: int) -> float:
    """Median wall time of ``command``, run ``repeat`` times."""
    times = []
    for _ in range(repeat):
        start = time.monotonic()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.monotonic() - start)
    return statistics.median(times)


def docker_true(rows: list[Row], repeat: int = 3) -> float:
    """Mean over the rows' images of the median ``docker run --rm IMAGE true``."""
    images = dict.fromkeys(row.image for row in rows)
    return statistics.mean(
        _median_seconds(["docker", "run", "--rm", image, "true"], repeat) for image in images
    )


def docker_exec_true(rows: list[Row], repeat: int = 5) -> float:
    """Mean over the rows' images of the median ``docker exec CONTAINER true`` in a running
    container: the fixed cost of every command a harness runs in a sandbox it keeps (pytest-swe's
    policies run two per item: the apply with the tree's record, and the eval script with the
    checks after the tests), beside ``docker run --rm IMAGE true``, the cost of a container."""
    medians = []
    for image in dict.fromkeys(row.image for row in rows):
        started = subprocess.run(
            ["docker", "run", "-d", "--rm", "--network", "none", image, "sleep", "600"],
            check=True,
            capture_output=True,
            text=True,
        )
        container = started.stdout.strip()
        try:
            medians.append(_median_seconds(["docker", "exec", container, "true"], repeat))
        finally:
            subprocess.run(["docker", "rm", "-f", container], capture_output=True)
    return statistics.mean(medians)


def b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8", errors="surrogateescape")).decode("ascii")


def _floor_row(row: Row) -> tuple[float, float | None, list[str]]:
    """One row's docker run: its wall time, its eval script's own time, and what went wrong."""
    script = FLOOR_SCRIPT.format(patch=b64(row.gold), script=b64(row.eval_script), workdir=row.workdir)
    began = time.monotonic()
    out = subprocess.run(
        ["docker", "run", "--rm", "-i", "--network", "none", row.image, "bash", "-s"],
        input=script,
        capture_output=True,
        text=True,
        check=False,
    )
    item = time.monotonic() - began
    found = re.search(r"FLOOR-SCRIPT-SECONDS (\S+) (\S+)", out.stdout)
    problems = [f"{row.instance_id}: {line}" for line in out.stdout.splitlines() if line.startswith("FLOOR:")]
    if found is None:
        problems.append(f"{row.instance_id}: no timing (exit {out.returncode}): {out.stderr[-300:]}")
        return item, None, problems
    return item, float(found.group(2)) - float(found.group(1)), problems


def run_floor(rows: list[Row], at_once: int = 1) -> Harness:
    """Each row once, ``at_once`` at a time (one after the other by default): ``item`` is the
    docker run, ``eval`` the eval script in it."""
    floor = Harness("floor", at_once)
    with measured(floor), concurrent.futures.ThreadPoolExecutor(max_workers=at_once) as pool:
        for row, (item, script_seconds, problems) in zip(rows, pool.map(_floor_row, rows), strict=True):
            floor.problems += problems
            if script_seconds is not None:
                floor.items[row.instance_id] = {"item": item, "eval": script_seconds}
    floor.resolved = len(floor.items) - len({p.split(":")[0] for p in floor.problems})
    return floor


def mean_floor(before: Harness, after: Harness) -> Harness:
    """The floor measured before the harnesses and after them, averaged: a machine whose load
    changes during the run moves both ends, not only one."""
    print(f"floor: {before.wall:.2f} s before the harnesses, {after.wall:.2f} s after")
    mean = Harness("floor", 1, wall=(before.wall + after.wall) / 2, problems=before.problems + after.problems)
    for instance, item in before.items.items():
        if instance in after.items:
            mean.items[instance] = {k: (v + after.items[instance][k]) / 2 for k, v in item.items()}
    mean.resolved = min(before.resolved, after.resolved)
    mean.cpu = {k: (v + after.cpu[k]) / 2 for k, v in before.cpu.items() if k in after.cpu}
    return mean


_STAMP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) - \w+ - (.*)$")


def official_phases(log: Path) -> dict[str, float]:
    """Per-phase seconds from the official ``run_instance.log`` (its lines are time-stamped)."""
    marks: dict[str, float] = {}
    eval_seconds = None
    for line in log.read_text(errors="replace").splitlines():
        found = _STAMP.match(line)
        if not found:
            continue
        at = datetime.strptime(found.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp()
        text = found.group(2)
        for key, prefix, suffix in (
            ("create", "Creating container", ""),
            ("started", "Container for", ""),
            ("apply", "Intermediate patch", ""),
            ("applied", ">>>>> Applied Patch", ""),
            ("teardown", "Attempting to stop container", ""),
            ("removed", "Container ", "removed successfully."),
        ):
            started = key != "started" or " started: " in text
            if text.startswith(prefix) and text.endswith(suffix) and started:
                marks.setdefault(key, at)
        runtime = re.match(r"Test runtime: ([\d_.]+) seconds", text)
        if runtime:
            eval_seconds = float(runtime.group(1).replace("_", ""))
    phases: dict[str, float] = {}
    for phase, begin, end in (
        ("create", "create", "started"),
        ("apply", "apply", "applied"),
        ("teardown", "teardown", "removed"),
    ):
        if begin in marks and end in marks:
            phases[phase] = marks[end] - marks[begin]
    if eval_seconds is not None:
        phases["eval"] = eval_seconds
    if "create" in marks and "removed" in marks:
        phases["item"] = marks["removed"] - marks["create"]
    return phases


def run_official(rows: list[Row], workers: int, work: Path, python: Path) -> Harness:
    harness = Harness("official", workers)
    work.mkdir(parents=True, exist_ok=True)
    dataset = work / "dataset.jsonl"
    dataset.write_text("".join(json.dumps(row.official) + "\n" for row in rows))
    run_id = f"speed-bench-n{workers}-{int(time.time())}"
    command = [
        str(python), "-m", "swebench.harness.run_evaluation",
        "--dataset_name", str(dataset), "--predictions_path", "gold", "--max_workers", str(workers),
        "--run_id", run_id, "--timeout", str(EVAL_TIMEOUT), "--report_dir", str(work),
    ]  # fmt: skip
    with measured(harness):
        out = subprocess.run(command, cwd=work, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        harness.problems.append(f"exit {out.returncode}: {out.stderr[-1000:]}")
    for row in rows:
        directory = work / "logs" / "run_evaluation" / run_id / "gold" / row.instance_id
        log = directory / "run_instance.log"
        if not log.exists():
            harness.problems.append(f"{row.instance_id}: no run_instance.log")
            continue
        harness.items[row.instance_id] = official_phases(log)
        report = directory / "report.json"
        if report.exists() and json.loads(report.read_text())[row.instance_id]["resolved"]:
            harness.resolved += 1
    return harness


def has_option(option: str) -> bool:
    help_text = subprocess.run(
        [*PYTEST, "--help", "-p", "no:cacheprovider"],
        cwd=REPO,
        env=pytest_env(),
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return option in help_text


def run_pytest_swe(
    benchmarks: list[str], workers: int, work: Path, extra: list[str], name: str = "pytest-swe"
) -> Harness:
    harness = Harness(name, workers)
    work.mkdir(parents=True, exist_ok=True)
    junit = work / "junit.xml"
    command = [
        *PYTEST, *benchmarks, "-n", str(workers), "--swe-agent", "gold",
        f"--junitxml={junit}", f"--swe-run-dir={work / 'run'}", "-p", "no:cacheprovider", "-q", *extra,
    ]  # fmt: skip
    with measured(harness):
        out = subprocess.run(command, cwd=REPO, env=pytest_env(), capture_output=True, text=True, check=False)
    if out.returncode != 0:
        harness.problems.append(f"exit {out.returncode}: {out.stdout[-1500:]}")
    if not junit.exists():
        return harness
    for case in ET.parse(junit).iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        instance = props.get("instance_id") or case.get("name", "")

        def seconds(name: str, props: dict[str, str | None] = props) -> float | None:
            value = props.get(name)
            return float(value) if value not in (None, "") else None

        phases = {
            "create": seconds("time_sandbox"),
            "apply": seconds("time_apply"),
            "eval": seconds("time_script"),
            "teardown": seconds("time_teardown"),
            "item": float(case.get("time") or 0),
        }
        harness.items[instance] = {k: v for k, v in phases.items() if v is not None}
        if props.get("resolved") == "true":
            harness.resolved += 1
    return harness


def cpu_text(cpu: dict[str, float], items: int) -> str:
    """CPU seconds per item: the whole machine's, and in brackets the containers' share."""
    if "machine" not in cpu:
        return "-"
    text = f"{cpu['machine'] / items:.2f} s"
    return text + (f" ({cpu['containers'] / items:.2f} s in containers)" if "containers" in cpu else "")


def fmt(value: float | None, unit: str = "s") -> str:
    return "-" if value is None else f"{value:.2f} {unit}".strip()


def overhead(harness: Harness, items: int, floor_eval: float, startup: float = 0.0) -> float:
    """Per item, what the harness spent beyond the eval scripts' own time (xdist and start-up
    included, less ``startup`` seconds of the wall time when given)."""
    return (harness.wall - startup) * harness.workers / items - floor_eval


def report(
    rows: list[Row],
    floor: Harness,
    runs: list[Harness],
    true_before: float,
    true_after: float,
    startup: dict[int, float],
    parallel: dict[int, float],
    exec_true: float | None = None,
) -> dict[str, Any]:
    items = len(rows)
    floor_eval = statistics.mean(item["eval"] for item in floor.items.values())
    floor_item = statistics.mean(item["item"] for item in floor.items.values())
    true = (true_before + true_after) / 2
    print(
        f"\n{items} rows; `docker run --rm IMAGE true`: {true_before:.3f} s before, {true_after:.3f} s after"
    )
    if exec_true is not None:
        print(f"`docker exec CONTAINER true` in a running container: {exec_true:.3f} s")
    print(
        f"floor, one row after the other: {floor.wall:.2f} s in all; per row {floor_item:.2f} s "
        f"(eval script {floor_eval:.2f} s, the rest {floor_item - floor_eval:.2f} s)"
    )
    if floor.cpu:
        print("floor CPU per row: " + cpu_text(floor.cpu, items))
    for problem in floor.problems:
        print(f"  floor problem: {problem}")
    for n, seconds in sorted(parallel.items()):
        print(
            f"floor run {n} rows at a time (not the floor of the targets, which divides the sum): {seconds:.2f} s"
        )
    for n, seconds in sorted(startup.items()):
        print(
            f"pytest alone, -n {n} (one empty test, the same plugins): {seconds:.2f} s; "
            f"1.2 x the floor leaves {1.2 * floor.wall / n - seconds:.2f} s for {items} items"
        )
    header = ["harness", "workers", "wall", "floor wall", "resolved", *PHASES, "overhead/item", "CPU/item"]
    table = [header]
    summary: dict[str, Any] = {
        "items": items,
        "docker_run_true": {"before": true_before, "after": true_after, "mean": true},
        "docker_exec_true": exec_true,
        "floor": {
            "sum": floor.wall,
            "per_item": floor_item,
            "eval_script": floor_eval,
            "cpu": floor.cpu,
            "items": floor.items,
        },
        "pytest_startup": startup,
        "floor_at_once": parallel,
        "runs": [],
    }
    for run in runs:
        floor_wall = floor.wall / run.workers
        table.append(
            [
                run.name,
                str(run.workers),
                fmt(run.wall),
                fmt(floor_wall),
                f"{run.resolved}/{items}",
                *(fmt(run.phase_mean(p)) for p in PHASES),
                fmt(overhead(run, items, floor_eval)),
                cpu_text(run.cpu, items),
            ]
        )
        summary["runs"].append(
            {
                "harness": run.name,
                "workers": run.workers,
                "wall": run.wall,
                "resolved": run.resolved,
                "phases": {p: run.phase_mean(p) for p in PHASES},
                "overhead_per_item": overhead(run, items, floor_eval),
                "cpu": run.cpu,
                "items": run.items,
                "problems": run.problems,
            }
        )
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    print()
    for line in table:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)))
    print(
        "\n(phases: mean seconds per item; overhead/item: wall x workers / items - the floor's eval script;"
        "\n CPU/item: CPU seconds of the whole machine per item, and of that in the containers)"
    )
    for run in runs:
        if run.problems:
            print(f"  {run.name} -n {run.workers} problems: " + "; ".join(p[:300] for p in run.problems))
    print("\nratios (targets: pytest-swe/floor <= 1.2, pytest-swe/official <= 0.35, overhead/true <= 1.2):")
    ratios = []
    for ours in (r for r in runs if r.name.startswith("pytest-swe")):
        entry: dict[str, Any] = {"harness": ours.name, "workers": ours.workers}
        floor_wall = floor.wall / ours.workers
        entry["pytest_swe_over_floor"] = ours.wall / floor_wall
        entry["overhead_over_docker_true"] = overhead(ours, items, floor_eval) / true
        official = next((r for r in runs if r.name == "official" and r.workers == ours.workers), None)
        if official is not None:
            entry["pytest_swe_over_official"] = ours.wall / official.wall
        parts = [f"/floor {entry['pytest_swe_over_floor']:.2f}"]
        if official is not None:
            parts.append(f"/official {entry['pytest_swe_over_official']:.2f}")
        parts.append(f"overhead/docker-run-true {entry['overhead_over_docker_true']:.2f}")
        if ours.workers in startup:
            # What the items cost beyond pytest's own start-up and end, which every pytest run pays.
            beyond = ours.wall - startup[ours.workers]
            entry["without_pytest_startup"] = {
                "over_floor": beyond / floor_wall,
                "overhead_over_docker_true": overhead(ours, items, floor_eval, startup[ours.workers]) / true,
            }
            parts.append(
                f"without pytest's start-up: /floor {beyond / floor_wall:.2f}, "
                f"overhead/docker-run-true {entry['without_pytest_startup']['overhead_over_docker_true']:.2f}"
            )
        print(f"  {ours.name} -n {ours.workers}: " + ", ".join(parts))
        ratios.append(entry)
    summary["ratios"] = ratios
    return summary


def main(argv: list[str] | None = None) -> int:
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user runs it: with Python's bytecode cache
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("benchmarks", nargs="*", default=list(DEFAULT_BENCHMARKS))
    parser.add_argument("--workers", default="1,2", help="worker counts, comma-separated (default 1,2)")
    parser.add_argument("--no-official", action="store_true", help="leave the official harness out")
    parser.add_argument("--official-python", type=Path, default=OFFICIAL_PYTHON)
    parser.add_argument(
        "--no-policy-run",
        action="store_true",
        help="leave out the pytest-swe runs under eval.policy=official (no strict checks)",
    )
    parser.add_argument(
        "--keep", type=Path, help="keep the runs' files here (default: a temporary directory)"
    )
    parser.add_argument("--json", type=Path, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    workers = [int(n) for n in args.workers.split(",") if n.strip()]
    if not args.no_official and not args.official_python.exists():
        parser.error(f"{args.official_python} is missing: run .ci/official-venv.sh, or pass --no-official")
    rows = load_rows(args.benchmarks)
    missing = [
        row.image
        for row in rows
        if subprocess.run(
            ["docker", "image", "inspect", row.image], capture_output=True, check=False
        ).returncode
    ]
    if missing:
        print(f"missing images ({', '.join(missing)}): build them with `pytest-swe images BENCHMARK.yaml`")
        return 2
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-speed-"))
    work.mkdir(parents=True, exist_ok=True)
    extra = ["--swe-no-cache"] if has_option("--swe-no-cache") else []
    print(
        f"{len(rows)} rows from {', '.join(args.benchmarks)}; pytest-swe options: {' '.join(extra) or '(none)'}"
    )
    true_before = docker_true(rows)
    floor = run_floor(rows)
    # Measured before the harnesses: after the official harness this machine was measured slower.
    parallel = {n: run_floor(rows, n).wall for n in workers if n > 1}
    startup = {n: pytest_alone(n) for n in workers}
    runs = []
    for n in workers:
        # pytest-swe first: a pytest-swe run right after the official harness was measured at 30.2 s
        # where the same run took 11.7-12.5 s minutes later, so the order is fixed and a pause follows.
        print(f"pytest-swe, -n {n} ...", flush=True)
        runs.append(run_pytest_swe(args.benchmarks, n, work / f"pytest-swe-n{n}", extra))
        if not args.no_policy_run:
            print(f"pytest-swe, eval.policy=official, -n {n} ...", flush=True)
            official_policy = [*extra, "--swe-set", "eval.policy=official"]
            runs.append(
                run_pytest_swe(
                    args.benchmarks,
                    n,
                    work / f"policy-official-n{n}",
                    official_policy,
                    "pytest-swe (official policy)",
                )
            )
        if not args.no_official:
            print(f"official harness, --max_workers {n} ...", flush=True)
            # Absolute, as the official harness runs in a directory of its own (not resolved: a
            # virtual environment's python is a link to the interpreter it was made from).
            official_python = args.official_python.absolute()
            runs.append(run_official(rows, n, work / f"official-n{n}", official_python))
            time.sleep(SETTLE_SECONDS)
    true_after = docker_true(rows)
    exec_true = docker_exec_true(rows)
    floor = mean_floor(floor, run_floor(rows))
    summary = report(rows, floor, runs, true_before, true_after, startup, parallel, exec_true)
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
