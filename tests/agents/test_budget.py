"""The run's budget holds across processes (xdist workers share it through a locked file)."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from pytest_swe.agentkit.budget import BudgetExhausted
from pytest_swe.agentkit.budget import BudgetSettings
from pytest_swe.agentkit.budget import RunBudget
from pytest_swe.agentkit.budget import parse_limits
from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import InfraError


def _reserve_many(run_dir: str, attempts: int, queue: multiprocessing.Queue) -> None:
    budget = RunBudget(Path(run_dir), BudgetSettings(calls=7))
    granted = 0
    for _ in range(attempts):
        try:
            budget.reserve_call()
            granted += 1
        except BudgetExhausted:
            pass
    queue.put(granted)


def test_call_budget_holds_exactly_across_processes(tmp_path: Path) -> None:
    queue: multiprocessing.Queue = multiprocessing.Queue()
    procs = [multiprocessing.Process(target=_reserve_many, args=(str(tmp_path), 10, queue)) for _ in range(4)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(30)
    assert sum(queue.get(timeout=5) for _ in procs) == 7
    assert RunBudget(tmp_path, BudgetSettings(calls=7)).spent().calls == 7


def test_cost_budget_refuses_once_spent(tmp_path: Path) -> None:
    budget = RunBudget(tmp_path, BudgetSettings(cost=1.0))
    budget.reserve_call()
    budget.charge(0.6)
    budget.check()
    budget.charge(0.6)
    with pytest.raises(BudgetExhausted, match=r"cost budget is spent \(\$1.2000 of \$1.0000"):
        budget.reserve_call()
    assert issubclass(BudgetExhausted, InfraError) and not BudgetExhausted("x").retryable  # an error, masked


def test_no_budget_writes_nothing(tmp_path: Path) -> None:
    budget = RunBudget(tmp_path, BudgetSettings())
    budget.reserve_call()
    budget.charge(5.0, calls=3)
    assert not budget.path.exists()


def test_limits_are_validated() -> None:
    limits, budget = parse_limits({"limits": {"steps": 5, "time": 60}, "budget": {"calls": 10}})
    assert limits.steps == 5 and budget.calls == 10
    with pytest.raises(ConfigError, match=r"agent\.limits\.stepz"):
        parse_limits({"limits": {"stepz": 5}})
