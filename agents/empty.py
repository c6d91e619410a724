"""The empty agent: submits no change (validates that every task fails without a fix)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from pytest_swe.api.agent import AgentContext
from pytest_swe.api.agent import AgentResult
from pytest_swe.api.agent import ExitStatus


class EmptyAgent:
    name = "empty"
    needs_sandbox = False

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.settings = settings

    def run(self, ctx: AgentContext) -> AgentResult:
        return AgentResult(patch="", exit_status=ExitStatus.REPLAYED, model_name="empty")


@pytest.hookimpl
def pytest_swe_agents() -> list[Any]:
    return [EmptyAgent]
