"""Running an eval script in the sandbox: a hard timeout, a capped log kept as an artifact, and
faults of the sandbox (timeout, memory, process or disk limit, a sandbox that died) raised as
infrastructure errors, never scored as model failures."""

from __future__ import annotations

import secrets
import shlex
import time
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import NamedTuple

from pytest_swe.api.errors import InfraError
from pytest_swe.api.family import EvalContext
from pytest_swe.api.sandbox import ExecResult
from pytest_swe.api.sandbox import LimitCounting
from pytest_swe.api.sandbox import Sandbox
from pytest_swe.api.sandbox import write_files
from pytest_swe.api.task import Task

from .inline import WRITTEN_MARK
from .inline import command_with_files
from .inline import written


def limit_counters(sandbox: Sandbox) -> dict[str, int]:
    """The sandbox's limit counters (memory kills, process-limit hits, disk), when its provider has them."""
    if not isinstance(sandbox, LimitCounting):
        return {}
    try:
        return dict(sandbox.limit_counters())
    except Exception:  # counters only name a fault's cause: unreadable, the fault is still classified
        return {}


def sandbox_survived(sandbox: Sandbox, result: ExecResult, settle: float = 3.0) -> bool:
    """Whether the sandbox outlived the command. A command that ended by a signal (or with no
    exit code) may have died with its sandbox, whose engine can still report it running for a
    moment: then watch it for ``settle`` seconds before believing it."""
    if not sandbox.alive():
        return False
    if result.timed_out or (result.exit_code is not None and result.exit_code < 128):
        return True
    end = time.monotonic() + settle
    while time.monotonic() < end:
        time.sleep(0.25)
        if not sandbox.alive():
            return False
    return True


def classify_fault(
    result: ExecResult,
    before: Mapping[str, int],
    after: Mapping[str, int],
    alive: bool,
    timeout: float,
    log_path: str,
) -> InfraError | None:
    """The infrastructure fault behind a finished exec, if any; the most specific cause wins."""

    def grew(key: str) -> bool:
        return int(after.get(key) or 0) > int(before.get(key) or 0)

    if after.get("disk_exceeded"):
        limit = after.get("disk_limit") or 0
        return InfraError(
            "disk_full",
            f"the eval wrote more than the sandbox's {limit / 2**20:.0f} MiB disk limit (log: {log_path})",
        )
    if result.oom_killed or grew("oom_kills"):
        return InfraError("oom", f"the eval was killed for exceeding the memory limit (log: {log_path})")
    if grew("pids_limit_hits"):
        return InfraError(
            "pids_limit", f"the eval reached the sandbox's process limit (a fork bomb?) (log: {log_path})"
        )
    if result.timed_out:  # the harness's own timer fired: what became of the sandbox after is its doing
        return InfraError("eval_timeout", f"the eval did not finish within {timeout:g}s (log: {log_path})")
    if not alive:
        return InfraError("sandbox_died", f"the sandbox stopped during the eval (log: {log_path})")
    return None


