"""What the result channel costs a test file of real size: drawing the echo copies' failures, with
its one parse per file and without it, and its own readings of the file, from one parse and from a
parse per reading.

Under ``strict`` up to ten echo copies of a graded pytest file and its must-fail canary fail by
design, and pytest parses the file's whole source again for each failure it draws a traceback of.
This script writes test files of several sizes, each with ten tests whose last assert fails (as an
echo copy's does) and one that passes, and runs pytest on each (``-rA``, the traceback style of the
official SWE-bench eval scripts) four ways, interleaved for N rounds: without the channel, with the
channel as shipped, with the channel but its one parse per file taken out, and with the channel
but a parse of the file per reading its checks make (what it defines, its ``parametrize`` rows, its
imports of the runner). It prints the medians of the wall time and what the failures cost above
the same file with every test passing.

Usage: python scripts/bench_tracebacks.py [--lines 45,4005,20005] [--rounds 5] [--json FILE]
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import sizes_and_rounds
from benchutil import timed_pytest

from pytest_swe.grading import probe

MODULE = "swe_bench_channel"
FAILING = 10


def test_file(lines: int, fail: bool) -> str:
    """About ``lines`` lines: helpers, then ten tests that fail (or pass) on their last assert."""
    out = ["import pytest", ""]
    helpers = max((lines - 4 * FAILING - 6) // 4, 1)
    for i in range(helpers):
        out += [f"def helper_{i}(x):", f"    return x + {i}", "", ""]
    for i in range(FAILING):
        expected = i % helpers + 1 + (1000 if fail else 0)
        out += [f"def test_case_{i}():", f"    assert helper_{i % helpers}(1) == {expected}", "", ""]
    out += ["def test_passes():", "    assert helper_0(1) == 1", ""]
    return "\n".join(out)


def write_channels(directory: Path, project: Path) -> None:
    """The channel as the eval installs it, and a copy with its one parse per file taken out."""
    plan = probe.Plan(repo=str(project), dir=str(directory), token="t", graded=[{"path": "test_x.py"}])
    plan.channel = {"enable": True, "module": MODULE, "out": str(directory / "channel.jsonl")}
    source = probe.channel_source(plan)
    call = "\n_one_parse_per_source()\n"
    if call not in source:
        raise SystemExit("the channel has no _one_parse_per_source() call to take out")
    (directory / "shipped").mkdir()
    (directory / "shipped" / f"{MODULE}.py").write_text(source)
    (directory / "without").mkdir()
    (directory / "without" / f"{MODULE}.py").write_text(source.replace(call, "\n"))
    together = "\nread_together(definitions, parametrize_rows, runner_imports)\n"
    if together not in source:
        raise SystemExit("the channel has no read_together(...) call to take out")
    (directory / "per-reading").mkdir()
    (directory / "per-reading" / f"{MODULE}.py").write_text(source.replace(together, "\n"))


def main(argv: list[str] | None = None) -> int:
    args = sizes_and_rounds(__doc__, argv)
    sizes = args.lines
    figures: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-tracebacks-") as tmp:
        root = Path(tmp)
        write_channels(root, root)
        ways = {
            "no channel": None,
            "channel": root / "shipped",
            "channel, a parse per failure": root / "without",
            "channel, a parse per reading": root / "per-reading",
        }
        for size in sizes:
            times: dict[str, list[float]] = {}
            for fail in (False, True):
                project = root / f"{size}-{'fail' if fail else 'pass'}"
                project.mkdir()
                (project / "test_x.py").write_text(test_file(size, fail))
            for _ in range(args.rounds):
                for way, plugins in ways.items():
                    for fail in (False, True):
                        project = root / f"{size}-{'fail' if fail else 'pass'}"
                        key = f"{way} ({'10 failing' if fail else 'all passing'})"
                        times.setdefault(key, []).append(
                            timed_pytest(project, plugins, MODULE, must_pass=False)
                        )
            medians = {key: statistics.median(values) for key, values in times.items()}
            figures[str(size)] = medians
            print(f"test file of {size} lines, {FAILING} failing tests, medians of {args.rounds} rounds:")
            for way in ways:
                failing, passing = medians[f"{way} (10 failing)"], medians[f"{way} (all passing)"]
                print(
                    f"  {way:32} {failing:6.2f} s failing, {passing:6.2f} s passing: "
                    f"the failures cost {failing - passing:+.2f} s"
                )
            print(flush=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
