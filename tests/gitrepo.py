"""Real git repositories on this machine for the pipeline's tests: git with an identity and no
user or system configuration, and patches written by git itself."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, env={**os.environ, **ENV}, check=True, capture_output=True, text=True
    ).stdout


def commit_all(repo: Path) -> None:
    """A new repository at ``repo`` with everything in it as its first commit."""
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")


def make_patch(repo: Path, edit: dict[str, str | None], moves: dict[str, str] | None = None) -> str:
    """A patch made by git from edits (None deletes), with the tree put back afterwards; given
    ``moves`` (old path: new path, made first with ``git mv``), with git's rename detection."""
    for old, new in (moves or {}).items():
        (repo / new).parent.mkdir(parents=True, exist_ok=True)
        git(repo, "mv", old, new)
    for path, text in edit.items():
        target = repo / path
        if text is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
    git(repo, "add", "-A", "-f")
    patch = git(repo, "diff", "--cached", "--binary", *(["-M30%"] if moves else []), "HEAD")
    git(repo, "reset", "-q", "--hard", "HEAD")
    git(repo, "clean", "-qfdx")
    return patch


def new_file_diff(path: str, text: str) -> str:
    """A git patch that adds ``path`` with ``text``, written without a repository."""
    lines = text.splitlines()
    head = f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
    return head + f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{line}\n" for line in lines)
