"""Per-item agent limits and the run's shared cost/call budget.

xdist workers are separate processes, so a budget held in memory would be per worker
(as mini-swe-agent's ``MSWEA_GLOBAL_*`` limits are). The run's budget is a small JSON file
in the run directory, changed only under a :class:`filelock.FileLock`: every worker
reserves a model call before making it, so the call limit holds exactly across workers;
cost is known only after a call, so the cost limit can be passed by the calls in flight
when it is reached, never by more.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field
from pydantic import ValidationError

from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import InfraError

if TYPE_CHECKING:
    from filelock import FileLock

BUDGET_FILE = "budget.json"


class AgentLimits(BaseModel):
    """One item's limits (``agent.limits.*``); 0 or None means no limit. A step is one model call."""

    model_config = ConfigDict(extra="forbid")
    steps: int | None = Field(None, ge=0)
    cost: float | None = Field(None, ge=0)
    time: float | None = Field(None, ge=0)
    """Seconds of wall time for the agent; also capped by ``timeouts.agent``."""


class BudgetSettings(BaseModel):
    """The whole run's budget (``agent.budget.*``), shared by every xdist worker."""

    model_config = ConfigDict(extra="forbid")
    cost: float | None = Field(None, ge=0)
    calls: int | None = Field(None, ge=0)

    @property
    def limited(self) -> bool:
        return bool(self.cost) or bool(self.calls)


def parse_limits(settings: Mapping[str, Any]) -> tuple[AgentLimits, BudgetSettings]:
    parsed: list[Any] = []
    for section, model in (("limits", AgentLimits), ("budget", BudgetSettings)):
        try:
            parsed.append(model.model_validate(settings.get(section) or {}))
        except ValidationError as exc:
            problems = "; ".join(
                f"agent.{section}.{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()
            )
            raise ConfigError(f"invalid agent {section}: {problems}") from None
    return parsed[0], parsed[1]


class BudgetExhausted(InfraError):
    """The run's shared budget is spent: the item is an error (masked), never scored as a failure.

    An error rather than a skip: ``--swe-resume`` treats skipped items as finished but re-runs
    errors, so raising the budget and resuming runs exactly the items the budget refused. It is
    not retried within the run (``retryable``), where it would only be refused again.
    """

    retryable = False

    def __init__(self, message: str) -> None:
        super().__init__("budget_exhausted", message)


@dataclass
class Spent:
    calls: int = 0
    cost: float = 0.0


class RunBudget:
    """The run's budget file; every method holds the lock for a read-modify-write."""

    def __init__(self, run_dir: Path, settings: BudgetSettings) -> None:
        run_dir.mkdir(parents=True, exist_ok=True)
        self.path = run_dir / BUDGET_FILE
        self.settings = settings

    @functools.cached_property
    def _lock(self) -> FileLock:
        """Made on first use: most runs have no model budget, and an item with no limit never locks."""
        from filelock import FileLock

        return FileLock(str(self.path) + ".lock")

    def _read(self) -> Spent:
        try:
            data = json.loads(self.path.read_text())
            return Spent(int(data.get("calls", 0)), float(data.get("cost", 0.0)))
        except (OSError, ValueError):
            return Spent()

    def _write(self, spent: Spent) -> None:
        tmp = self.path.with_name(self.path.name + f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"calls": spent.calls, "cost": round(spent.cost, 8)}))
        os.replace(tmp, self.path)

    def spent(self) -> Spent:
        with self._lock:
            return self._read()

    def _exhausted(self, spent: Spent, extra_calls: int = 0) -> str | None:
        calls, cost = self.settings.calls, self.settings.cost
        if calls and spent.calls + extra_calls > calls:
            return f"the run's call budget is spent ({spent.calls} of {calls} calls, agent.budget.calls)"
        if cost and spent.cost >= cost:
            return f"the run's cost budget is spent (${spent.cost:.4f} of ${cost:.4f}, agent.budget.cost)"
        return None

    def check(self) -> None:
        """Raise :class:`BudgetExhausted` when no further call could be made."""
        if not self.settings.limited:
            return
        with self._lock:
            reason = self._exhausted(self._read(), extra_calls=1)
        if reason:
            raise BudgetExhausted(reason)

    def reserve_call(self) -> None:
        """Count one model call before it is made, or raise :class:`BudgetExhausted`."""
        if not self.settings.limited:
            return
        with self._lock:
            spent = self._read()
            reason = self._exhausted(spent, extra_calls=1)
            if reason:
                raise BudgetExhausted(reason)
            spent.calls += 1
            self._write(spent)

    def charge(self, cost: float | None, *, calls: int = 0) -> None:
        """Add a finished call's cost (and calls not reserved beforehand)."""
        if not self.settings.limited or (not cost and not calls):
            return
        with self._lock:
            spent = self._read()
            spent.cost += cost or 0.0
            spent.calls += calls
            self._write(spent)


def time_limit(limits: AgentLimits, agent_timeout: float) -> float:
    """The agent's wall-time limit: ``agent.limits.time`` capped by ``timeouts.agent``."""
    return min(limits.time, agent_timeout) if limits.time else agent_timeout
