"""The guard's in-sandbox steps on a local git repository (a stand-in sandbox running bash here).

What a patch changed is read back from git and the file system, so these tests change the
tree directly, as any patch tool would, between ``before_apply`` and ``after_apply``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

import pytest

from pytest_swe import policy
from pytest_swe.sandbox import ExecResult
from pytest_swe.sandbox import SandboxSpec

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


class LocalSandbox:
    """Enough of the sandbox protocol to run the guard's scripts on this machine."""

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


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, env={**os.environ, **ENV}, check=True, capture_output=True,
                          text=True).stdout  # fmt: skip


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
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root


def guard(
    repo: Path, policy_name: str = "strict", test_patch_paths: tuple[str, ...] = ("tests/test_core.py",)
) -> policy.PatchGuard:
    test_patch = "".join(
        f"diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n@@ -1 +1 @@\n-a\n+b\n" for p in test_patch_paths
    )
    return policy.PatchGuard(
        policy=policy_name,
        protection=policy.Protection.build(test_patch=test_patch),
        workdir=str(repo),
        timeout=60,
    )


def rules(findings: list[policy.Finding]) -> set[str]:
    return {f.rule for f in findings}


def test_a_plain_fix_changes_nothing_and_raises_nothing(repo: Path) -> None:
    sandbox, g = LocalSandbox(repo), guard(repo)
    g.before_apply(sandbox)
    (repo / "pkg" / "core.py").write_text("def f():\n    return 2\n")
    (repo / "pkg" / "new_module.py").write_text("X = 1\n")
    (repo / "setup.cfg").write_text("[metadata]\nname = pkg\n\n[flake8]\nmax-line-length = 120\n")
    assert g.after_apply(sandbox) == [] and g.restored == [] and g.can_run
    assert g.after_run(sandbox, "", "", 0) == []
    assert "return 2" in (repo / "pkg" / "core.py").read_text()


def test_protected_paths_are_restored_or_removed(repo: Path) -> None:
    sandbox, g = LocalSandbox(repo), guard(repo)
    g.before_apply(sandbox)
    (repo / "tests" / "test_core.py").write_text("def test_f():\n    pass\n")
    (repo / "tests" / "conftest.py").write_text("x = 1\n")
    (repo / "build").mkdir()
    (repo / "build" / "conftest.py").write_text("x = 1\n")  # an ignored directory hides nothing
    (repo / "pkg" / "evil.pth").write_text("import os\n")
    (repo / "tests" / "test_new.py").write_text("def test():\n    pass\n")
    (repo / "pyproject.toml").write_text((repo / "pyproject.toml").read_text() + 'addopts = "-p no:x"\n')
    found = g.after_apply(sandbox)
    assert rules(found) == {"test-patch", "conftest", "startup-hook", "new-test-file", "test-config"}
    assert g.can_run
    assert git(repo, "status", "--porcelain", "--ignored") == ""
    assert "assert f() == 2" in (repo / "tests" / "test_core.py").read_text()


def test_what_the_image_had_before_is_not_the_patch(repo: Path) -> None:
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\n")
    (repo / "pkg" / "core.py").write_text("dirty in the image\n")
    future = repo / "tests" / "data_future.txt"
    future.write_text("x")
    later = time.time() + 3600
    os.utime(future, (later, later))
    sandbox, g = LocalSandbox(repo), guard(repo)
    g.before_apply(sandbox)
    (repo / "pkg" / "other.py").write_text("Y = 2\n")
    assert g.after_apply(sandbox) == []
    assert g.after_run(sandbox, "", "", 0) == []


def test_a_patch_that_changes_git_is_not_run_under_strict(repo: Path) -> None:
    for name, can_run in (("strict", False), ("official", True)):
        sandbox, g = LocalSandbox(repo), guard(repo, name)
        g.before_apply(sandbox)
        hook = repo / ".git" / "hooks" / "post-checkout"
        hook.write_text("#!/bin/sh\necho hooked\n")
        assert "git" in rules(g.after_apply(sandbox))
        assert g.can_run is can_run
        hook.unlink()


def test_git_deleted_or_rewritten_during_the_tests(repo: Path) -> None:
    sandbox, g = LocalSandbox(repo), guard(repo)
    g.before_apply(sandbox)
    g.after_apply(sandbox)
    git(repo, "commit", "-q", "--allow-empty", "-m", "rewritten")
    (repo / ".git" / "hooks" / "post-checkout").write_text("#!/bin/sh\n")
    messages = [f.message for f in g.after_run(sandbox, "", "", 0)]
    assert any("HEAD moved" in m for m in messages) and any("hook" in m for m in messages), messages
    shutil.rmtree(repo / ".git")
    assert [f.message for f in g.after_run(sandbox, "", "", 0)] == [".git was deleted during the tests"]