@dataclass(frozen=True)
class Afterwards:
    """A command to run once the eval script ended, in the script's own command: one round trip to
    the sandbox fewer than a command of its own.

    Its output goes to a new file first (``mktemp``: a name no code under test could have laid a
    link at) and is carried back only when it fits in ``limit`` bytes, so it always lands in the
    part of a capped output that is kept (the end); otherwise, or when the script's command did
    not end normally, the caller runs it on its own as before."""

    command: str
    limit: int
    marker: str = field(default_factory=lambda: f"pytest-swe-afterwards-{secrets.token_hex(16)}")

    def around(self, run: str) -> str:
        """``run``, then this command. ``run`` goes in a subshell, so an ``exit`` or ``exec`` in it
        ends the subshell, not what follows; it keeps the command's error output, while the shell's
        own messages (a subshell killed by a signal, a file it could not make) go nowhere, so the
        log is ``run``'s output alone."""
        return (
            "exec 9>&2 2>/dev/null\n"
            f"( exec 9>&-\n{run}\n) 2>&9\n"
            "__swe_rc=$?\n"
            "exec 9>&-\n"
            "__swe_n=-1\n"
            "if __swe_out=$(mktemp); then\n"
            f'  ( {self.command}\n) > "$__swe_out" 2>&1 < /dev/null\n'
            '  __swe_n=$(wc -c < "$__swe_out") || __swe_n=-1\n'
            "fi\n"
            f'if [ "$__swe_n" -ge 0 ] && [ "$__swe_n" -le {self.limit} ]; then __swe_fit=ok; else __swe_fit=big; fi\n'
            f'printf "\\n{self.marker} %s %d %d\\n" "$__swe_fit" "$__swe_rc" "$__swe_n"\n'
            'if [ "$__swe_fit" = ok ]; then cat "$__swe_out"; fi\n'
            'if [ -n "${__swe_out:-}" ]; then rm -f "$__swe_out"; fi\n'
            'exit "$__swe_rc"\n'
        )

    def parted(self, output: str, exit_code: int | None) -> tuple[str, str | None]:
        """(the script's own output, this command's output or None when it must run on its own).

        The last line with the marker counts, and only when the exit status it carries is the
        command's: code under test that read the marker (it is in the command line) and printed a
        line of its own can only end the shell after it by a signal, and a status of a signal (128
        and over, or a negative one where a provider reports signals so) never carries it. Output
        printed before the real line is the script's. The line also carries the size of what
        follows it, so output cut short on its way is not taken."""
        at = output.rfind(f"\n{self.marker} ")
        if at < 0:
            return output, None
        status, _, rest = output[at + len(self.marker) + 2 :].partition("\n")
        fit, code, size = [*status.split(" "), "", ""][:3]
        if exit_code is None or code != str(exit_code) or fit not in ("ok", "big"):
            return output, None
        if fit != "ok" or not 0 <= exit_code < 128 or size != str(len(rest.encode())):
            return output[:at], None
        return output[:at], rest


@dataclass(frozen=True)
class Opening:
    """A command run first in the eval script's own command (one round trip to the sandbox fewer
    than a command of its own, e.g. the patch's apply); the script runs only when it exits 0.

    Its output goes to ``path`` (a name the caller chose at random, in a directory no code under
    test has run in yet), then opens the command's output, followed by a line with a marker, its
    size and the command's exit status: nothing the script runs has printed anything yet, so the
    first such line is its own, and where the output was capped it is still its own when it lies
    in the part of the output kept from the start (``head`` bytes). ``then`` is shell run after it
    in the outer shell, before the script (values kept in the shell's memory, out of the reach of
    the code the script runs). Where the output is not there whole (cut, or not all UTF-8), the
    caller reads ``path`` instead."""

    command: str
    path: str
    then: str = ""
    marker: str = field(default_factory=lambda: f"pytest-swe-opening-{secrets.token_hex(16)}")

    def before(self, run: str) -> str:
        """This command, then ``run`` when it exited 0."""
        path = shlex.quote(self.path)
        return (
            f"mkdir -p {shlex.quote(self.path.rsplit('/', 1)[0] or '/')} 2>/dev/null\n"
            f"( {self.command}\n) > {path} 2>&1 < /dev/null\n"
            "__swe_orc=$?\n"
            f"cat {path} 2>/dev/null\n"
            f'printf "\\n{self.marker} %s %s\\n" "$(wc -c < {path} | tr -d " ")" "$__swe_orc"\n'
            'if [ "$__swe_orc" != 0 ]; then exit 0; fi\n'
            f"{self.then}\n{run}"
        )

    def parted(self, output: str, head: int | None = None) -> tuple[str | None, int | None, str]:
        """(this command's output, or None when it must be read from ``path``; its exit status, or
        None when its line was not found in the part of the output kept from the start; the rest).
        ``head``: how many bytes of the output were kept from its start, when it was capped."""
        own, found, rest = output.partition(f"\n{self.marker} ")
        line, _, after = rest.partition("\n")
        if not found or (head is not None and len(f"{own}\n{self.marker} {line}\n".encode()) > head):
            return None, None, output
        size, _, status = line.partition(" ")
        whole = size == str(len(own.encode())) and "\ufffd" not in own
        return (own if whole else None), (int(status) if status.isdigit() else None), after


