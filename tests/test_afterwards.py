"""The checks after the tests, run at the end of the eval script's own command (one round trip fewer)
on a sandbox running bash on this machine: what comes back, what the log keeps, and each case where
the caller must run them on their own instead, including code under test that forges the line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from forged_checks import FORGE
from forged_checks import forge_and_kill
from localsandbox import CappingSandbox
from localsandbox import LocalSandbox

from pytest_swe.api.family import EvalContext
from pytest_swe.api.task import Task
from pytest_swe.grading.run import Afterwards
from pytest_swe.grading.run import run_script_then

from conftest import benchmark_settings

AFTER = "echo after-a\necho after-b\n"


def run(
    tmp_path: Path,
    script: str,
    *,
    after: str = AFTER,
    limit: int = 1 << 16,
    output_limit: int = 1 << 20,
    command: str | None = None,
    env: dict[str, str] | None = None,
) -> tuple[str, int | None, str | None, LocalSandbox]:
    sandbox = CappingSandbox(tmp_path)
    task = Task(family="swe-bench", instance_id="t", image="local", workdir=str(tmp_path), eval_env=env or {})
    ctx = EvalContext(settings=benchmark_settings("swe-bench"), artifacts=tmp_path / "artifacts", timeout=60,
                      output_limit=output_limit)  # fmt: skip
    afterwards = Afterwards(after, limit=limit)
    path = str(tmp_path / "eval.sh")
    log, code, carried, *_ = run_script_then(
        task, sandbox, ctx, script, afterwards, path=path, command=command
    )
    assert (tmp_path / "artifacts" / "eval.log").read_text() == log
    return log, code, carried, sandbox


@pytest.mark.parametrize("ending", ["", "\n"], ids=["no-newline", "newline"])
@pytest.mark.parametrize("status", [0, 1, 3])
def test_the_checks_come_back_in_the_script_command_and_the_log_is_the_script_output(
    tmp_path: Path, status: int, ending: str
) -> None:
    log, code, carried, sandbox = run(tmp_path, f"printf 'line one\\nline two{ending}'\nexit {status}\n")
    assert log == f"line one\nline two{ending}"
    assert code == status
    assert carried == "after-a\nafter-b\n"
    assert len(sandbox.commands) == 1


@pytest.mark.parametrize("command", ["exec /bin/bash {path}", "/bin/bash {path}; exit 4"])
def test_an_exit_or_exec_in_the_command_ends_only_its_own_part(tmp_path: Path, command: str) -> None:
    path = tmp_path / "eval.sh"
    log, code, carried, _ = run(tmp_path, "echo ran\nexit 2\n", command=command.format(path=path))
    assert log == "ran\n" and carried == "after-a\nafter-b\n"
    assert code == (2 if command.startswith("exec") else 4)


def test_output_over_its_limit_is_left_for_a_command_of_its_own(tmp_path: Path) -> None:
    log, code, carried, _ = run(
        tmp_path, "echo ran\n", after="head -c 5000 /dev/zero | tr '\\0' x\n", limit=4096
    )
    assert (log, code, carried) == ("ran\n", 0, None)


def test_a_capped_log_keeps_the_checks_whole(tmp_path: Path) -> None:
    """The checks' output is the last thing printed and at most a quarter of the cap: the tail the
    cap keeps always holds it, however much the tests printed."""
    script = "head -c 3000000 /dev/zero | tr '\\0' y\necho\necho last line\n"
    log, code, carried, _ = run(tmp_path, script, limit=(1 << 20) // 4, output_limit=1 << 20)
    assert "bytes of output dropped" in log and log.endswith("last line\n")
    assert carried == "after-a\nafter-b\n" and code == 0


def test_no_file_for_the_output_leaves_the_checks_to_a_command_of_their_own(tmp_path: Path) -> None:
    """``mktemp`` failing (an unwritable temporary directory here) is not a failed check."""
    log, code, carried, _ = run(tmp_path, "echo ran\n", env={"TMPDIR": str(tmp_path / "gone")})
    assert (log, code, carried) == ("ran\n", 0, None)


def test_the_output_file_is_new_and_removed(tmp_path: Path) -> None:
    """A link laid where the output goes would let the tests choose it: the file is made after
    they ended, under a name drawn then, and removed once read."""
    _, _, carried, _ = run(tmp_path, "echo ran\n", after="echo $__swe_out; ls -l $__swe_out | cut -c1\n")
    lines = (carried or "").splitlines()
    assert lines[1] == "-" and lines[0].startswith("/tmp/")
    assert not Path(lines[0]).exists()


def test_a_status_of_a_signal_leaves_the_checks_to_a_command_of_their_own(tmp_path: Path) -> None:
    """A script killed by a signal (a segfault, a memory kill) still ends normally for the shell
    after it, but such a status is also what forging code leaves: the checks run on their own."""
    log, code, carried, _ = run(tmp_path, "echo ran\nkill -9 $$\n")
    assert (log, code, carried) == ("ran\n", 137, None)


def test_a_forged_line_before_the_real_one_stays_in_the_log(tmp_path: Path) -> None:
    log, code, carried, _ = run(tmp_path, FORGE + "echo honest end\n")
    assert carried == "after-a\nafter-b\n" and code == 0
    assert "forged-after" in log and log.endswith("honest end\n")


@pytest.mark.parametrize("which", ["nearest", "outermost"])
def test_forged_checks_with_the_real_ones_stopped_are_never_taken(tmp_path: Path, which: str) -> None:
    """Code under test that prints the marker's line with a made-up output and then kills a shell
    above it, so the real checks never print: the status a signal leaves never matches the line."""
    log, code, carried, _ = run(tmp_path, forge_and_kill(which))
    assert "no marker found" not in log and "no shell found" not in log, log
    assert carried is None, (code, log)


def test_the_checks_run_after_the_script_has_ended(tmp_path: Path) -> None:
    """What the checks read is what the script left: they start once it ended."""
    script = f"sleep 0.3\necho written > {tmp_path}/late\n"
    _, _, carried, _ = run(tmp_path, script, after=f"cat {tmp_path}/late\n")
    assert carried == "written\n"


def test_the_marker_differs_from_command_to_command() -> None:
    markers = {Afterwards("true", limit=10).marker for _ in range(50)}
    assert len(markers) == 50


def test_the_wrapped_command_is_plain_posix_shell(tmp_path: Path) -> None:
    """Images without bash run commands with sh (dash here): the wrapping must parse there too."""
    dash = subprocess.run(["sh", "-n", "-c", Afterwards(AFTER, limit=10).around("/bin/true")])
    assert dash.returncode == 0


def test_output_cut_on_its_way_is_not_taken() -> None:
    """A provider that lost the end of the output in transit: the size on the line does not match."""
    afterwards = Afterwards(AFTER, limit=1 << 16)
    after = "after-a\nafter-b\n"
    line = "\n" + afterwards.marker + " ok 0 " + str(len(after)) + "\n"
    assert afterwards.parted("log" + line + after, 0) == ("log", after)
    assert afterwards.parted("log" + line + after[:-4], 0) == ("log", None)
    assert afterwards.parted("log" + line + after, 1) == ("log" + line + after, None)
