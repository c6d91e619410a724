"""The result channel's seal: the digest of what pytest wrote to the channel's record, printed into
the log as pytest ends, on a descriptor the eval script's shell opened. Real bash, real pytest
processes, the channel as shipped: an honest run matches its seal; a record rewritten or added to
after the tests does not; a runner started by a test, or output through a pipe, gets no seal."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from secutil import bundle_of

from pytest_swe.grading import evidence as ev
from pytest_swe.grading import probe

HOOK = Path(probe.__file__).parent / "hook.py"
MODULE = "swe_channel_sealed"

FAILING_AND_PASSING = {
    "calc.py": "def add(a, b):\n    return a - b\n",
    "tests/test_x.py": """
        import calc

        def test_add():
            assert calc.add(2, 2) == 4

        def test_other():
            assert True
    """,
}


def _identity_command() -> str:
    """What the check before the tests does: name the log's descriptor for the channel."""
    code = (
        "import importlib.util,sys;"
        f"s=importlib.util.spec_from_file_location('h',{str(HOOK)!r});m=importlib.util.module_from_spec(s);"
        "s.loader.exec_module(m);print(m.seal_identity() or '')"
    )
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"


def run_sealed(
    tmp_path: Path,
    files: dict[str, str],
    test_command: str = "{python} -m pytest -rA -p no:cacheprovider tests",
) -> tuple[probe.Plan, str, bytes]:
    """Run ``test_command`` as an instrumented eval script would: the log's descriptor opened, its
    identity exported, the channel loaded. Returns (plan, the log, the channel's record)."""
    project = tmp_path / "project"
    for name, text in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(textwrap.dedent(text))
    plan = probe.Plan(repo=str(project), dir=str(tmp_path), token="t", graded=[{"path": "tests/test_x.py"}])
    plan.channel = {"enable": True, "module": MODULE, "out": str(tmp_path / "channel.jsonl")}
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / f"{MODULE}.py").write_text(probe.channel_source(plan))
    script = "\n".join(
        [
            f"exec {probe.SEAL_FD}>&1",
            f"export PYTEST_SWE_SEAL=$({_identity_command()})",
            f"export PYTHONPATH={shlex.quote(f'{plugins}:{project}')}",
            f'export PYTEST_ADDOPTS="-p {MODULE}"',
            f"cd {shlex.quote(str(project))}",
            test_command.format(python=shlex.quote(sys.executable)),
            "echo after-the-tests",
        ]
    )
    done = subprocess.run(["bash", "-c", script], capture_output=True, timeout=300, check=False)
    log = done.stdout.decode("utf-8", errors="replace")
    assert "after-the-tests" in log, done.stderr.decode(errors="replace")
    return plan, log, (tmp_path / "channel.jsonl").read_bytes()


def results_of(plan: probe.Plan, record: bytes) -> probe.ProbeResults:
    """The channel's record as the harness reads it back after the tests."""
    out = plan.channel["out"]
    return probe.read_collected(plan, bundle_of([(out, record)]).decode("utf-8", errors="surrogateescape"))


def seals_in(plan: probe.Plan, log: str) -> list[str]:
    return [line for line in log.split("\n") if line.startswith(f"{plan.record_mark} channel ")]


def test_an_honest_run_is_sealed_after_its_output_and_its_record_matches(tmp_path: Path) -> None:
    files = {
        **FAILING_AND_PASSING,
        # Output still in Python's buffer when pytest ends (older pytest leaves its summary there).
        "conftest.py": """
            import sys

            import pytest

            @pytest.hookimpl(hookwrapper=True, tryfirst=True)
            def pytest_sessionfinish(session):
                yield
                sys.__stdout__.write("written-at-sessionfinish")
        """,
    }
    plan, log, record = run_sealed(tmp_path, files)
    seals = seals_in(plan, log)
    assert len(seals) == 1, log
    pid = int(seals[0].split()[-4])
    assert {json.loads(line)["pid"] for line in record.splitlines()} == {pid}
    # The seal follows pytest's whole output: every status line is whole, the summary before it.
    assert "PASSED tests/test_x.py::test_other" in log.split("\n")
    assert any(line.startswith("FAILED tests/test_x.py::test_add") for line in log.split("\n"))
    assert log.index("1 failed, 1 passed") < log.index(seals[0])
    assert "written-at-sessionfinish\n" + seals[0] in log  # flushed first, the seal on a line of its own
    assert ev.read_seals(plan, results_of(plan, record), log) == []


def test_a_record_rewritten_after_the_tests_no_longer_matches_its_seal(tmp_path: Path) -> None:
    plan, log, record = run_sealed(tmp_path, FAILING_AND_PASSING)
    lines = [json.loads(line) for line in record.splitlines()]
    for line in lines:
        if line.get("nodeid", "").endswith("test_add"):
            line["raised"] = None
            if "outcome" in line:
                line["outcome"] = "passed"
    rewritten = "".join(json.dumps(line, sort_keys=True) + "\n" for line in lines).encode()
    assert rewritten != record
    found = ev.read_seals(plan, results_of(plan, rewritten), log)
    assert [f.rule for f in found] == ["channel"] and "changed after pytest sealed it" in found[0].message


