"""What agents read from their :class:`AgentContext` beyond plain attributes."""

from __future__ import annotations

from pytest_swe.api.agent import AgentContext
from pytest_swe.api.errors import InfraError
from pytest_swe.api.sandbox import Sandbox


def required_sandbox(ctx: AgentContext, agent: str) -> Sandbox:
    """The item's sandbox, for an agent that declares ``needs_sandbox``.

    The harness always hands such an agent one; a context without it (an agent run by hand,
    or a harness fault) is an infrastructure error, so the item errors instead of being graded.
    """
    if ctx.sandbox is None:
        raise InfraError("sandbox_error", f"agent {agent!r} needs a sandbox, and its context has none")
    return ctx.sandbox
