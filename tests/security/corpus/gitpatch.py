"""Writing patches the way an agent's tools do: edit a real checkout, then ``git diff``.

A :class:`Checkout` is a scratch git repository holding an instance's base tree (optionally with
the gold fix applied); the corpus edits it and :meth:`Checkout.diff` returns what ``git diff
--binary`` prints against base, so every patch is one ``git apply`` accepts in the eval sandbox.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .context import InstanceContext

_ENV = {
    "GIT_AUTHOR_NAME": "agent",
    "GIT_AUTHOR_EMAIL": "agent@localhost",
    "GIT_COMMITTER_NAME": "agent",
    "GIT_COMMITTER_EMAIL": "agent@localhost",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


class Checkout:
    """A scratch checkout of an instance at base; edit its files, then take the diff."""

    def __init__(self, ctx: InstanceContext, root: Path) -> None:
        self.ctx = ctx
        self.path = root / "repo"
        shutil.copytree(ctx.repo_dir, self.path, symlinks=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "core.fileMode", "true")
        self.git("config", "core.autocrlf", "false")
        self.git("add", "-A", "-f")
        self.git("commit", "-q", "--allow-empty", "-m", "base")

    def git(self, *args: str, input: str | bytes | None = None) -> str:
        data = input.encode() if isinstance(input, str) else input
        proc = subprocess.run(
            ["git", *args], cwd=self.path, env={**os.environ, **_ENV}, input=data, capture_output=True
        )
        if proc.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.decode(errors='replace')}")
        return proc.stdout.decode(errors="surrogateescape")

    def reset(self) -> Checkout:
        """Back to base: every change, new file and ignored file gone."""
        self.git("reset", "-q", "--hard", "HEAD")
        self.git("clean", "-q", "-ffdx")
        return self

    def apply(self, patch: str) -> Checkout:
        """Apply a patch (the gold fix, say) to the work tree."""
        self.git("apply", "--whitespace=nowarn", "-", input=patch)
        return self

    def read(self, path: str) -> str:
        return (self.path / path).read_text(encoding="utf-8")

    def write(self, path: str, text: str | bytes, mode: int | None = None) -> Checkout:
        target = self.path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink():
            target.unlink()
        if isinstance(text, bytes):
            target.write_bytes(text)
        else:
            target.write_text(text, encoding="utf-8", newline="")
        if mode is not None:
            target.chmod(mode)
        return self

    def append(self, path: str, text: str) -> Checkout:
        return self.write(path, self.read(path) + text)

    def delete(self, path: str) -> Checkout:
        (self.path / path).unlink()
        return self

    def rename(self, old: str, new: str) -> Checkout:
        target = self.path / new
        target.parent.mkdir(parents=True, exist_ok=True)
        (self.path / old).rename(target)
        return self

    def chmod(self, path: str, mode: int) -> Checkout:
        (self.path / path).chmod(mode)
        return self

    def symlink(self, path: str, target: str) -> Checkout:
        link = self.path / path
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.exists() or link.is_symlink():
            link.unlink()
        link.symlink_to(target)
        return self

    def diff(self) -> str:
        """Every change against base, ignored files included, as ``git diff --binary`` prints it."""
        self.git("add", "-A", "-f")
        return self.git("diff", "--cached", "--binary", "HEAD")


@contextmanager
def checkout(ctx: InstanceContext, *, gold: bool = False) -> Iterator[Checkout]:
    """A scratch checkout of ``ctx`` at base (with the gold fix applied when ``gold``)."""
    with tempfile.TemporaryDirectory(prefix="corpus-") as tmp:
        work = Checkout(ctx, Path(tmp))
        if gold:
            work.apply(ctx.gold_patch)
        yield work
