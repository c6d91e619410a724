"""The evaluation steps every family shares: apply the patch, run a script, keep the log.

Families decide the script, the parser and the grading rule; this module runs them the
same way for all of them: the patch through the fallback chain, the script with a hard
timeout and a capped log saved as an artifact, and faults of the sandbox (timeout, memory,
process or disk limit, a sandbox that died) raised as infrastructure errors, never scored
as model failures.

The grading policy (:mod:`pytest_swe.policy`, ``eval.policy``) runs here too, so it guards
every family alike: the patch is inspected before it is applied, the tree is checked (and
under ``strict`` neutralised) after, and the log and ``.git`` are checked after the run.
A verdict from :func:`start_verdict` cannot become resolved once tampering is recorded.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from pytest_swe import policy
from pytest_swe.errors import InfraError
from pytest_swe.family import EvalContext
from pytest_swe.patching import APPLY_COMMANDS
from pytest_swe.patching import ApplyResult
from pytest_swe.patching import apply_patch
from pytest_swe.patching import patch_bytes
from pytest_swe.sandbox import ExecResult
from pytest_swe.sandbox import Sandbox
from pytest_swe.task import Task
from pytest_swe.verdict import Verdict

APPLY_TIMEOUT = 300.0
GUARD_TIMEOUT = 120.0


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
    """A fresh verdict; it stays unresolved once the policy records tampering on it."""
    return policy.GuardedVerdict(resolved=False, patch_exists=bool(patch.strip()), grader=grader)


def required_tests(task: Task) -> list[str]:
    """Every test id the task's grading reads."""
    tests = [*task.fail_to_pass, *task.pass_to_pass]
    for group in task.extra_required.values():
        tests += group
    tests += list(task.expected_status_map or {})
    return tests


def make_guard(task: Task, ctx: EvalContext) -> policy.PatchGuard:
    """The policy for one evaluation, from ``eval.policy`` and ``eval.policy_options``."""
    name, options = policy.settings_of(ctx.settings.eval)
    protection = policy.Protection.build(
        test_patch=task.test_patch,
        required_tests=required_tests(task),
        hidden_paths=task.hidden_paths,
        workdir=task.workdir,
        protected_patterns=options.get("protected_paths") or (),
        allowed_patterns=options.get("allowed_paths") or (),
    )
    return policy.PatchGuard(
        policy=name,
        protection=protection,
        workdir=task.workdir,
        timeout=min(ctx.timeout, GUARD_TIMEOUT),
        max_patch_bytes=options.get("max_patch_bytes"),
    )


def inspect_model_patch(task: Task, patch: str, ctx: EvalContext, verdict: Verdict) -> policy.PatchGuard:
    """Static inspection only, for families that apply the patch inside their own script."""
    guard = make_guard(task, ctx)
    guard.inspect(patch)
    policy.record_findings(verdict, guard.findings, policy=guard.policy)
    policy.attach(verdict, guard)
    return guard


def apply_model_patch(
    task: Task,
    patch: str,
    sandbox: Sandbox,
    ctx: EvalContext,
    verdict: Verdict,
    *,
    commands: tuple[str, ...] = APPLY_COMMANDS,
) -> bool:
    """Apply the model patch (if any); False (with a reason on the verdict) when it does not apply.

    The policy inspects the patch first, snapshots the tree, and after applying reads back
    what really changed (under ``strict``, protected paths are restored to the base commit).
    """
    if not verdict.patch_exists:
        verdict.reasons.append("the patch is empty")
        return True
    guard = make_guard(task, ctx)
    policy.attach(verdict, guard)
    size = len(patch_bytes(patch))
    if guard.too_large(size):
        verdict.patch_applied = False
        verdict.reasons.append(
            f"the patch is {size / 1e6:.1f} MB, over the {guard.max_patch_bytes / 1e6:g} MB limit"
            " (eval.policy_options.max_patch_bytes); it was not applied"
        )
        return False
    guard.inspect(patch)
    policy.record_findings(verdict, guard.findings, policy=guard.policy)
    guard.before_apply(sandbox)
    applied = apply_patch(
        sandbox, patch, workdir=task.workdir, timeout=min(ctx.timeout, APPLY_TIMEOUT), commands=commands
    )
    ctx.save("apply.log", applied.log)
    verdict.patch_applied = applied.applied
    verdict.apply_method = applied.method
    if not applied.applied:
        verdict.reasons.append(
            "the patch did not apply (" + ", ".join(c.split(" {path}")[0] for c in commands) + ")"
        )
        return False
    guard.after_apply(sandbox)
    policy.record_findings(verdict, guard.findings, policy=guard.policy)
    if guard.restored:
        verdict.extra["restored_before_tests"] = list(guard.restored)
    return True


def limit_counters(sandbox: Sandbox) -> dict[str, Any]:
    """The sandbox's limit counters (memory kills, process-limit hits, disk), when its provider has them."""
    read = getattr(sandbox, "limit_counters", None)
    if read is None:
        return {}
    try:
        return dict(read())
    except Exception:
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
    before: Mapping[str, Any],
    after: Mapping[str, Any],
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

    Raises InfraError ``eval_timeout``, ``oom``, ``pids_limit``, ``disk_full`` or
    ``sandbox_died``; the partial log is saved either way.
    """
    ctx.save(path.rsplit("/", 1)[-1], script)
    sandbox.write_file(path, script.encode("utf-8", errors="surrogateescape"), mode=0o755)
    before = limit_counters(sandbox)
    result = sandbox.exec(
        command or f"/bin/bash {path}",
        timeout=ctx.timeout,
        workdir=task.workdir,
        env=task.eval_env or None,
        output_limit=ctx.output_limit,
    )
    log_path = ctx.save(log_name, result.output)
    after = limit_counters(sandbox)
    fault = classify_fault(result, before, after, sandbox_survived(sandbox, result), ctx.timeout, log_path)
    if fault is not None:
        raise fault
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
    """Apply the patch, then run ``script``; stops early (``ran=False``) when the patch does not apply,
    is empty and the settings say not to run empty patches, or changed ``.git`` (the policy)."""
    verdict = start_verdict(patch, grader)
    run = EvalRun(verdict)
    if not apply_model_patch(task, patch, sandbox, ctx, verdict, commands=commands):
        return run
    if not verdict.patch_exists and not ctx.settings.eval.run_empty_patch:
        return run
    guard = policy.guard_of(verdict)
    if guard is not None and not guard.can_run:
        verdict.reasons.append(f"the tests were not run: {guard.blocked_reason}")
        return run
    run.log, run.exit_code = run_script(task, sandbox, ctx, script, path=path, command=command)
    run.ran = True
    if guard is not None:
        guard.after_run(sandbox, run.log, script, run.exit_code, required_tests(task))
        policy.record_findings(verdict, guard.findings, policy=guard.policy)
    return run
