"""Bundles: how the work tree's record and the probe's results come back from the sandbox in one
read. Written by the real shell functions with each shell an image may run commands with, and
with GNU's and BusyBox's ``wc`` and ``cat``; read back by :func:`unbundle`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from pytest_swe.grading import probe
from pytest_swe.grading.tree import GIT_FUNCTIONS
from pytest_swe.grading.tree import unbundle

CONTENTS = {
    "empty": b"",
    "no final newline": b"abc",
    "looks like a listing": b"12 head\n--\n3 dirty\n",
    "binary": bytes(range(256)) * 3,
    "invalid utf-8": b"\xff\xfe\x00\n\xc3(",
    "large": b"x" * 200_000 + b"\n",
    "total": b"0 total\n",
}
BEFORE = ("head", "dirty", "future", "gitmeta.before", "gitstate", "roots")
AFTER = ("tracked", "new", "untracked", "gitmeta.after")
SHELLS = [["bash"], ["dash"], ["busybox", "sh"]]


def _tools(kind: str, tmp_path: Path) -> dict[str, str]:
    """The environment whose PATH gives ``wc`` and ``cat`` from GNU coreutils or BusyBox."""
    import os

    if kind == "gnu":
        return dict(os.environ)
    busybox = shutil.which("busybox")
    if busybox is None:
        pytest.skip("busybox is not installed here")
    bin_dir = tmp_path / "busybox-bin"
    bin_dir.mkdir()
    for applet in ("wc", "cat"):
        (bin_dir / applet).symlink_to(busybox)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}


@pytest.fixture(params=[(shell, tools) for shell in SHELLS for tools in ("gnu", "busybox")],
                ids=lambda p: f"{p[0][-1] if len(p[0]) == 1 else 'busybox-sh'}-{p[1]}-tools")  # fmt: skip
def shell_env(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[list[str], dict[str, str]]:
    shell, tools = request.param
    if shutil.which(shell[0]) is None:
        pytest.skip(f"{shell[0]} is not installed here")
    return shell, _tools(tools, tmp_path)


def test_two_bundles_one_after_the_other_read_back_byte_for_byte(
    tmp_path: Path, shell_env: tuple[list[str], dict[str, str]]
) -> None:
    """The work tree writes its record before the patch and its changes after, and reads the two
    files back as one: every part of both, whatever it holds (a listing's own lines, NUL bytes,
    nothing at all), and a part the function had to create is there, empty."""
    shell, env = shell_env
    d = tmp_path / "tree"
    d.mkdir()
    names = list(CONTENTS)
    written = {}
    for i, part in enumerate(BEFORE + AFTER):
        if part == "future":
            continue  # not there: bundle creates it
        written[part] = CONTENTS[names[i % len(names)]]
        (d / part).write_bytes(written[part])
    written["future"] = b""
    script = (
        f"{GIT_FUNCTIONS}\nd={d}\n"
        f'bundle "$d/before" {" ".join(BEFORE)}\nbundle "$d/after" {" ".join(AFTER)}\n'
        'cat "$d/before" "$d/after"\n'
    )
    done = subprocess.run([*shell, "-c", script], capture_output=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert unbundle(done.stdout) == written
    assert unbundle((d / "before").read_bytes()) == {p: written[p] for p in BEFORE}


def test_the_probes_results_come_back_by_name_and_a_missing_one_is_absent(
    tmp_path: Path, shell_env: tuple[list[str], dict[str, str]]
) -> None:
    """The collect command reads the steps' files from the probe's directory and the channel's
    and watch's files by their paths; one that is not there is not in the result. When the
    directory itself is gone, files of those names elsewhere (here, in the command's working
    directory) are not read in its place."""
    shell, env = shell_env
    plan = probe.Plan(repo=str(tmp_path), dir=str(tmp_path / "probe"), token="t")
    plan.channel = {"enable": True, "out": str(tmp_path / "c-1.jsonl")}
    plan.watch = {"enable": True, "out": str(tmp_path / "w-1.jsonl")}
    Path(plan.dir).mkdir()
    (Path(plan.dir) / "pre.json").write_bytes(b'{"a": 1}\n')
    (Path(plan.dir) / "hook.err").write_bytes(CONTENTS["looks like a listing"])
    (tmp_path / "c-1.jsonl").write_bytes(CONTENTS["binary"])
    forged = tmp_path / "cwd"
    forged.mkdir()
    (forged / "post.json").write_bytes(b'{"forged": true}\n')

    def collect() -> dict[str, bytes]:
        script = probe.collect_script(plan)
        done = subprocess.run([*shell, "-c", script], capture_output=True, env=env, cwd=forged, timeout=60)
        assert done.returncode == 0, done.stderr
        return unbundle(done.stdout)

    assert collect() == {
        "pre.json": b'{"a": 1}\n',
        "hook.err": CONTENTS["looks like a listing"],
        str(tmp_path / "c-1.jsonl"): CONTENTS["binary"],
    }
    shutil.rmtree(plan.dir)
    (forged / "pre.json").write_bytes(b'{"forged": true}\n')
    assert collect() == {str(tmp_path / "c-1.jsonl"): CONTENTS["binary"]}
    (tmp_path / "c-1.jsonl").unlink()
    assert collect() == {}


def _listing(parts: list[tuple[str, bytes]], width: int) -> bytes:
    """A bundle as ``wc -c`` lists it: sizes right-aligned to ``width``, a total line when it
    lists more than one file, then ``--`` and the bytes."""
    lines = [f"{len(body):>{width}} {name}\n" for name, body in parts]
    if len(parts) > 1:
        lines.append(f"{sum(len(b) for _, b in parts):>{width}} total\n")
    return "".join(lines).encode() + b"--\n" + b"".join(body for _, body in parts)


NAMES = st.sampled_from(["head", "dirty", "new", "pre.json", "/tmp/pytest-swe/c-1.jsonl"])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(st.tuples(NAMES, st.binary(max_size=40)), min_size=1, max_size=5), max_size=3),
    st.integers(min_value=0, max_value=9),
    st.binary(max_size=40),
)
@example([[("head", b"--\n1 head\n")]], 0, b"")
def test_bundles_one_after_another_read_back_what_was_written(
    bundles: list[list[tuple[str, bytes]]], width: int, tail: bytes
) -> None:
    """Each part comes back whole whatever its bytes (the last of a repeated name wins), and
    whatever follows a line that is neither a listing's nor ``--`` is not read as a part."""
    data = b"".join(_listing(parts, width) for parts in bundles)
    expected = {name: body for parts in bundles for name, body in parts}
    assert unbundle(data) == expected
    assert unbundle(data + b"end of it\n" + tail) == expected
