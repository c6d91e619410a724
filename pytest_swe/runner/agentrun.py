"""One agent run: the agent's context, the run itself (a crash still leaves work to grade), and
the patch taken from what it changed."""

from __future__ import annotations

import contextlib
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_swe.agentkit.budget import RunBudget
from pytest_swe.agentkit.budget import parse_limits
from pytest_swe.api.agent import AgentContext
from pytest_swe.api.agent import AgentResult
from pytest_swe.api.agent import ExitStatus
from pytest_swe.api.errors import InfraError
from pytest_swe.api.errors import NotApplicable
from pytest_swe.api.errors import SweError
from pytest_swe.api.patch import encode_patch
from pytest_swe.grading.patching import take_diff

if TYPE_CHECKING:
    from pytest_swe.api.agent import Agent
    from pytest_swe.api.agent import ModelBridge
    from pytest_swe.api.sandbox import Sandbox
    from pytest_swe.api.settings import BenchmarkSettings
    from pytest_swe.api.task import Task
    from pytest_swe.runner.deadline import ItemDeadline
    from pytest_swe.runner.properties import ItemRecord

PATCH_NAME = "patch.diff"


def agent_context(
    task: Task,
    settings: BenchmarkSettings,
    *,
    artifacts: Path,
    sandbox: Sandbox | None,
    endpoint: ModelBridge | None,
    run_dir: Path,
    deadline: ItemDeadline | None = None,
) -> AgentContext:
    """What the agent may use for ``task``; its own files go to ``artifacts``. Its timeouts are
    capped by the time the item's ``deadline`` leaves."""
    cap = deadline.cap if deadline is not None else float
    options = settings.agent.model_dump()
    _, budget_settings = parse_limits(options)
    return AgentContext(
        task=task,
        settings=options,
        artifacts=artifacts,
        timeout=cap(settings.timeouts.agent),
        command_timeout=cap(settings.timeouts.command),
        sandbox=sandbox,
        output_limit=settings.limits.output_bytes,
        endpoint=endpoint,
        budget=RunBudget(run_dir, budget_settings),
    )


def run_agent(agent: Agent, ctx: AgentContext, record: ItemRecord) -> AgentResult:
    """Run the agent; what it leaves running is stopped before its diff is taken.

    Partial work is never thrown away: an agent stopped by a limit, or one that raised, still
    has the diff of what it changed graded (``agent_error`` says it crashed). Only a model
    endpoint failure is an infrastructure error (masked), never a scored empty patch.
    """
    sandbox = ctx.sandbox
    try:
        with record.timed("agent"):
            try:
                result = agent.run(ctx)
            except NotApplicable as exc:
                pytest.skip(str(exc))
            except SweError:
                raise
            except Exception as exc:  # the agent crashed: grade what it left behind
                error_file = ctx.artifacts / "error.txt"
                error_file.write_text(traceback.format_exc())
                result = AgentResult(
                    exit_status=ExitStatus.AGENT_ERROR,
                    message=f"the agent raised {type(exc).__name__}: {exc} (traceback: {error_file})",
                )
    except BaseException:
        # A skip, an infrastructure error, Ctrl-C: stop the agent's processes, keep the cause.
        if sandbox is not None:
            with contextlib.suppress(Exception):
                sandbox.end_processes()
        raise
    if sandbox is not None:
        sandbox.end_processes()  # nothing the agent left running may outlive it or touch the diff
    record.agent_finished(result)
    if result.exit_status == ExitStatus.MODEL_ERROR:
        raise InfraError("model_endpoint", result.message or "the model endpoint failed")
    return result


def take_patch(
    result: AgentResult, ctx: AgentContext, settings: BenchmarkSettings, artifacts: Path, record: ItemRecord
) -> str:
    """The agent's patch (``git diff`` of its sandbox unless it returned one), written to
    ``artifacts/patch.diff``; sets ``result.patch``."""
    if ctx.sandbox is not None and result.patch is None:
        result.patch = take_diff(
            ctx.sandbox, ctx.task.workdir, ctx.task.base_commit, timeout=settings.timeouts.command
        )
    patch = result.patch or ""
    path = artifacts / PATCH_NAME
    path.write_bytes(encode_patch(patch))
    record.patch_taken(patch, path)
    return patch
