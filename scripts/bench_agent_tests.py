"""What an agent's own test files beside its fix cost an evaluation under the default ``strict`` policy.

Agents often add tests of their own beside a fix (``test_reproduce.py`` at the repository's top, a
regression test under ``tests/``), and the policy puts them back before the graded tests run. This
runs pytest-swe on the same rows with two predictions files, in interleaved rounds: each row's gold
patch, and the same patch with two such test files added. It prints the items' summed time (from
the JUnit file) and the wall time of each run, the medians and their ratio, how each patch was
applied (``apply_in``), and whether the two agree on every verdict (``resolved``) with exactly the
added files put back (``neutralized``).

    python scripts/bench_agent_tests.py [--rounds 3] [--workers 1] [--json FILE] [BENCHMARK.yaml ...]

Run it with a fresh environment's Python (``pip install .``) for a user's figures; the default rows
are the demo's (``pytest-swe images benchmarks/demo.yaml`` builds their images).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from benchutil import PYTEST  # scripts/benchutil.py, beside this script
from benchutil import pytest_env

REPO = Path(__file__).resolve().parent.parent
AGENT_TESTS = {
    "test_reproduce.py": "import os\n\n\ndef test_reproduce():\n    assert os.path.isdir('.')\n",
    "tests/test_issue_regression.py": "import sys\n\n\ndef test_regression():\n    assert sys.version_info[0] >= 3\n",
}
"""Two new test files, as agents add them beside a fix: at the repository's top and under tests/."""


def new_file(path: str, text: str) -> str:
    lines = text.splitlines()
    head = f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
    return head + f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{line}\n" for line in lines)


def write_predictions(benchmarks: list[str], folder: Path) -> dict[str, Path]:
    """The gold patches as a predictions file, and the same with the agent's test files added."""
    from pytest_swe.tools.cli import _load_benchmark  # the installed package, as the runs use it

    rows = [raw for benchmark in benchmarks for raw in _load_benchmark(str(REPO / benchmark))[2]]
    extra = "".join(new_file(path, text) for path, text in AGENT_TESTS.items())
    files = {}
    for variant, added in (("gold", ""), ("gold+tests", extra)):
        path = folder / f"{variant}.jsonl"
        path.write_text(
            "".join(
                json.dumps(
                    {
                        "instance_id": r["instance_id"],
                        "model_name_or_path": variant,
                        "model_patch": r["patch"] + added,
                    }
                )
                + "\n"
                for r in rows
            )
        )
        files[variant] = path
    return files


@dataclass
class Run:
    wall: float
    summed: float
    apply_in: dict[str, int] = field(default_factory=dict)
    verdicts: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    """instance id -> (resolved, neutralized)."""


def run_once(benchmarks: list[str], predictions: Path, workers: int, work: Path) -> Run:
    junit = work / "junit.xml"
    command = [
        *PYTEST, *benchmarks, "-n", str(workers), "--swe-predictions", str(predictions), "--swe-no-cache",
        f"--junitxml={junit}", f"--swe-run-dir={work / 'run'}", "-p", "no:cacheprovider", "-q",
    ]  # fmt: skip
    start = time.monotonic()
    out = subprocess.run(command, cwd=REPO, env=pytest_env(), capture_output=True, text=True, check=False)
    wall = time.monotonic() - start
    if out.returncode not in (0, 1) or not junit.exists():
        raise SystemExit(f"pytest exited {out.returncode}:\n{out.stdout[-2000:]}{out.stderr[-2000:]}")
    run = Run(wall=wall, summed=0.0)
    for case in ET.parse(junit).iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        run.summed += float(case.get("time") or 0)
        way = props.get("apply_in") or "none"
        run.apply_in[way] = run.apply_in.get(way, 0) + 1
        run.verdicts[props.get("instance_id") or case.get("name", "")] = (
            props.get("resolved"),
            props.get("neutralized"),
        )
    return run


def agree(plain: Run, with_tests: Run) -> list[str]:
    """Rows whose verdicts differ, or whose put-back paths are not exactly the agent's test files."""
    wrong = []
    for instance, (resolved, neutralized) in plain.verdicts.items():
        other = with_tests.verdicts.get(instance)
        put_back = (
            sorted(entry.split(" (", 1)[0] for entry in (other[1] or "").split("; ") if entry)
            if other
            else []
        )
        if other is None or other[0] != resolved or neutralized or put_back != sorted(AGENT_TESTS):
            wrong.append(instance)
    return wrong


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("benchmarks", nargs="*", default=["benchmarks/demo.yaml"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    runs: dict[str, list[Run]] = {"gold": [], "gold+tests": []}
    with tempfile.TemporaryDirectory(prefix="bench-agent-tests-") as tmp:
        predictions = write_predictions(args.benchmarks, Path(tmp))
        for round_ in range(args.rounds):
            order = list(runs) if round_ % 2 == 0 else list(reversed(runs))
            for variant in order:
                work = Path(tmp) / f"{variant}-{round_}"
                work.mkdir()
                done = run_once(args.benchmarks, predictions[variant], args.workers, work)
                runs[variant].append(done)
                print(
                    f"round {round_ + 1} {variant:<10} wall {done.wall:6.2f} s  items summed "
                    f"{done.summed:6.2f} s  apply_in {done.apply_in}"
                )
    median = {
        v: (statistics.median(r.wall for r in rs), statistics.median(r.summed for r in rs))
        for v, rs in runs.items()
    }
    wrong = sorted(
        {
            i
            for plain, tests in zip(runs["gold"], runs["gold+tests"], strict=True)
            for i in agree(plain, tests)
        }
    )
    print(f"\nmedians at -n {args.workers}, {args.rounds} rounds:")
    for variant, (wall, summed) in median.items():
        print(f"  {variant:<10} wall {wall:6.2f} s  items summed {summed:6.2f} s")
    ratio_wall = median["gold+tests"][0] / median["gold"][0]
    ratio_summed = median["gold+tests"][1] / median["gold"][1]
    print(f"  gold+tests / gold: wall {ratio_wall:.2f}, items summed {ratio_summed:.2f}")
    print(
        "verdicts agree, the agent's test files put back on every row" if not wrong else f"DIFFERENT: {wrong}"
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "workers": args.workers,
                    "runs": {
                        v: [{"wall": r.wall, "summed": r.summed, "apply_in": r.apply_in} for r in rs]
                        for v, rs in runs.items()
                    },
                    "ratio_wall": ratio_wall,
                    "ratio_summed": ratio_summed,
                    "different": wrong,
                },
                indent=2,
            )
        )
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
