"""The agent protocol: a task and (optionally) a live sandbox in, a patch and an account out.

Agents know nothing of grading: they return what they produced and why they stopped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import Protocol
from typing import runtime_checkable

from pydantic import BaseModel
from pydantic import Field

from pytest_swe.api.verdict import Word

if TYPE_CHECKING:
    from pytest_swe.api.sandbox import Sandbox
    from pytest_swe.api.task import Task


class ExitStatus(Word):
    SUBMITTED = "submitted"
    STEP_LIMIT = "step_limit"
    TIME_LIMIT = "time_limit"
    COST_LIMIT = "cost_limit"
    FORMAT_ERROR = "format_error"
    AGENT_ERROR = "agent_error"
    MODEL_ERROR = "model_error"
    """The model endpoint failed: the item is an infrastructure error, never a scored empty patch."""
    REPLAYED = "replayed"
    """The patch came from a file or the dataset, not from running an agent."""


class Usage(BaseModel):
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None


class AgentResult(BaseModel):
    """What an agent produced. ``patch=None`` asks the harness to take ``git diff`` of the sandbox."""

    patch: str | None = None
    exit_status: ExitStatus = ExitStatus.SUBMITTED
    steps: int = 0
    usage: Usage = Field(default_factory=Usage)
    trajectory_path: str | None = None
    message: str = ""
    """Why the agent stopped, in words (errors keep the endpoint's status and body)."""
    model_name: str | None = None
    extra: dict[str, Any] = Field(default_factory=dict)


class CallBudget(Protocol):
    """The run's shared model-call budget (:class:`pytest_swe.agentkit.budget.RunBudget`)."""

    def check(self) -> None:
        """Raise when no further call could be made."""
        ...

    def reserve_call(self) -> None:
        """Count one model call before it is made, or raise."""
        ...

    def charge(self, cost: float | None, *, calls: int = 0) -> None: ...


class ModelBridge(Protocol):
    """A loopback model endpoint made reachable from inside a sandbox
    (:class:`pytest_swe.agentkit.endpoint.EndpointBridge`)."""

    def start_in_sandbox(self, sandbox: Sandbox, *, timeout: float) -> str:
        """Start the in-sandbox end of the bridge; return the base URL the agent should use."""
        ...


@dataclass
class AgentContext:
    """Everything an agent may use for one task."""

    task: Task
    settings: Mapping[str, object]
    """The benchmark's ``agent`` section (name and agent-specific options)."""
    artifacts: Path
    """A directory for the agent's own files (trajectory, stdout, ...)."""
    timeout: float
    command_timeout: float
    sandbox: Sandbox | None = None
    output_limit: int = 4_000_000
    extra: dict[str, Any] = field(default_factory=dict)
    endpoint: ModelBridge | None = None
    """The model endpoint bridge mounted into the sandbox, for agents that asked for one."""
    budget: CallBudget | None = None
    """The run's shared cost/call budget: reserve a call before making it, charge its cost after."""


@runtime_checkable
class Agent(Protocol):
    """An agent. It may also be an :class:`EndpointBridging` agent."""

    @property
    def name(self) -> str: ...

    @property
    def needs_sandbox(self) -> bool: ...

    def run(self, ctx: AgentContext) -> AgentResult:
        """Run on ``ctx.task``. Raising is allowed: the harness still grades the sandbox's diff."""
        ...


@runtime_checkable
class EndpointBridging(Protocol):
    """An agent whose model endpoint is on the host's loopback, out of its sandbox's reach
    (see :mod:`pytest_swe.agentkit.endpoint`)."""

    def endpoint_bridge_url(self) -> str | None:
        """The loopback model URL to bridge into the agent's sandbox (None: no bridge)."""
        ...


class AgentFactory(Protocol):
    """Builds an agent from its settings (the benchmark's ``agent`` section); has the agent's
    ``name``. An agent class whose constructor takes the settings is one."""

    @property
    def name(self) -> str: ...

    def __call__(self, settings: Mapping[str, object]) -> Agent: ...
