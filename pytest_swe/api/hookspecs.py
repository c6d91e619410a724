"""pytest-swe's own hooks.

Families, providers and agents are plugins: any pytest plugin (or any module named by a
``pytest_swe`` entry point) that implements these hooks adds its own, with no change here.
pluggy calls the implementations, never these bodies: those that must return something raise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import pytest

if TYPE_CHECKING:
    from pytest_swe.api.agent import AgentFactory
    from pytest_swe.api.agent import AgentResult
    from pytest_swe.api.family import Family
    from pytest_swe.api.sandbox import ProviderFactory
    from pytest_swe.api.task import Task
    from pytest_swe.api.verdict import Verdict


@pytest.hookspec
def pytest_swe_families() -> list[Family]:
    """Return the dataset families this plugin provides."""
    raise NotImplementedError


@pytest.hookspec
def pytest_swe_providers() -> list[ProviderFactory]:
    """Return the sandbox provider factories this plugin provides (each has a ``name``)."""
    raise NotImplementedError


@pytest.hookspec
def pytest_swe_agents() -> list[AgentFactory]:
    """Return the agent factories this plugin provides (each has a ``name``)."""
    raise NotImplementedError


@pytest.hookspec
def pytest_swe_agent_finished(item: pytest.Item, task: Task, result: AgentResult) -> None:
    """Called when an agent returned, before its patch is verified."""


@pytest.hookspec
def pytest_swe_verdict(item: pytest.Item, task: Task, verdict: Verdict) -> None:
    """Called with every verdict, after grading and before the outcome is decided."""


@pytest.hookspec(firstresult=True)
def pytest_swe_reward(item: pytest.Item, task: Task, verdict: Verdict) -> float | None:
    """Return the reward of a verdict (first non-None wins; the default is 1.0 iff resolved)."""


@pytest.hookspec
def pytest_swe_item_properties(item: pytest.Item, properties: dict[str, Any]) -> None:
    """Add to or change the properties recorded for an item, just before they are written."""
