"""The evaluation steps every family shares: apply the patch, run a script, keep the log.

Families decide the script, the parser and the grading rule; this module runs them the
same way for all of them: the patch through the fallback chain, the script with a hard
timeout and a capped log saved as an artifact, and timeouts or out-of-memory kills raised
as infrastructure errors (never scored as model failures).
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field

from pytest_swe.errors import InfraError
from pytest_swe.family import EvalContext
from pytest_swe.patching import APPLY_COMMANDS
from pytest_swe.patching import ApplyResult
from pytest_swe.patching import apply_patch
from pytest_swe.sandbox import Sandbox
from pytest_swe.task import Task
from pytest_swe.verdict import Verdict

APPLY_TIMEOUT = 300.0


@dataclass
class EvalRun:
    """What happened in the eval sandbox, before any parsing."""

    verdict: Verdict
    """Filled with patch_exists / patch_applied / apply_method (and reasons when it stops early)."""
    ran: bool = False
    log: str = ""
    exit_code: int | None = None
    apply: ApplyResult | None = None
    notes: list[str] = field(default_factory=list)


def start_verdict(patch: str, grader: str) -> Verdict:
    return Verdict(resolved=False, patch_exists=bool(patch.strip()), grader=grader)


def apply_model_patch(
    task: Task, patch: str, sandbox: Sandbox, ctx: EvalContext, verdict: Verdict, *, commands: tuple[str, ...] = APPLY_COMMANDS
) -> bool:
    """Apply the model patch (if any); False (with a reason on the verdict) when it does not apply."""
    if not verdict.patch_exists:
        verdict.reasons.append("the patch is empty")
        return True
    applied = apply_patch(sandbox, patch, workdir=task.workdir, timeout=min(ctx.timeout, APPLY_TIMEOUT), commands=commands)
    ctx.save("apply.log", applied.log)
    verdict.patch_applied = applied.applied
    verdict.apply_method = applied.method
    if not applied.applied:
        verdict.reasons.append("the patch did not apply (" + ", ".join(c.split(" {path}")[0] for c in commands) + ")")
    return applied.applied


def run_script(
    task: Task,
    sandbox: Sandbox,
    ctx: EvalContext,
    script: str,
    *,
    path: str = "/eval.sh",
    command: str | None = None,
    log_name: str = "eval.log",
) -> tuple[str, int | None]:
    """Upload and run an eval script with the eval timeout; return (log, exit code).

    Raises InfraError ``eval_timeout`` or ``oom``; the partial log is saved either way.
    """
    ctx.save(path.rsplit("/", 1)[-1], script)
    sandbox.write_file(path, script.encode("utf-8", errors="surrogateescape"), mode=0o755)
    result = sandbox.exec(
        command or f"/bin/bash {path}",
        timeout=ctx.timeout,
        workdir=task.workdir,
        env=task.eval_env or None,
        output_limit=ctx.output_limit,
    )
    log_path = ctx.save(log_name, result.output)
    if result.timed_out:
        raise InfraError("eval_timeout", f"the eval did not finish within {ctx.timeout:g}s (log: {log_path})")
    if result.oom_killed:
        raise InfraError("oom", f"the eval was killed for exceeding the memory limit (log: {log_path})")
    return result.output, result.exit_code


def patch_and_run(
    task: Task,
    patch: str,
    sandbox: Sandbox,
    ctx: EvalContext,
    script: str,
    *,
    grader: str,
    commands: tuple[str, ...] = APPLY_COMMANDS,
    path: str = "/eval.sh",
    command: str | None = None,
) -> EvalRun:
    """Apply the patch, then run ``script``; stops early (``ran=False``) when the patch does not apply
    or is empty and the settings say not to run empty patches."""
    verdict = start_verdict(patch, grader)
    run = EvalRun(verdict)
    if not apply_model_patch(task, patch, sandbox, ctx, verdict, commands=commands):
        return run
    if not verdict.patch_exists and not ctx.settings.eval.run_empty_patch:
        return run
    run.log, run.exit_code = run_script(task, sandbox, ctx, script, path=path, command=command)
    run.ran = True
    return run