def run_script(
    task: Task,
    sandbox: Sandbox,
    ctx: EvalContext,
    script: str,
    *,
    path: str = "/eval.sh",
    command: str | None = None,
    log_name: str = "eval.log",
    files: Mapping[str, tuple[bytes, int]] | None = None,
) -> tuple[str, int | None]:
    """Upload and run an eval script with the eval timeout; return (log, exit code). ``files``
    (``path: (data, mode)``, e.g. the probe's) are written with the script: inside the command
    that runs it where the sandbox can carry them, else in one write before it.

    Raises InfraError ``eval_timeout``, ``oom``, ``pids_limit``, ``disk_full`` or
    ``sandbox_died``; the partial log is saved either way.
    """
    ran = run_script_then(
        task, sandbox, ctx, script, None, path=path, command=command, log_name=log_name, files=files
    )
    return ran.log, ran.exit_code


class ScriptRun(NamedTuple):
    """What :func:`run_script_then` read back."""

    log: str
    exit_code: int | None
    after: str | None
    """The output of ``afterwards``; None when the caller must run it on its own."""
    opened: str | None = None
    """The output of ``opening``; None when the caller must read it from its file."""
    opening_status: int | None = None
    """The exit status of ``opening`` (the script ran only when 0); None when it was not read."""


def run_script_then(
    task: Task,
    sandbox: Sandbox,
    ctx: EvalContext,
    script: str,
    afterwards: Afterwards | None,
    *,
    path: str = "/eval.sh",
    command: str | None = None,
    log_name: str = "eval.log",
    files: Mapping[str, tuple[bytes, int]] | None = None,
    opening: Opening | None = None,
) -> ScriptRun:
    """:func:`run_script`, after ``opening`` and then ``afterwards`` in the same command."""
    ctx.save(path.rsplit("/", 1)[-1], script)
    uploads = {**(files or {}), path: (script.encode("utf-8", errors="surrogateescape"), 0o755)}
    run = command or f"/bin/bash {path}"
    if afterwards is not None:
        run = afterwards.around(run)
    if opening is not None:
        run = opening.before(run)
    carried = command_with_files(sandbox, uploads, run)
    if carried is None:
        write_files(sandbox, uploads)
    before = limit_counters(sandbox)
    ctx.script_starts()
    with ctx.timed("script"):
        result = sandbox.exec(
            carried or run,
            timeout=ctx.timeout,
            workdir=task.workdir,
            env=task.eval_env or None,
            output_limit=ctx.output_limit,
        )
    uploaded, output = written(result.output) if carried is not None else (True, result.output)
    opened: str | None = None
    opening_status: int | None = None
    if opening is not None:
        head = ctx.output_limit // 2 - len(WRITTEN_MARK) - 1 if result.truncated_bytes else None
        opened, opening_status, output = opening.parted(output, head)
    after: str | None = None
    if afterwards is not None:
        output, after = afterwards.parted(output, result.exit_code)
    log_path = ctx.save(log_name, output)
    counters = limit_counters(sandbox)
    fault = classify_fault(result, before, counters, sandbox_survived(sandbox, result), ctx.timeout, log_path)
    if fault is not None:
        raise fault
    if not uploaded:
        raise InfraError(
            "sandbox_error",
            f"the eval script and its files could not be written in the sandbox (log: {log_path})",
        )
    return ScriptRun(output, result.exit_code, after, opened, opening_status)
