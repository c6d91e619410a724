"""Applying a model patch inside a sandbox, with the official fallback chain.

``git apply -v`` -> ``git apply -v --reject`` -> ``patch --batch --fuzz=5 -p1``. Unlike the
official harness, the tree is restored after an attempt that can leave part of a patch behind,
so a half-applied ``--reject`` never leaves hunks behind for ``patch`` to apply twice. A plain
``git apply`` applies all or nothing: after it fails there is nothing to restore, and the list
of untracked files a restore keeps is taken only when an attempt that needs it comes (a walk of
the whole work tree, a twentieth of a second on a repository of Django's size).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass

from pytest_swe.api.errors import InfraError
from pytest_swe.api.patch import patch_bytes
from pytest_swe.api.sandbox import Sandbox

from . import inline

PATCH_PATH = "/tmp/pytest-swe/patch.diff"
DIFF_DIR = "/tmp/pytest-swe"
DIFF_PATH = f"{DIFF_DIR}/agent.diff"
APPLIED_MARK = ">>>>> Applied Patch"
FAILED_MARK = ">>>>> Patch Apply Failed"
WRAPPED_OUTPUT_LIMIT = 64 << 20
"""The apply's output cap when the tree's record comes back with it (a large repository's record
is megabytes)."""

APPLY_COMMANDS: tuple[str, ...] = (
    "git apply --verbose {path}",
    "git apply --verbose --reject {path}",
    "patch --batch --fuzz=5 -p1 -i {path}",
)

_SCRIPT = """\
cd {workdir} || exit 3
before=
untracked() {{  # the untracked files an attempt may add to, once, before the first such attempt
  [ -n "$before" ] && return
  before=$(mktemp)
  git ls-files --others --exclude-standard > "$before" 2>/dev/null
}}
restore() {{
  git -c core.hooksPath=/dev/null -c core.fsmonitor= checkout -q -- . 2>/dev/null
  git ls-files --others --exclude-standard 2>/dev/null | grep -vxF -f "$before" | while IFS= read -r f; do rm -f -- "$f"; done
}}
{attempts}
echo "{failed}"
exit 1
"""

_ATTEMPT = """\
echo "+ {shown}"
if {command}; then echo "{applied} ({shown})"; exit 0; fi
"""
_PARTIAL_ATTEMPT = """\
untracked
echo "+ {shown}"
if {command}; then echo "{applied} ({shown})"; exit 0; fi
restore
"""
_ALL_OR_NOTHING = re.compile(
    r"git apply(?: (?:--verbose|-v|--recount|--ignore-space-change|--ignore-whitespace|--whitespace=\w+))* \{path\}"
)
"""An apply command that changes nothing when it fails: ``git apply`` without ``--reject`` (or
``--3way``, which leaves conflicts), whose failure leaves the tree as it found it."""


@dataclass
class ApplyResult:
    applied: bool
    method: str | None
    log: str


def apply_script(workdir: str, path: str = PATCH_PATH, commands: tuple[str, ...] = APPLY_COMMANDS) -> str:
    """A shell script trying each command (``{path}`` = the patch file) until one applies."""
    attempts = "".join(
        (_ATTEMPT if _ALL_OR_NOTHING.fullmatch(cmd) else _PARTIAL_ATTEMPT).format(
            shown=cmd.format(path=path),
            command=cmd.format(path=shlex.quote(path)),
            applied=APPLIED_MARK,
        )
        for cmd in commands
    )
    return _SCRIPT.format(workdir=shlex.quote(workdir), attempts=attempts, failed=FAILED_MARK)


def apply_patch(
    sandbox: Sandbox,
    patch: str,
    *,
    workdir: str,
    timeout: float,
    commands: tuple[str, ...] = APPLY_COMMANDS,
    wrap: Callable[[str], str] | None = None,
    unwrap: Callable[[str], str] | None = None,
) -> ApplyResult:
    """Upload ``patch`` and apply it in ``workdir``; the tree is unchanged when nothing applies.

    ``wrap``: what the apply script runs inside (the work tree's record and read-back around it,
    :meth:`~pytest_swe.grading.tree.WorkTree.around`), so all of it is one command; ``unwrap``
    takes what ``wrap`` added out of the output before it is read."""
    data = patch_bytes(patch)
    # Carried in the apply's command where it can be (one round trip to the sandbox fewer).
    upload = inline.writes({PATCH_PATH: (data, 0o644)}, inline.limit_of(sandbox), on_failure="exit 3")
    if upload is None:
        sandbox.write_file(PATCH_PATH, data)
    result = sandbox.exec(
        (upload or "") + apply_command(workdir, commands, wrap),
        timeout=timeout,
        workdir=workdir,
        output_limit=WRAPPED_OUTPUT_LIMIT if wrap else None,
    )
    if result.timed_out:  # the harness's timer, not the patch: no verdict on a patch not yet applied
        raise InfraError("eval_timeout", f"applying the patch did not finish within {timeout:g}s")
    return read_apply(unwrap(result.output) if unwrap else result.output, result.exit_code)


def apply_command(
    workdir: str, commands: tuple[str, ...] = APPLY_COMMANDS, wrap: Callable[[str], str] | None = None
) -> str:
    """The apply's whole command (the patch already at :data:`PATCH_PATH`), inside ``wrap``."""
    script = apply_script(workdir, commands=commands)
    return wrap(script) if wrap else script


def read_apply(log: str, exit_code: int | None) -> ApplyResult:
    """The apply's outcome from its output (``wrap``'s part taken out) and exit status."""
    method = None
    for line in log.splitlines():
        if line.startswith(APPLIED_MARK):
            method = line[len(APPLIED_MARK) :].strip(" ()")
    return ApplyResult(applied=exit_code == 0 and method is not None, method=method, log=log)


def take_diff(sandbox: Sandbox, workdir: str, base_commit: str | None, *, timeout: float) -> str:
    """The agent's changes as ``git diff`` against the base commit, new and binary files included.

    The diff goes through a file, not the command output, so no output cap can cut it.
    """
    base = shlex.quote(base_commit) if base_commit else "HEAD"
    command = (
        f"mkdir -p {DIFF_DIR} && cd {shlex.quote(workdir)} && git -c core.fileMode=false add -A >/dev/null 2>&1; "
        f"git -c core.fileMode=false diff --cached --binary --no-color --no-ext-diff {base} > {DIFF_PATH}"
    )
    result = sandbox.exec(command, timeout=timeout, workdir=workdir)
    if result.exit_code != 0:
        raise InfraError(
            "sandbox_error",
            f"cannot take the agent's diff (exit {result.exit_code}): {result.output[-2000:]}",
        )
    return sandbox.read_file(DIFF_PATH).decode("utf-8", errors="surrogateescape")
