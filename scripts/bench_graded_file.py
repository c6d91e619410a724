"""What the strict policy's probe costs a pytest run of a graded test file, by the file's size.

A graded file has thousands of lines and tests in real repositories (matplotlib's ``test_axes.py``,
xarray's ``test_dataset.py``, Django's ``tests.py`` files), and every Python the tests start loads
the equality watch, as the tests' own ``python -c`` runs and a runner's child do. This script
writes test files of several sizes (helpers and parametrized tests, all passing, a test per six
lines) with one test that starts Python five times, and runs pytest on each, interleaved for N
rounds, three ways: without the probe; with the result channel and the watch as shipped; and with
both as they were before (the channel a parse per reading of the file and a walk of the test
module's globals at each test call, the watch a parse at every start of Python). The channel is
loaded with ``-p`` and the watch by a ``sitecustomize`` in every Python, as in a sandbox. It prints
the medians of the wall time and what each way adds to the run without the probe.

Usage: python scripts/bench_graded_file.py [--lines 45,4005,20005] [--rounds 5] [--json FILE]
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

CHANNEL = "swe_bench_channel"
WATCH = "swe_bench_watch"
STARTS = 5
TOGETHER = "\nread_together(definitions, parametrize_rows, runner_imports)\n"
AT_START = 'if not hasattr(sys, "addaudithook"):'
"""The condition under which the watch parses the graded files at start-up, as it did before."""
WALK = "found = [name for name, value in _BUILTINS if dict.get(module_globals, name, value) is not value]"
WALK_BEFORE = (
    "found = [name for name in list(module_globals) if isinstance(name, str) and not name.startswith('__')"
    " and name in _BUILTIN_DICT and module_globals.get(name) is not _BUILTIN_DICT[name]]"
)
BUILTINS_KEPT = '"""The builtins as the channel loaded, by name (``__`` names left out)."""\n'
"""The channel's look for shadowed builtins at each test call, and as it was: a walk of the test
module's globals, thousands of names in a file of thousands of tests."""


def test_file(lines: int) -> str:
    """About ``lines`` lines of passing tests (a test per six lines): helpers and parametrized
    tests, and one test that starts Python ``STARTS`` times."""
    out = ["import subprocess", "import sys", "", "import pytest", "", ""]
    blocks = max((lines - 12) // 12, 1)
    for i in range(blocks):
        out += [f"def helper_{i}(x):", f"    return x + {i}", "", ""]
        out += [
            f'@pytest.mark.parametrize("x, y", [(1, {i + 1}), (2, {i + 2})])',
            f"def test_rows_{i}(x, y):",
        ]
        out += [f"    assert helper_{i}(x) == y", "", ""]
    out += ["def test_starts_python():", f"    for _ in range({STARTS}):"]
    out += ['        subprocess.run([sys.executable, "-c", "pass"], check=True)', ""]
    return "\n".join(out)


def write_probe(root: Path, project: Path) -> dict[str, Path]:
    """The channel and the watch for ``project``, as shipped and as they read the file before."""
    plan = probe.Plan(repo=str(project), dir=str(root), token="t", graded=[{"path": "test_x.py"}])
    plan.channel = {"enable": True, "module": CHANNEL, "out": str(root / "channel.jsonl")}
    plan.watch = {"enable": True, "module": WATCH, "out": str(root / "watch.jsonl"), "patched": []}
    channel, watch = probe.channel_source(plan), probe.watch_source(plan)
    if any(part not in channel for part in (TOGETHER, WALK, BUILTINS_KEPT)) or AT_START not in watch:
        raise SystemExit("the channel or the watch no longer reads the graded file as this script knows")
    kept_as_dict = BUILTINS_KEPT + "_BUILTIN_DICT = dict(_BUILTINS)\n"
    before = (
        channel.replace(TOGETHER, "\n").replace(WALK, WALK_BEFORE).replace(BUILTINS_KEPT, kept_as_dict),
        watch.replace(AT_START, "if True:", 1),
    )
    ways = {}
    for name, (channel_text, watch_text) in {"shipped": (channel, watch), "before": before}.items():
        directory = root / name
        directory.mkdir()
        (directory / f"{CHANNEL}.py").write_text(channel_text)
        (directory / f"{WATCH}.py").write_text(watch_text)
        (directory / "sitecustomize.py").write_text(f"import {WATCH}\n")
        ways[name] = directory
    return ways


def main(argv: list[str] | None = None) -> int:
    args = sizes_and_rounds(__doc__, argv)
    figures: dict[str, dict[str, float]] = {}
    for size in args.lines:
        with tempfile.TemporaryDirectory(prefix="bench-graded-file-") as tmp:
            root = Path(tmp)
            project = root / "project"
            project.mkdir()
            (project / "test_x.py").write_text(test_file(size))
            ways: dict[str, Path | None] = {"no probe": None}
            built = write_probe(root, project)
            ways["channel and watch, as shipped"] = built["shipped"]
            ways["channel and watch, as before"] = built["before"]
            times: dict[str, list[float]] = {}
            for _ in range(args.rounds):
                for way, plugins in ways.items():
                    times.setdefault(way, []).append(timed_pytest(project, plugins, CHANNEL, must_pass=True))
        medians = {way: statistics.median(values) for way, values in times.items()}
        figures[str(size)] = medians
        bare = medians["no probe"]
        print(
            f"graded test file of {size} lines, {STARTS} starts of Python, medians of {args.rounds} rounds:"
        )
        for way, value in medians.items():
            print(f"  {way:40} {value:6.2f} s ({value - bare:+.2f} s)")
        print(flush=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
