"""The result channel parses each failing file once for pytest's tracebacks: the echo copies and
the must-fail canary fail by design, and pytest parses a file's whole source again for every
failure it draws. Real pytest processes, the channel as shipped: the log is the same with and
without it, and the count of those parses drops to one per file. And its own readings of a graded
file (what it defines, its ``parametrize`` rows, its imports of the runner) come from one parse."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.grading import probe

MODULE = "swe_channel_tracebacks"

COUNTING_CONFTEST = """
    import ast
    import builtins
    import os

    _compile = builtins.compile
    _count = [0]

    def _counting_compile(source, filename, mode, flags=0, *args, **kwargs):
        # pytest's parse of a whole file for a traceback, by ast.parse or (pytest 3 to 5) by
        # compile() itself; a failing statement's own text, which it also parses, does not hold
        # the file's first line
        if flags & ast.PyCF_ONLY_AST and filename == "source" and "import pytest" in str(source):
            _count[0] += 1
        return _compile(source, filename, mode, flags, *args, **kwargs)

    builtins.compile = _counting_compile

    def pytest_unconfigure(config):
        with open(os.environ["PARSES_OUT"], "w") as fh:
            fh.write(str(_count[0]))
"""


def big_test_file(helpers: int, failing: int) -> str:
    """A test file of many lines with ``failing`` tests whose last assert fails, as an echo copy's does."""
    lines = ["import pytest", ""]
    for i in range(helpers):
        lines += [f"def helper_{i}(x):", f"    return x + {i}", "", ""]
    for i in range(failing):
        lines += [f"def test_copy_{i}():", f"    assert helper_{i}(1) == {i + 1000}", "", ""]
    lines += ["def test_passes():", "    assert helper_0(1) == 1", ""]
    return "\n".join(lines)


FILES = {
    "tests/test_big.py": big_test_file(helpers=1500, failing=6),
    "tests/test_small.py": """
        import pytest

        @pytest.mark.parametrize("x, expected", [(1, 2), (2, 3)])
        def test_rows(x, expected):
            assert x + 1 == expected + 7

        class TestKind:
            def test_method(self):
                value = {"a": 1}
                assert value == {"a": 2}
    """
    + "".join(f"\n\n        def helper_{i}():\n            return {i}\n" for i in range(40)),
    # Under a hundred lines: its tree is not kept, and it is parsed for each failure as before.
    "tests/test_short.py": """
        import pytest

        def test_one():
            assert 1 == 2

        def test_two():
            assert [1] == [2]
    """,
    "conftest.py": COUNTING_CONFTEST,
}


PYTHONS = [sys.executable, *filter(None, os.environ.get("PYTEST_SWE_TRACEBACK_PYTHONS", "").split(":"))]
"""The interpreters to run pytest with: this one, and those named in the environment (each with
an older pytest installed, as the images hold: 3.10 to 7 were checked so)."""


def write_channel(plugins: Path, project: Path, graded: str, out: Path) -> None:
    """The channel as the eval ships it, for ``project`` with its one graded file, in ``plugins``."""
    plugins.mkdir()
    plan = probe.Plan(repo=str(project), dir=str(out.parent), token="t", graded=[{"path": graded}])
    plan.channel = {"enable": True, "module": MODULE, "out": str(out)}
    (plugins / f"{MODULE}.py").write_text(probe.channel_source(plan))


def channel_env(plugins: Path, project: Path, parses: Path, channel: bool) -> dict[str, str]:
    """pytest's environment with the channel loaded as the eval loads it (or not), the conftest's
    count of parses written to ``parses``."""
    return {
        **os.environ,
        "PYTHONPATH": f"{plugins}:{project}",
        "PARSES_OUT": str(parses),
        "PYTEST_ADDOPTS": f"-p {MODULE}" if channel else "",
    }


