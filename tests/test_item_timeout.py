"""One deadline per item (``timeouts.item``): a straggler is stopped, not waited for."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from test_reliability import SLOW_EVAL
from test_reliability import slow_demo
from test_reliability import wait_for

from pytest_swe.api.errors import ConfigError
from pytest_swe.api.sandbox import CleanupResult
from pytest_swe.runner.config import load_benchmark
from pytest_swe.runner.config import parse_dotlist
from pytest_swe.runner.deadline import ItemDeadline
from pytest_swe.runner.deadline import ItemTimeout
from pytest_swe.runner.outcome import error_kind

from conftest import DEMO_IDS
from conftest import SweProject
from conftest import labelled_containers


class BlockingSandbox:
    """A sandbox whose command blocks until the sandbox is closed (as a removed container's does)."""

    def __init__(self) -> None:
        self.closed = threading.Event()
        self.ended = threading.Event()

    def exec(self, command: str, *, timeout: float) -> int:
        self.closed.wait(timeout)
        return 137

    def end_processes(self) -> None:
        self.ended.set()
        self.closed.set()

    def close(self) -> CleanupResult:
        self.closed.set()
        return CleanupResult(True)


def test_no_deadline_caps_nothing_and_never_times_out() -> None:
    deadline = ItemDeadline(None)
    assert deadline.left() is None and deadline.cap(1800) == 1800
    with deadline.during("eval"):
        pass
    deadline.finish()


def test_the_watchdog_closes_the_sandbox_so_the_blocked_phase_ends_as_item_timeout() -> None:
    deadline = ItemDeadline(0.5)
    sandbox = BlockingSandbox()
    deadline.watch(sandbox)  # type: ignore[arg-type]
    assert deadline.cap(1800) <= 0.5
    started = time.monotonic()
    with pytest.raises(ItemTimeout) as excinfo, deadline.during("eval"):
        sandbox.exec("sleep 300", timeout=300)
    assert time.monotonic() - started < 5
    assert sandbox.closed.is_set()
    assert error_kind(excinfo.value) == "item_timeout" and not excinfo.value.retryable
    assert "0.5 s (timeouts.item)" in str(excinfo.value) and "during eval" in str(excinfo.value)
    deadline.finish()


def test_a_kept_sandbox_only_has_its_processes_ended() -> None:
    deadline = ItemDeadline(0.2, keep=True)
    sandbox = BlockingSandbox()
    deadline.watch(sandbox)  # type: ignore[arg-type]
    assert sandbox.ended.wait(5)


def test_a_fault_past_the_deadline_is_the_deadline_and_one_before_it_is_itself() -> None:
    deadline = ItemDeadline(60)
    with pytest.raises(ValueError), deadline.during("agent"):
        raise ValueError("before the deadline")
    late = ItemDeadline(0.01)
    time.sleep(0.05)
    with pytest.raises(ItemTimeout, match="during create"), late.during("create"):
        pass
    sandbox = BlockingSandbox()
    late.watch(sandbox)  # type: ignore[arg-type]
    assert sandbox.closed.is_set(), "a sandbox started past the deadline is removed at once"


def test_timeouts_item_is_unset_by_default_and_set_through_swe_set(tmp_path: Path) -> None:
    bench = tmp_path / "b.yaml"
    bench.write_text("family: swe-bench\ndataset: data.jsonl\n")
    assert load_benchmark(bench).timeouts.item is None
    assert load_benchmark(bench, overrides=parse_dotlist(["timeouts.item=90"])).timeouts.item == 90
    with pytest.raises(ConfigError, match="item"):
        load_benchmark(bench, overrides=parse_dotlist(["timeouts.item=0"]))


@pytest.mark.docker
def test_an_item_past_its_deadline_is_an_item_timeout_error_and_the_run_ends_promptly(
    swe_project: SweProject, demo_images: list[str], docker_engine: Any, tmp_path: Path
) -> None:
    """The eval sleeps 300 s; the item's 15 s deadline stops it, and its sandboxes are gone."""
    assert "sleep 300" in SLOW_EVAL
    slow_demo(swe_project, tmp_path, "straggler", slow=1, total=2)
    started = time.monotonic()
    run = swe_project.run("benchmarks/", "--swe-set", "timeouts.item=15")
    wall = time.monotonic() - started
    fast, slow = (run.by_id[instance_id] for instance_id in DEMO_IDS[:2])
    assert fast.outcome == "passed", fast.message[:2000]
    assert slow.outcome == "error" and slow.properties["error_kind"] == "item_timeout", slow.message[:2000]
    assert "timeouts.item" in slow.message and "during eval" in slow.message
    assert wall < 90, wall  # well below the eval's 300 s sleep
    assert float(slow.properties["time_eval"]) < 16
    assert wait_for(lambda: not labelled_containers(docker_engine, benchmark="straggler"), 10)


@pytest.mark.docker
def test_an_agent_past_the_items_deadline_is_stopped_and_nothing_is_left(
    swe_project: SweProject, demo_images: list[str], docker_engine: Any, tmp_path: Path
) -> None:
    """The agent's command sleeps 300 s; the item's 10 s deadline ends it during the agent phase."""
    slow_demo(swe_project, tmp_path, "slowagent", slow=0, total=1)
    started = time.monotonic()
    run = swe_project.run(
        "benchmarks/",
        "--swe-agent",
        "command",
        "--swe-set",
        "agent.command=sleep 300",
        "--swe-set",
        "timeouts.item=10",
    )
    wall = time.monotonic() - started
    (case,) = run.cases
    assert case.outcome == "error" and case.properties["error_kind"] == "item_timeout", case.message[:2000]
    assert "during agent" in case.message
    assert wall < 60, wall
    assert wait_for(lambda: not labelled_containers(docker_engine, benchmark="slowagent"), 10)
