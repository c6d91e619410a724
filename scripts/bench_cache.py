"""Re-evaluation from the verdict cache: the same run twice, the second from the cache.

For the demo (``--swe-predictions benchmarks/demo/predictions-wrong.jsonl``) and every family's
local benchmark (``benchmarks/*-local.yaml``, their own agent), runs pytest twice in the
repository over one fresh cache directory and prints, per benchmark:

* the items' time summed from the JUnit file (setup + call + teardown of every item), first
  run and second, and their ratio;
* the whole run's wall time, pytest's start-up included, and its ratio;
* the CPU time of the pytest process (and its xdist workers, if any): the wall time of a loaded
  machine waits for the CPU, the CPU time does not;
* whether every graded item of the second run carries ``cached: true`` and its verdict is the
  first run's;
* pytest alone in the same environment (one empty test, the same plugins, measured between the
  workloads): no cached run can be faster, so the first run's wall time over it is the most the
  whole run can drop ("bound").

Needs the Docker engine and the benchmarks' images (``scripts/setup.sh`` builds them).
With ``--repeat N`` each workload is measured N times, each time over a new cache (a first run,
then a second), interleaved with pytest alone, and the medians are printed: on a shared machine one
run of a second is within the noise of the next.

Usage: python scripts/bench_cache.py [--only NAME ...] [--repeat N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from benchutil import PYTEST  # scripts/benchutil.py, beside this script
from benchutil import pytest_alone
from benchutil import pytest_env

REPO = Path(__file__).resolve().parents[1]
VERDICT = ("outcome", "reward", "resolved", "resolution", "f2p_passed", "p2p_passed", "patch_applied")


@dataclass
class Run:
    wall: float
    cpu: float
    items: float
    cases: dict[str, dict[str, str]]
    returncode: int


def _cases(junit: Path) -> tuple[float, dict[str, dict[str, str]]]:
    total = 0.0
    cases: dict[str, dict[str, str]] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        props = {p.get("name", ""): p.get("value", "") for p in case.iter("property")}
        if "reward" not in props:
            continue
        total += float(case.get("time") or 0)
        cases[props.get("instance_id") or case.get("name", "")] = props
    return total, cases


def run_once(args: list[str], cache: Path, out: Path, label: str) -> Run:
    junit = out / f"{label}.xml"
    command = [
        *PYTEST, *args, f"--swe-cache={cache}", f"--junitxml={junit}",
        f"--swe-run-dir={out / label}", "-p", "no:cacheprovider", "-q", "--swe-progress=none",
    ]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run(command, cwd=REPO, env=pytest_env(), capture_output=True, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    items, cases = _cases(junit) if junit.exists() else (0.0, {})
    if not cases:
        print(proc.stdout[-2000:], proc.stderr[-2000:], file=sys.stderr)
    return Run(wall, cpu, items, cases, proc.returncode)


def _median(runs: list[Run]) -> Run:
    """The runs' median wall, CPU and items' times (the cases of the first run)."""
    return Run(
        wall=statistics.median(r.wall for r in runs),
        cpu=statistics.median(r.cpu for r in runs),
        items=statistics.median(r.items for r in runs),
        cases=runs[0].cases,
        returncode=max(r.returncode for r in runs),
    )


def graded(run: Run) -> dict[str, tuple[str, ...]]:
    return {
        i: tuple(p.get(n, "") for n in VERDICT)
        for i, p in run.cases.items()
        if p.get("outcome") in ("passed", "failed")
    }


def workloads() -> dict[str, list[str]]:
    loads = {
        "demo (predictions-wrong)": [
            "benchmarks/demo.yaml",
            "--swe-predictions",
            "benchmarks/demo/predictions-wrong.jsonl",
        ]
    }
    for path in sorted((REPO / "benchmarks").glob("*-local.yaml")):
        loads[path.stem] = [str(path.relative_to(REPO))]
    return loads


def main() -> int:
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user runs it: with Python's bytecode cache
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="only these workloads (names as printed)")
    parser.add_argument("--keep", help="keep the runs and caches in DIR")
    parser.add_argument("--repeat", type=int, default=1, help="measure each workload N times (medians)")
    opts = parser.parse_args()
    root = Path(opts.keep) if opts.keep else Path(tempfile.mkdtemp(prefix="pytest-swe-bench-cache-"))
    root.mkdir(parents=True, exist_ok=True)
    header = f"{'workload':28} {'graded':>6} {'items 1st':>9} {'items 2nd':>9} {'drop':>7} {'wall 1st':>8} {'wall 2nd':>8} {'drop':>6} {'cpu 1st':>7} {'cpu 2nd':>7} {'alone':>6} {'bound':>6}  cached, same"
    print(header)
    print("-" * len(header))
    ok = True
    for name, args in workloads().items():
        if opts.only and name not in opts.only:
            continue
        firsts, seconds, alones = [], [], []
        for attempt in range(max(opts.repeat, 1)):
            out = root / name.split()[0] / str(attempt)
            out.mkdir(parents=True, exist_ok=True)
            firsts.append(run_once(args, out / "cache", out, "first"))
            seconds.append(run_once(args, out / "cache", out, "second"))
            alones.append(pytest_alone())
        first, second, alone = _median(firsts), _median(seconds), statistics.median(alones)
        verdicts = graded(first)
        cached = all(run.cases.get(i, {}).get("cached") == "true" for run in seconds for i in verdicts)
        same = all(graded(run) == verdicts for run in [*firsts, *seconds])
        items = first.items / second.items if second.items else float("inf")
        wall = first.wall / second.wall if second.wall else float("inf")
        ok = ok and cached and same and bool(verdicts)
        print(
            f"{name:28} {len(verdicts):>6} {first.items:>8.2f}s {second.items:>8.3f}s {items:>6.0f}x "
            f"{first.wall:>7.2f}s {second.wall:>7.2f}s {wall:>5.1f}x {first.cpu:>6.2f}s {second.cpu:>6.2f}s {alone:>5.2f}s {first.wall / alone:>5.1f}x  {'yes' if cached else 'NO'}, "
            f"{'yes' if same else 'NO'}"
        )
    print(f"runs kept in {root}" if opts.keep else "")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
