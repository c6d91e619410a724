"""The gold agent: replays the dataset's own fix (validates that every gold patch resolves)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from pytest_swe.api.agent import AgentContext
from pytest_swe.api.agent import AgentResult
from pytest_swe.api.agent import ExitStatus


class GoldAgent:
    name = "gold"
    needs_sandbox = False

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.settings = settings

    def run(self, ctx: AgentContext) -> AgentResult:
        return AgentResult(patch=ctx.task.gold_patch, exit_status=ExitStatus.REPLAYED, model_name="gold")


@pytest.hookimpl
def pytest_swe_agents() -> list[Any]:
    return [GoldAgent]
