"""Deterministic git snapshots of repositories kept as data.

Local datasets keep each task's repository as a plain directory. The dataset row
names a ``base_commit``; the image must hold a git repository whose HEAD is that
commit. Committing the same tree with a fixed identity, date and message gives
the same commit id on every machine, so rows and images agree without storing
``.git`` directories in this repository.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

SNAPSHOT_ENV = {
    "GIT_AUTHOR_NAME": "pytest-swe",
    "GIT_AUTHOR_EMAIL": "pytest-swe@localhost",
    "GIT_COMMITTER_NAME": "pytest-swe",
    "GIT_COMMITTER_EMAIL": "pytest-swe@localhost",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00+0000",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}
SNAPSHOT_MESSAGE = "base"


def git(args: list[str], cwd: Path, *, input: str | None = None, check: bool = True) -> str:
    """Run git with a fixed, config-free environment and return its stdout."""
    env = {**os.environ, **SNAPSHOT_ENV}
    proc = subprocess.run(
        ["git", *args], cwd=cwd, env=env, input=input, capture_output=True, text=True, check=False
    )
    if check and proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {cwd}: {proc.stderr.strip()}")
    return proc.stdout


def snapshot(source: Path, dest: Path) -> str:
    """Copy ``source`` to ``dest`` and commit it as one deterministic commit; return its id.

    ``dest`` must not exist. Ignored files (by ``.gitignore``) are copied but not committed.
    """
    source = Path(source)
    if not source.is_dir():
        raise FileNotFoundError(f"repository directory not found: {source}")
    shutil.copytree(source, dest, symlinks=True)
    git(["init", "-q", "-b", "main"], dest)
    git(["config", "core.fileMode", "true"], dest)
    git(["add", "-A"], dest)
    git(["commit", "-q", "--allow-empty", "-m", SNAPSHOT_MESSAGE], dest)
    return git(["rev-parse", "HEAD"], dest).strip()


def commit_id(source: Path, scratch: Path) -> str:
    """The commit id :func:`snapshot` gives for ``source`` (uses ``scratch`` as a work dir)."""
    dest = Path(scratch) / "snapshot"
    if dest.exists():
        shutil.rmtree(dest)
    try:
        return snapshot(source, dest)
    finally:
        shutil.rmtree(dest, ignore_errors=True)


def diff_trees(before: Path, after: Path, scratch: Path) -> str:
    """A ``git diff`` (a/ b/ prefixes, binary-safe) that turns tree ``before`` into ``after``."""
    work = Path(scratch) / "diff"
    if work.exists():
        shutil.rmtree(work)
    snapshot(before, work)
    for child in work.iterdir():
        if child.name != ".git":
            shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
    for child in Path(after).iterdir():
        target = work / child.name
        if child.is_dir() and not child.is_symlink():
            shutil.copytree(child, target, symlinks=True)
        else:
            shutil.copy2(child, target, follow_symlinks=False)
    # Rebuild the index from the files: copy2 keeps mtimes, so a changed file of the same size
    # can look unchanged to the stat cache and drop out of the diff.
    (work / ".git" / "index").unlink(missing_ok=True)
    git(["add", "-A"], work)
    out = git(["diff", "--cached", "--binary", "--no-color", "--no-ext-diff", "HEAD"], work)
    shutil.rmtree(work, ignore_errors=True)
    return out