def test_records_added_after_the_seal_are_evidence(tmp_path: Path) -> None:
    plan, log, record = run_sealed(tmp_path, FAILING_AND_PASSING)
    pid = json.loads(record.splitlines()[0])["pid"]
    added = json.dumps({"ev": "call", "nodeid": "tests/test_x.py::test_add", "raised": None, "pid": pid})
    found = ev.read_seals(plan, results_of(plan, record + added.encode() + b"\n"), log)
    assert [f.rule for f in found] == ["channel"] and "1 record(s)" in found[0].message


def test_a_seal_printed_by_something_else_does_not_cover_a_rewrite(tmp_path: Path) -> None:
    """A second seal for the rewritten record, printed after the real one, leaves the real one
    unmatched."""
    plan, log, record = run_sealed(tmp_path, FAILING_AND_PASSING)
    pid = json.loads(record.splitlines()[0])["pid"]
    lines = [json.loads(line) for line in record.splitlines()]
    rewritten = "".join(
        json.dumps({**line, "raised": None}, sort_keys=True) + "\n" for line in lines
    ).encode()
    forged = f"{plan.record_mark} channel {pid} 1 {len(lines)} {hashlib.sha256(rewritten).hexdigest()}"
    found = ev.read_seals(plan, results_of(plan, rewritten), log + forged + "\n")
    assert [f.rule for f in found] == ["channel"]


def test_a_runner_started_by_a_test_prints_no_seal_into_the_output_the_test_reads(tmp_path: Path) -> None:
    """Repositories test themselves by running pytest inside a test and reading its output; the
    inner runner loads the channel too (the environment is inherited) but never seals."""
    files = {
        "calc.py": "def add(a, b):\n    return a + b\n",
        "inner/test_inner.py": "def test_inner():\n    assert True\n",
        "tests/test_x.py": """
            import os, subprocess, sys

            def test_inner_run_prints_only_pytest():
                done = subprocess.run(
                    [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "inner"],
                    capture_output=True, text=True,
                )
                assert done.returncode == 0, done.stdout
                assert "probe record" not in done.stdout + done.stderr
                assert done.stdout.strip().splitlines()[-1].startswith("1 passed")
        """,
    }
    plan, log, record = run_sealed(tmp_path, files)
    assert "PASSED tests/test_x.py::test_inner_run_prints_only_pytest" in log.split("\n"), log
    assert len(seals_in(plan, log)) == 1
    assert len({json.loads(line)["pid"] for line in record.splitlines()}) == 2  # the inner run wrote too
    assert ev.read_seals(plan, results_of(plan, record), log) == []


@pytest.mark.parametrize(
    "command",
    [
        "{python} -m pytest -rA -p no:cacheprovider tests | cat",
        "{python} -m pytest -rA -p no:cacheprovider -n 2 tests",
    ],
    ids=["through-a-pipe", "xdist-workers"],
)
def test_runs_the_seal_cannot_follow_whole_go_unsealed_and_unharmed(tmp_path: Path, command: str) -> None:
    """Output through a pipe gets no seal (it could land inside a line); xdist's workers talk to
    their controller over their standard streams, which must carry nothing of ours."""
    if "-n 2" in command and importlib.util.find_spec("xdist") is None:
        pytest.skip("pytest-xdist is not installed")
    plan, log, record = run_sealed(tmp_path, FAILING_AND_PASSING, command)
    assert "PASSED tests/test_x.py::test_other" in log.split("\n"), log
    assert any(line.startswith("FAILED tests/test_x.py::test_add") for line in log.split("\n"))
    seals = seals_in(plan, log)
    assert len(seals) == (1 if "-n 2" in command else 0), log
    assert ev.read_seals(plan, results_of(plan, record), log) == []
    assert os.path.getsize(plan.channel["out"]) > 0


_PIECES = [
    b'{"ev": "call", "pid": 5}',
    b'{"pid": 7}',
    b"[1, 2]",
    b"junk",
    b"\x0b",
    b"\x85",
    "\u2028".encode(),
]
_PIECES += [b"\r", b"\n", b"\r\n", b"\xff", b'{"pid": "9"}', b" "]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12))
def test_the_channel_is_read_once_into_its_records_and_the_lines_its_seals_cover(pieces: list[bytes]) -> None:
    """One pass gives the records every other check reads (as the probe's other outputs are read)
    and each raw line under the pid it names, whatever the bytes: forged lines included."""
    data = b"".join(pieces)
    records, by_pid = probe._channel_lines(data)
    assert records == probe._lines(data)
    expected: dict[int, list[bytes]] = {}
    for line in data.splitlines(keepends=True):
        try:
            pid = json.loads(line.decode("utf-8", errors="replace")).get("pid")
        except (ValueError, AttributeError):
            pid = None
        expected.setdefault(pid if isinstance(pid, int) else -1, []).append(line)
    assert by_pid == expected
