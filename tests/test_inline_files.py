"""The eval's files carried in its command, on a sandbox that runs bash on this machine: what is
carried and what falls back to a write, by size and content, and the files as written."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from localsandbox import LocalSandbox

from pytest_swe.api.errors import InfraError
from pytest_swe.api.family import EvalContext
from pytest_swe.api.task import Task
from pytest_swe.grading import inline
from pytest_swe.grading.run import run_script

from conftest import benchmark_settings


class CarryingSandbox(LocalSandbox):
    """Bash on this machine, declaring how much a command may carry; counts the writes it is asked for."""

    def __init__(self, root: Path, limit: int) -> None:
        super().__init__(root)
        self.command_limit = limit
        self.writes: list[str] = []

    def write_file(self, path: str, data: bytes, *, mode: int = 0o644) -> None:
        self.writes.append(path)
        super().write_file(path, data, mode=mode)


def run(sandbox: CarryingSandbox, root: Path, files: dict[str, tuple[bytes, int]], script: str) -> str:
    task = Task(family="swe-bench", instance_id="t", image="local", workdir=str(root))
    ctx = EvalContext(settings=benchmark_settings("swe-bench"), artifacts=root / "artifacts", timeout=60,
                      output_limit=1 << 20)  # fmt: skip
    log, code = run_script(task, sandbox, ctx, script, path=str(root / "eval.sh"), files=files)
    assert code == 0, log
    return log


@pytest.mark.parametrize("size, carried", [(1_000, True), (7_000, False)], ids=["under", "over"])
def test_files_are_carried_only_while_the_whole_command_fits(
    tmp_path: Path, size: int, carried: bool
) -> None:
    """The limit holds for the whole command (the files, the lines writing them and the command):
    "over" has files under the limit whose command is not, and is written before the command.
    Either way the files are byte for byte with their modes."""
    sandbox = CarryingSandbox(tmp_path, limit=8_000)
    files = {
        str(tmp_path / "probe" / "hook.py"): (b"x = '" + b"h" * size + b"'\n", 0o600),
        str(tmp_path / "probe" / "plan.json"): (b'{"a": 1}\n', 0o644),
    }
    log = run(sandbox, tmp_path, files, "echo ran\n")
    assert log == "ran\n"
    assert (sandbox.writes == []) is carried, sandbox.writes
    assert len(sandbox.commands) == 1 and len(sandbox.commands[0].encode()) <= 8_000
    assert (inline.WRITTEN_MARK in sandbox.commands[0]) is carried
    for path, (data, mode) in files.items():
        assert Path(path).read_bytes() == data
        assert stat.S_IMODE(os.stat(path).st_mode) == mode


def test_a_link_in_the_way_is_replaced_not_followed(tmp_path: Path) -> None:
    """A symlink where a file goes (say, planted at the script's path) is replaced; its target is untouched."""
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n")
    (tmp_path / "eval.sh").symlink_to(target)
    sandbox = CarryingSandbox(tmp_path, limit=64 << 10)
    assert run(sandbox, tmp_path, {}, "echo ran\n") == "ran\n"
    assert sandbox.writes == [] and target.read_text() == "keep me\n"
    assert not (tmp_path / "eval.sh").is_symlink()


def test_output_that_does_not_open_with_the_mark_is_not_a_verdict(tmp_path: Path) -> None:
    """A directory where a file goes: the writing fails before the script runs, and the item is an
    infrastructure error; a mark printed later by the script does not count."""
    (tmp_path / "probe" / "hook.py").mkdir(parents=True)
    sandbox = CarryingSandbox(tmp_path, limit=64 << 10)
    files = {str(tmp_path / "probe" / "hook.py"): (b"x = 1\n", 0o600)}
    with pytest.raises(InfraError, match="could not be written"):
        run(sandbox, tmp_path, files, f"echo '{inline.WRITTEN_MARK}'\n")
    assert sandbox.writes == []
    assert inline.written(f"ran\n{inline.WRITTEN_MARK}\n") == (False, f"ran\n{inline.WRITTEN_MARK}\n")


NASTY = "a ) b ( c\n'quote' \"dq\" `tick` $(echo no) ${x:-y} \\\\ \\\ncase x in x) ;; esac\nEOF\n\t tab  "
TEXTS = {
    "no final newline": NASTY,
    "final newline": NASTY + "\n",
    "two final newlines": NASTY + "\n\n",
    "only a newline": "\n",
    "empty": "",
    "a closing brace, no newline": "{\necho hi\n}",
    "unicode, no newline": "ä ✓ \u2028 x",
}
SHELLS = [
    pytest.param(argv, id=argv[-1] if len(argv) == 1 else "busybox-sh")
    for argv in (["bash"], ["dash"], ["busybox", "sh"])
]


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("name", list(TEXTS))
def test_every_text_is_written_byte_for_byte_by_each_shell(
    tmp_path: Path, shell: list[str], name: str
) -> None:
    """Text with or without a final newline is carried (a here-document adds one; the lines that
    write a file without one take it off again), and each shell an image may run commands with
    writes the exact bytes, whatever the text holds: unbalanced parentheses, quotes, ``$(``."""
    import shutil
    import subprocess

    if shutil.which(shell[0]) is None:
        pytest.skip(f"{shell[0]} is not installed here")
    data = TEXTS[name].encode()
    target = tmp_path / "out" / "file.txt"
    steps = inline.writes({str(target): (data, 0o640)}, 64 << 10, on_failure="exit 125")
    assert steps is not None
    done = subprocess.run([*shell, "-c", steps + "echo done\n"], capture_output=True, timeout=30)
    assert done.returncode == 0 and done.stdout == b"done\n", done
    assert target.read_bytes() == data
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