def run_pytest(
    python: str, project: Path, env: dict[str, str], option: str
) -> subprocess.CompletedProcess[str]:
    """pytest, by ``python``, on the project's tests, as the official eval scripts run it (``-rA``)."""
    command = [python, "-m", "pytest", "-rA", "-p", "no:cacheprovider", "-p", "no:swe", option, "tests"]
    return subprocess.run(
        command, cwd=project, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def run(tmp_path: Path, name: str, channel: bool, tb: str, python: str = sys.executable) -> tuple[str, int]:
    """pytest on the project, with the channel loaded as the eval loads it (or not): the log
    without its timing, and how many times pytest parsed a file for a traceback."""
    project = tmp_path / "project"
    if not project.exists():
        for rel, text in FILES.items():
            (project / rel).parent.mkdir(parents=True, exist_ok=True)
            (project / rel).write_text(textwrap.dedent(text))
    plugins = tmp_path / "plugins"
    if not plugins.exists():
        write_channel(plugins, project, "tests/test_big.py", tmp_path / "channel.jsonl")
    parses = tmp_path / f"parses-{name}"
    env = channel_env(plugins, project, parses, channel)
    done = run_pytest(python, project, env, f"--tb={tb}")
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    log = re.sub(r" in [0-9.]+ ?s(econds)?\b.*", "", done.stdout)
    log = re.sub(r"^plugins: .*$", "", log, flags=re.M)
    log = re.sub(r" at 0x[0-9a-f]+>", " at ADDRESS>", log)  # a method's ``self`` argument
    return log, int(parses.read_text())


@pytest.mark.parametrize("python", PYTHONS, ids=lambda p: "this-python" if p == sys.executable else p)
@pytest.mark.parametrize("tb", ["auto", "long", "short"])
def test_the_log_is_the_same_and_each_long_failing_file_is_parsed_once(
    tmp_path: Path, tb: str, python: str
) -> None:
    plain, plain_parses = run(tmp_path, "plain", channel=False, tb=tb, python=python)
    with_channel, channel_parses = run(tmp_path, "channel", channel=True, tb=tb, python=python)
    assert with_channel == plain
    assert "11 failed, 1 passed" in plain and "assert (1 + 1) == (2 + 7)" in plain
    assert "assert helper_5(1) == 1005" in plain  # the failing statement drawn from the big file
    assert plain_parses >= 11  # at least once per failure drawn
    assert channel_parses == 2 + 2  # once per file of a hundred lines or more, the short one per failure


def test_no_traceback_drawn_parses_nothing(tmp_path: Path) -> None:
    plain, plain_parses = run(tmp_path, "plain", channel=False, tb="no")
    with_channel, channel_parses = run(tmp_path, "channel", channel=True, tb="no")
    assert with_channel == plain and plain_parses == channel_parses == 0


READINGS_CONFTEST = """
    import os
    import sys

    with open(os.path.join("tests", "test_read.py"), "rb") as fh:
        _text = fh.read()
    _parses = [0]

    def _count(event, args):
        # a parse of the graded file's source: ``compile`` given its text (not a tree), under its
        # name or none (``ast.parse``'s "<unknown>")
        if event == "compile" and isinstance(args[0], (str, bytes)):
            source = args[0].encode("utf-8") if isinstance(args[0], str) else args[0]
            if source == _text:
                _parses[0] += 1

    sys.addaudithook(_count)

    def pytest_unconfigure(config):
        with open(os.environ["PARSES_OUT"], "w") as fh:
            fh.write(str(_parses[0]))
"""

READ_FILE = """
    import pytest
    from pytest import approx

    @pytest.mark.parametrize("x, expected", [(1, 2), (2, 3)])
    def test_rows(x, expected):
        assert x + 1 == approx(expected)

    class TestKind:
        def test_method(self):
            assert {"a": 1} == {"a": 1}

    def test_plain():
        assert [1] == [1]
"""


def run_graded_file(
    tmp_path: Path, name: str, channel: bool, assert_mode: str, conftest: str = ""
) -> tuple[int, list[dict[str, Any]]]:
    """pytest, with the channel loaded as the eval loads it (or not), on the graded file (every
    test of it passes), ``conftest`` after the one counting parses: how many times it parsed the
    file's source, and the channel's records of the tests' calls."""
    project = tmp_path / name
    (project / "tests").mkdir(parents=True)
    (project / "tests" / "test_read.py").write_text(textwrap.dedent(READ_FILE))
    (project / "conftest.py").write_text(textwrap.dedent(READINGS_CONFTEST) + textwrap.dedent(conftest))
    plugins = tmp_path / f"plugins-{name}"
    write_channel(plugins, project, "tests/test_read.py", tmp_path / f"channel-{name}.jsonl")
    parses = tmp_path / f"parses-{name}"
    env = channel_env(plugins, project, parses, channel)
    done = run_pytest(sys.executable, project, env, f"--assert={assert_mode}")
    assert done.returncode == 0 and "4 passed" in done.stdout, done.stdout[-3000:] + done.stderr[-3000:]
    calls = []
    if channel:
        records = (tmp_path / f"channel-{name}.jsonl").read_text().splitlines()
        calls = [r for r in map(json.loads, records) if r.get("ev") == "call"]
        assert len(calls) == 4  # the channel saw every test's call
    return int(parses.read_text()), calls


@pytest.mark.parametrize("assert_mode", ["rewrite", "plain"])
def test_the_channel_reads_a_graded_file_from_one_parse(tmp_path: Path, assert_mode: str) -> None:
    """Under pytest's rewriting the check of the file's compiled code parses it, and the readings
    take that tree; without rewriting the first reading parses it for all three."""
    plain, _ = run_graded_file(tmp_path, "plain", channel=False, assert_mode=assert_mode)
    with_channel, calls = run_graded_file(tmp_path, "channel", channel=True, assert_mode=assert_mode)
    assert with_channel - plain == 1
    assert [c.get("defined") for c in calls] == [True] * 4


# Code that runs before pytest imports the test file (a conftest, a package the collection
# imports): the file rewritten with its functions three lines lower, and put back once collected.
REWRITE_BEFORE_IMPORT = """
    _path = os.path.join("tests", "test_read.py")
    with open(_path, "rb") as fh:
        _original = fh.read()
    with open(_path, "wb") as fh:
        fh.write(b"\\n\\n\\n" + _original)

    def pytest_collection_finish(session):
        with open(_path, "wb") as fh:
            fh.write(_original)
"""


@pytest.mark.parametrize("assert_mode", ["rewrite", "plain"])
def test_the_channel_reads_a_graded_file_as_it_was_when_it_loaded(tmp_path: Path, assert_mode: str) -> None:
    """A graded file rewritten before pytest imports it, and put back: the functions pytest calls
    are not the plain defs of the file as it was when the channel loaded, and the channel says so
    (its one parse is then of that text, not the tree its compiled-code check took of the file
    pytest imported)."""
    _, calls = run_graded_file(tmp_path, "rewritten", True, assert_mode, REWRITE_BEFORE_IMPORT)
    assert [c.get("defined") for c in calls] == [False] * 4
    assert (tmp_path / "rewritten" / "tests" / "test_read.py").read_text() == textwrap.dedent(READ_FILE)
