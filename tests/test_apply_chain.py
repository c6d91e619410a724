"""The apply's fallback chain, run by bash in real git repositories.

``git apply`` -> ``git apply --reject`` -> ``patch --fuzz``: the tree is restored after an
attempt that can leave part of a patch behind (the untracked files that were there before are
kept), and a plain ``git apply``, which applies all or nothing, costs no walk of the work tree for
a restore it cannot need.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_swe.families.rebench.v2 import V2_APPLY_COMMANDS
from pytest_swe.grading.patching import APPLIED_MARK
from pytest_swe.grading.patching import FAILED_MARK
from pytest_swe.grading.patching import apply_script

pytestmark = pytest.mark.skipif(shutil.which("patch") is None, reason="GNU patch is not installed")

LINES = [f"line {i}\n" for i in range(1, 31)]


def repo_with(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.txt").write_text("".join(LINES))
    (repo / "notes.txt").write_text("untracked, there before\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@t"
    for args in (["init", "-q"], ["add", "a.txt"], ["commit", "-qm", "base"]):
        subprocess.run(["git", *args], cwd=repo, check=True, env=env)
    return repo


def run_chain(
    tmp_path: Path, repo: Path, patch: str, commands: tuple[str, ...] | None = None
) -> tuple[int, str, list[str]]:
    """Run the apply script; return its exit code, output and the git commands it ran."""
    (tmp_path / "patch.diff").write_text(patch)
    shim = tmp_path / "bin"
    shim.mkdir(exist_ok=True)
    log = tmp_path / "git.log"
    log.write_text("")
    real_git = shutil.which("git")
    (shim / "git").write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec {real_git} "$@"\n')
    (shim / "git").chmod(0o755)
    kwargs = {"commands": commands} if commands else {}
    script = apply_script(str(repo), path=str(tmp_path / "patch.diff"), **kwargs)
    env = {**os.environ, "PATH": f"{shim}:{os.environ['PATH']}"}
    out = subprocess.run(["bash", "-c", script], cwd=repo, env=env, capture_output=True, text=True)
    return out.returncode, out.stdout + out.stderr, log.read_text().splitlines()


def hunk(at: int, old: list[str], new: list[str], context_before: list[str], context_after: list[str]) -> str:
    body = [" " + c for c in context_before] + ["-" + o for o in old] + ["+" + n for n in new]
    body += [" " + c for c in context_after]
    n_old = len(context_before) + len(old) + len(context_after)
    n_new = len(context_before) + len(new) + len(context_after)
    return f"@@ -{at},{n_old} +{at},{n_new} @@\n" + "".join(body)


HEADER = "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n"
CLEAN_FIRST = hunk(2, ["line 3\n"], ["LINE THREE\n"], ["line 2\n"], ["line 4\n"])
FUZZY_SECOND = hunk(20, ["line 21\n"], ["LINE TWENTY-ONE\n"], ["line 20 (not quite)\n"], ["line 22\n"])


def test_a_clean_patch_applies_first_time_without_a_walk_for_a_restore(tmp_path: Path) -> None:
    repo = repo_with(tmp_path)
    code, out, git = run_chain(tmp_path, repo, HEADER + CLEAN_FIRST)
    assert code == 0 and f"{APPLIED_MARK} (git apply --verbose" in out, out
    assert "LINE THREE" in (repo / "a.txt").read_text()
    assert not any(c.startswith("ls-files") for c in git), git


def test_a_half_applied_reject_is_undone_before_patch_applies_it_whole(tmp_path: Path) -> None:
    repo = repo_with(tmp_path)
    code, out, git = run_chain(tmp_path, repo, HEADER + CLEAN_FIRST + FUZZY_SECOND)
    assert code == 0 and f"{APPLIED_MARK} (patch --batch --fuzz=5" in out, out
    text = (repo / "a.txt").read_text()
    assert text.count("LINE THREE") == 1 and "LINE TWENTY-ONE" in text, text
    assert not (repo / "a.txt.rej").exists()
    assert (repo / "notes.txt").exists()
    # the untracked files are listed once, after plain git apply failed and before --reject ran
    listed = [i for i, c in enumerate(git) if c.startswith("ls-files --others")]
    first_reject = next(i for i, c in enumerate(git) if c.startswith("apply") and "--reject" in c)
    plain = next(i for i, c in enumerate(git) if c.startswith("apply") and "--reject" not in c)
    assert plain < listed[0] < first_reject, git


def test_when_nothing_applies_the_tree_is_as_it_was(tmp_path: Path) -> None:
    repo = repo_with(tmp_path)
    wrong = hunk(10, ["no such line\n"], ["x\n"], ["nor this\n"], ["nor that\n"])
    code, out, _git = run_chain(tmp_path, repo, HEADER + CLEAN_FIRST + wrong)
    assert code == 1 and FAILED_MARK in out, out
    assert (repo / "a.txt").read_text() == "".join(LINES)
    assert sorted(p.name for p in repo.iterdir() if p.name != ".git") == ["a.txt", "notes.txt"]


def test_every_attempt_after_the_all_or_nothing_ones_is_restored(tmp_path: Path) -> None:
    """SWE-rebench V2's chain has two all-or-nothing attempts before --reject."""
    repo = repo_with(tmp_path)
    code, out, git = run_chain(tmp_path, repo, HEADER + CLEAN_FIRST + FUZZY_SECOND, V2_APPLY_COMMANDS)
    assert code == 0 and f"{APPLIED_MARK} (patch --batch" in out, out
    assert (repo / "a.txt").read_text().count("LINE THREE") == 1
    assert sum(c.startswith("ls-files --others") for c in git) == 2, (
        git
    )  # the list, the restore after --reject
    script = apply_script("/testbed", commands=V2_APPLY_COMMANDS)
    assert script.count("\nuntracked\n") == 2 and script.count("\nrestore\n") == 2
