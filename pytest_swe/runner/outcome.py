"""From a verdict (or a fault) to a pytest outcome and the properties recorded for it.

passed = resolved (reward 1.0); failed = ran cleanly, not resolved (0.0); error =
infrastructure fault (0.0, masked); skipped = not applicable (0.0, masked).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import InfraError
from pytest_swe.api.errors import RowError
from pytest_swe.runner.properties import ItemRecord
from pytest_swe.runner.properties import Outcome
from pytest_swe.runner.properties import as_user_properties
from pytest_swe.runner.properties import get_record

if TYPE_CHECKING:
    from pytest_swe.api.agent import AgentResult
    from pytest_swe.api.verdict import Verdict

MAX_LISTED_TESTS = 20


def error_kind(exc: BaseException) -> str:
    if isinstance(exc, InfraError):
        return exc.kind
    if isinstance(exc, RowError):
        return "bad_row"
    if isinstance(exc, ConfigError):
        return getattr(exc, "kind", "config")
    return "harness_error"


def _test_line(test: str, verdict: Verdict) -> str:
    status = verdict.test_results.get(test)
    return f"    {test} ({status or 'not found in the log'})"


def agent_line(result: AgentResult) -> str:
    """How the agent ended: exit status, steps, cost and its trajectory (where to look first)."""
    cost = "n/a" if result.usage.cost is None else f"${result.usage.cost:.4f}"
    line = f"  agent: exit {result.exit_status}, {result.steps} step(s), cost {cost}"
    if result.trajectory_path:
        line += f", trajectory {result.trajectory_path}"
    return line


def failure_message(verdict: Verdict, agent: AgentResult | None = None) -> str:
    """Which required tests failed, whether the patch applied, how the agent ended, where the logs are."""
    counts = [
        f"{name} {len(g.success)}/{g.total} passed" for name, g in verdict.tests_status.items() if g.total
    ]
    lines = ["unresolved: " + "; ".join([*verdict.reasons, ", ".join(counts)] if counts else verdict.reasons)]
    for name, group in verdict.tests_status.items():
        if group.failure:
            lines.append(f"  {name} failing ({len(group.failure)} of {group.total}):")
            lines += [_test_line(t, verdict) for t in group.failure[:MAX_LISTED_TESTS]]
            if len(group.failure) > MAX_LISTED_TESTS:
                lines.append(f"    ... and {len(group.failure) - MAX_LISTED_TESTS} more")
    if verdict.patch_applied is None:
        applied = "no patch to apply" if not verdict.patch_exists else "not attempted"
    else:
        applied = f"yes ({verdict.apply_method})" if verdict.patch_applied else "no"
    lines.append(f"  patch applied: {applied}")
    if agent is not None:
        lines.append(agent_line(agent))
    if verdict.tamper:
        lines.append("  tamper: " + "; ".join(verdict.tamper))
    if verdict.suspicious:
        lines.append("  suspicious: " + "; ".join(verdict.suspicious))
    for name, path in verdict.artifacts.items():
        lines.append(f"  {name}: {path}")
    return "\n".join(lines)


def assert_resolved(verdict: Verdict, agent: AgentResult | None = None) -> None:
    """Fail the item (JUnit ``<failure>``) unless the verdict is resolved."""
    __tracebackhide__ = True
    if not verdict.resolved:
        pytest.fail(failure_message(verdict, agent), pytrace=False)


def decide_outcome(
    record: ItemRecord, reports: Mapping[str, pytest.TestReport], reward: float | None
) -> Outcome:
    """The item's outcome from its phase reports; ``reward`` (from the hook) counts only for a graded item."""
    setup, call = reports.get("setup"), reports.get("call")
    if (setup is not None and setup.skipped) or (call is not None and call.skipped):
        outcome = "skipped"
    elif setup is not None and setup.failed:
        outcome = "error"
    elif call is not None and call.passed:
        outcome = "passed"
    elif call is not None and call.failed:
        outcome = "failed"
    else:
        outcome = "error"
    resolved = outcome == "passed"
    kind = ""
    if outcome == "error":
        kind = record.error_kind or "harness_error"
    graded = reward is not None and outcome in ("passed", "failed")
    return Outcome(
        reward=float(reward if graded and reward is not None else (1.0 if resolved else 0.0)),
        resolved=resolved,
        masked=outcome in ("error", "skipped"),
        error_kind=kind,
        outcome=outcome,
    )


def note_setup_fault(record: ItemRecord, call: pytest.CallInfo[None]) -> None:
    """A setup that raised (not a skip): name the fault, and whether another attempt could help."""
    excinfo = call.excinfo
    if call.when != "setup" or excinfo is None or excinfo.errisinstance(pytest.skip.Exception):
        return
    record.error_kind = error_kind(excinfo.value)
    record.retryable = isinstance(excinfo.value, InfraError) and excinfo.value.retryable


def item_properties(
    item: pytest.Item, reports: Mapping[str, pytest.TestReport], extra: Mapping[str, Any]
) -> None:
    """At teardown: reward the verdict (``pytest_swe_reward``), decide the outcome, let plugins
    change the properties (``pytest_swe_item_properties``) and put them on the item for JUnit."""
    record = get_record(item)
    reward = None
    if record.verdict is not None and record.task is not None:
        reward = item.config.hook.pytest_swe_reward(item=item, task=record.task, verdict=record.verdict)
    props = record.final(decide_outcome(record, reports, reward), extra)
    item.config.hook.pytest_swe_item_properties(item=item, properties=props)
    item.user_properties[:] = [p for p in item.user_properties if p[0] not in props]
    item.user_properties.extend(as_user_properties(props))


__all__ = ["ItemRecord", "assert_resolved", "error_kind", "failure_message", "get_record"]
