"""Stage 2 of the grading pipeline on a local git repository (a stand-in sandbox running bash here).

Real patches, written with ``git diff`` and applied through the real fallback chain; what they
changed is read back from git and the file system, and under ``strict`` what cannot belong to
a fix is put back before any test would run.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from gitrepo import ENV
from gitrepo import commit_all
from gitrepo import git
from gitrepo import make_patch
from secutil import bundle_of

from pytest_swe.api.family import EvalContext
from pytest_swe.api.sandbox import ExecResult
from pytest_swe.api.sandbox import SandboxSpec
from pytest_swe.api.task import Task
from pytest_swe.grading import apply_model_patch
from pytest_swe.grading import start_verdict
from pytest_swe.grading.pipeline import Integrity
from pytest_swe.grading.probe import PROBE_ROOT
from pytest_swe.grading.probe import Plan
from pytest_swe.grading.tree import GIT_FUNCTIONS
from pytest_swe.grading.tree import PAST_THE_STAMP
from pytest_swe.grading.tree import WorkTree
from pytest_swe.providers.docker.stream import CappedBuffer

from conftest import benchmark_settings

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


class LocalSandbox:
    """Enough of the sandbox protocol to run the pipeline's scripts on this machine."""

    def __init__(self, workdir: Path) -> None:
        self.id = "local"
        self.spec = SandboxSpec(image="local", workdir=str(workdir))

    def exec(self, command: str, *, timeout: float, workdir: str | None = None, env: Mapping[str, str] | None = None,
             user: str | None = None, output_limit: int | None = None) -> ExecResult:  # fmt: skip
        proc = subprocess.run(
            ["bash", "-c", command], cwd=workdir or self.spec.workdir, capture_output=True, timeout=timeout,
            env={**os.environ, **ENV, **(env or {})},
        )  # fmt: skip
        return ExecResult(proc.returncode, (proc.stdout + proc.stderr).decode(errors="replace"))

    def read_file(self, path: str) -> bytes:
        return Path(path).read_bytes()

    def write_file(self, path: str, data: bytes, *, mode: int = 0o644) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_bytes(data)

    def alive(self) -> bool:
        return True


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg" / "core.py").write_text("def f():\n    return 1\n")
    (root / "tests" / "test_core.py").write_text(
        "from pkg.core import f\n\n\ndef test_f():\n    assert f() == 2\n"
    )
    (root / "pyproject.toml").write_text(
        '[project]\nname = "pkg"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    )
    (root / "setup.cfg").write_text("[metadata]\nname = pkg\n\n[flake8]\nmax-line-length = 100\n")
    (root / ".gitignore").write_text("build/\n")
    commit_all(root)
    return root


TEST_PATCH = "diff --git a/tests/test_core.py b/tests/test_core.py\n--- a/tests/test_core.py\n+++ b/tests/test_core.py\n@@ -1 +1 @@\n-a\n+b\n"


class CappedLocalSandbox(LocalSandbox):
    """A local sandbox whose command output is capped the way the providers cap it."""

    def __init__(self, workdir: Path, cap: int) -> None:
        super().__init__(workdir)
        self.cap = cap
        self.outputs: list[str] = []

    def exec(self, command: str, **kwargs: Any) -> ExecResult:
        result = super().exec(command, **kwargs)
        buffer = CappedBuffer(self.cap)
        buffer.add(result.output.encode(errors="surrogateescape"))
        self.outputs.append(buffer.text())
        return ExecResult(result.exit_code, buffer.text())


def apply(
    repo: Path, patch: str, policy: str = "strict", sandbox: LocalSandbox | None = None
) -> tuple[bool, Integrity, EvalContext]:
    task = Task(family="swe-bench", instance_id="t", image="local", workdir=str(repo), test_patch=TEST_PATCH)
    ctx = EvalContext(
        settings=benchmark_settings("swe-bench", eval={"policy": policy}),
        artifacts=repo.parent / "artifacts",
        timeout=60,
        output_limit=1 << 20,
    )
    verdict = start_verdict(patch, "test")
    # The pipeline's scratch paths (/tmp/pytest-swe/patch.diff) are fixed, as each real sandbox
    # has its own /tmp; on this machine they are shared by the xdist workers, so one at a time.
    Path(PROBE_ROOT).mkdir(parents=True, exist_ok=True)
    with open(f"{PROBE_ROOT}/.local-sandbox.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        applied = apply_model_patch(task, patch, sandbox or LocalSandbox(repo), ctx, verdict)
    assert verdict.patch_applied is not False, verdict.reasons
    return applied, ctx.integrity, ctx


def test_a_plain_fix_is_left_as_it_is(repo: Path) -> None:
    patch = make_patch(
        repo,
        {
            "pkg/core.py": "def f():\n    return 2\n",
            "pkg/new_module.py": "X = 1\n",
            "setup.cfg": "[metadata]\nname = pkg\n\n[flake8]\nmax-line-length = 120\n",
            "README.md": "docs\n",
        },
    )
    applied, integrity, _ = apply(repo, patch)
    assert applied and integrity.neutralized == [] and integrity.findings == [] and integrity.blocked is None
    assert "return 2" in (repo / "pkg" / "core.py").read_text()
    assert "120" in (repo / "setup.cfg").read_text()


def test_what_cannot_belong_to_a_fix_is_put_back(repo: Path) -> None:
    patch = make_patch(
        repo,
        {
            "pkg/core.py": "def f():\n    return 2\n",
            "tests/test_core.py": "def test_f():\n    pass\n",
            "tests/conftest.py": "x = 1\n",
            "build/conftest.py": "x = 1\n",  # an ignored directory hides nothing
            "tests/test_new.py": "def test():\n    pass\n",
            "pyproject.toml": '[project]\nname = "pkg"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = "-p no:x"\n',
            "pkg.dist-info/entry_points.txt": "[pytest11]\nx = pkg.core\n",
            "pytest.py": "print('shadow')\n",
        },
    )
    applied, integrity, _ = apply(repo, patch)
    assert applied and integrity.findings == [] and integrity.blocked is None
    neutralized = {entry.split(" (", 1)[0] for entry in integrity.neutralized}
    assert neutralized == {
        "tests/test_core.py", "tests/conftest.py", "build/conftest.py", "tests/test_new.py", "pyproject.toml",
        "pkg.dist-info/entry_points.txt", "pytest.py",
    }  # fmt: skip
    assert git(repo, "status", "--porcelain", "--ignored") == " M pkg/core.py\n"
    assert "assert f() == 2" in (repo / "tests" / "test_core.py").read_text()


def test_official_policy_restores_nothing_and_only_notes(repo: Path) -> None:
    patch = make_patch(repo, {"tests/conftest.py": "x = 1\n"})
    applied, integrity, _ = apply(repo, patch, "official")
    assert applied and integrity.neutralized == []
    assert [f.rule for f in integrity.findings] == ["neutralized-under-strict"]
    assert (repo / "tests" / "conftest.py").exists()


def test_a_plain_diff_announcing_a_new_test_file_as_an_edit_is_read_from_the_tree(repo: Path) -> None:
    """Agents write ``--- a/x`` / ``+++ b/x`` / ``@@ -0,0`` for new files: the tree tells what happened."""
    patch = (
        "--- a/pkg/core.py\n+++ b/pkg/core.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n"
        "--- a/tests/test_extra.py\n+++ b/tests/test_extra.py\n@@ -0,0 +1,2 @@\n+def test_extra():\n+    pass\n"
    )
    applied, integrity, _ = apply(repo, patch)
    assert applied and integrity.findings == []
    assert [e.split(" (", 1)[0] for e in integrity.neutralized] == ["tests/test_extra.py"]
    assert "return 2" in (repo / "pkg" / "core.py").read_text()


@pytest.fixture(params=["gnu", "busybox", "busybox-applet"])
def finder(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The tree's record run with this machine's ``find``, with one that has no ``-cnewer`` on
    PATH, as BusyBox's has none, and with BusyBox's own (whose ``-newer`` compares whole seconds)."""
    if request.param == "gnu":
        return "gnu"
    shim = tmp_path / "busybox-find"
    shim.mkdir()
    if request.param == "busybox-applet":
        busybox = shutil.which("busybox")
        if busybox is None:
            pytest.skip("busybox is not installed here")
        (shim / "find").symlink_to(busybox)
        monkeypatch.setenv("PATH", f"{shim}:{os.environ['PATH']}")
        return "busybox"
    real = shutil.which("find")
    (shim / "find").write_text(
        f'#!/bin/sh\nfor a in "$@"; do [ "$a" = -cnewer ] && {{ echo "find: unrecognized: $a" >&2; exit 1; }}; done\n'
        f'exec {real} "$@"\n'
    )
    (shim / "find").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}:{os.environ['PATH']}")
    return "busybox"


def test_a_file_made_once_the_record_has_waited_is_newer_than_its_stamp(tmp_path: Path, finder: str) -> None:
    """The record waits for the clock only until a new file is newer than its stamp: a file the
    patch writes right after is then seen by either ``find``, however little the record took."""
    rounds = 40 if finder == "gnu" else 4  # BusyBox's applet waits up to a second each
    script = (
        GIT_FUNCTIONS
        + f"d={tmp_path}\nmissed=0\nfor i in $(seq {rounds}); do\n"
        + 'rm -f "$d/stamp" "$d/f"; : > "$d/stamp"\n'
        + PAST_THE_STAMP
        + '\n: > "$d/f"\n[ -n "$(find "$d/f" -maxdepth 0 $newer "$d/stamp")" ] || missed=$((missed + 1))\n'
        + "done\necho $newer missed=$missed\n"
    )
    out = subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["-cnewer" if finder == "gnu" else "-newer", "missed=0"]


def test_what_the_image_had_before_is_not_the_patch(repo: Path, finder: str) -> None:
    (repo / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\n")
    (repo / "pkg" / "core.py").write_text("def f():\n    return 1  # dirty in the image\n")
    future = repo / "tests" / "data_future.txt"
    future.write_text("x")
    later = time.time() + 3600
    os.utime(future, (later, later))
    patch = "diff --git a/pkg/other.py b/pkg/other.py\nnew file mode 100644\n--- /dev/null\n+++ b/pkg/other.py\n@@ -0,0 +1 @@\n+Y = 2\n"
    applied, integrity, ctx = apply(repo, patch)
    assert applied and integrity.neutralized == [] and integrity.findings == []
    assert ctx.tree.git_after_run() == []
    # by change time the file in the future needs no list of its own (a walk of the tree fewer)
    assert ctx.tree._future == ({"tests/data_future.txt"} if finder == "busybox" else set())


def test_a_file_the_patch_writes_among_ignored_ones_is_seen_by_either_find(repo: Path, finder: str) -> None:
    (repo / "build").mkdir()
    (repo / "build" / "old.txt").write_text("there before, ignored\n")
    patch = (
        "diff --git a/build/conftest.py b/build/conftest.py\nnew file mode 100644\n--- /dev/null\n"
        "+++ b/build/conftest.py\n@@ -0,0 +1 @@\n+X = 1\n"
    )
    applied, integrity, _ = apply(repo, patch)
    assert applied
    seen = [n.split(" (", 1)[0] for n in integrity.neutralized]
    assert seen == ["build/conftest.py"], integrity.neutralized  # seen, and put back
    assert not (repo / "build" / "conftest.py").exists() and (repo / "build" / "old.txt").exists()


def test_a_patch_that_changes_git_is_not_run_under_strict(repo: Path) -> None:
    hook = "diff --git a/.git/hooks/post-checkout b/.git/hooks/post-checkout\nnew file mode 100755\n--- /dev/null\n+++ b/.git/hooks/post-checkout\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+echo hooked\n"
    for name, blocked in (("strict", True), ("official", False)):
        _, integrity, _ = apply(repo, hook, name)
        assert "git" in {f.rule for f in integrity.findings}
        assert (integrity.blocked is not None) is blocked
        (repo / ".git" / "hooks" / "post-checkout").unlink(missing_ok=True)


def test_git_deleted_or_rewritten_during_the_tests(repo: Path) -> None:
    _, _, ctx = apply(repo, make_patch(repo, {"pkg/core.py": "def f():\n    return 2\n"}))
    git(repo, "commit", "-q", "--allow-empty", "-m", "rewritten")
    (repo / ".git" / "hooks" / "post-checkout").write_text("#!/bin/sh\n")
    problems = ctx.tree.git_after_run()
    assert any("HEAD moved" in m for m in problems) and any("hook" in m for m in problems), problems
    shutil.rmtree(repo / ".git")
    assert ctx.tree.git_after_run() == [".git was deleted during the tests"]


def _what_was_found(integrity: Integrity) -> tuple[list[str], list[str]]:
    return sorted(integrity.patched), sorted(e.split(" (", 1)[0] for e in integrity.neutralized)


@pytest.mark.parametrize("cap", [1 << 20, 2048], ids=["whole", "cut"])
def test_the_record_read_with_the_apply_is_the_record_in_its_file(repo: Path, cap: int) -> None:
    """The tree's record comes back in the apply's output; cut by the output cap, or holding
    names that are not UTF-8, it is read from its file instead, with the same result."""
    files = {f"pkg/mod_{i:03d}.py": f"X = {i}\n" for i in range(60)}
    files["pkg/caf\udce9.py"] = "Y = 1\n"  # a name that is not UTF-8
    files["tests/conftest.py"] = "x = 1\n"
    patch = make_patch(repo, files)
    sandbox = CappedLocalSandbox(repo, cap)
    applied, integrity, ctx = apply(repo, patch, sandbox=sandbox)
    patched, neutralized = _what_was_found(integrity)
    assert applied and neutralized == ["tests/conftest.py"], neutralized
    assert patched == sorted(p for p in files if p != "tests/conftest.py"), patched
    assert "dropped" in sandbox.outputs[0] if cap == 2048 else "dropped" not in sandbox.outputs[0]
    assert ctx.saved and "pytest-swe-tree-" not in (repo.parent / "artifacts" / "apply.log").read_text()


def test_after_the_tests_one_command_reads_the_git_check_and_the_probe() -> None:
    """The check of .git and the probe's results come back in one command; output that lost the
    line between them (cut by the cap) fails the check instead of passing it unread."""
    from pytest_swe.grading import pipeline

    class Printing:
        def __init__(self, output: str) -> None:
            self.output = output
            self.commands: list[str] = []

        def exec(self, command: str, **kwargs: Any) -> ExecResult:
            self.commands.append(command)
            marker = re.search(r"echo (pytest-swe-after-run-[0-9a-f]+)", command)
            assert marker is not None
            return ExecResult(0, self.output.replace("MARKER", marker.group(1)))

    tree = WorkTree(LocalSandbox(Path("/")), "/w", "/tmp/pytest-swe/t-x", 30)  # type: ignore[arg-type]
    tree.head = "abc"
    plan = Plan(repo="/w", dir="/tmp/pytest-swe/g-x", token="tok")
    pre = '{"canaries": {}}'
    collected = bundle_of([("pre.json", pre.encode())]).decode()
    ok = Printing(f"head abc\nMARKER\n{collected}")
    problems, results = pipeline._read_after_run(ok, tree, plan, 30)  # type: ignore[arg-type]
    assert problems == [] and results.pre == {"canaries": {}} and len(ok.commands) == 1
    moved = Printing(f"head def\nMARKER\n{collected}")
    problems, _ = pipeline._read_after_run(moved, tree, plan, 30)  # type: ignore[arg-type]
    assert problems and "HEAD moved" in problems[0]
    cut = Printing("head abc\n[... 99 bytes of output dropped ...]\n" + collected)
    problems, results = pipeline._read_after_run(cut, tree, plan, 30)  # type: ignore[arg-type]
    assert problems == ["the check of .git after the tests printed more than can be read"]
    assert results.pre == {}
    # Carried back by the eval script's own command: the same reading, and no command of its own.
    carried = Printing("")
    marker = "pytest-swe-after-run-" + "0" * 32
    problems, results = pipeline._read_after_run(
        carried,  # type: ignore[arg-type]
        tree,
        plan,
        30,
        (marker, f"head def\n{marker}\n{collected}"),
    )
    assert problems and "HEAD moved" in problems[0] and results.pre == {"canaries": {}}
    assert carried.commands == []


class CountingLocalSandbox(LocalSandbox):
    def __init__(self, workdir: Path) -> None:
        super().__init__(workdir)
        self.writes: list[str] = []

    def write_file(self, path: str, data: bytes, *, mode: int = 0o644) -> None:
        self.writes.append(path)
        super().write_file(path, data, mode=mode)


@pytest.mark.parametrize(
    "text, inline",
    [
        ("X = '$HOME `id` \\\\n'\nEOF\n'EOF'\r\nPYTEST_SWE_PATCH_0\n", True),  # shell text, CRLF
        ("# " + "x" * 20_000 + "\n", False),  # over the inline limit
        ("X = 'caf\udce9'\n", False),  # bytes that are not UTF-8
    ],
    ids=["shell-text", "large", "not-utf8"],
)
def test_the_patch_reaches_the_sandbox_byte_for_byte(repo: Path, text: str, inline: bool) -> None:
    """A small text patch travels inside the apply's command, any other through a file write;
    either way the file the apply reads is the patch exactly, and it applies."""
    from pytest_swe.api.patch import patch_bytes
    from pytest_swe.grading.patching import PATCH_PATH

    lines = text.splitlines(keepends=True)
    patch = (
        "diff --git a/pkg/data.py b/pkg/data.py\nnew file mode 100644\n--- /dev/null\n+++ b/pkg/data.py\n"
        f"@@ -0,0 +1,{len(lines)} @@\n" + "".join("+" + line for line in lines)
    )  # by hand: git's text output would not keep the carriage return or the bytes
    sandbox = CountingLocalSandbox(repo)
    applied, integrity, _ = apply(repo, patch, sandbox=sandbox)
    assert applied and integrity.patched == ["pkg/data.py"]
    assert (sandbox.writes == []) is inline, sandbox.writes
    assert Path(PATCH_PATH).read_bytes() == patch_bytes(patch)
    assert (repo / "pkg" / "data.py").read_bytes() == text.encode(errors="surrogateescape")
