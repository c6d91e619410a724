"""From a verdict (or a fault) to a pytest outcome and the properties recorded for it.

passed = resolved (reward 1.0); failed = ran cleanly, not resolved (0.0); error =
infrastructure fault (0.0, masked); skipped = not applicable (0.0, masked).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field
from typing import Any

import pytest

from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import InfraError
from pytest_swe.api.errors import RowError
from pytest_swe.api.verdict import Verdict

record_key = pytest.StashKey["ItemRecord"]()

MAX_LISTED_TESTS = 20

# Order in which properties appear in the JUnit file (others follow, sorted).
PROPERTY_ORDER = (
    "reward",
    "resolved",
    "masked",
    "error_kind",
    "outcome",
    "family",
    "benchmark",
    "instance_id",
    "agent",
    "provider",
    "dataset",
    "split",
    "f2p_passed",
    "f2p_total",
    "p2p_passed",
    "p2p_total",
    "patch_exists",
    "patch_applied",
    "patch_sha256",
    "patch_bytes",
    "agent_exit_status",
    "agent_steps",
)


@dataclass
class ItemRecord:
    """What an item's fixtures learned, turned into JUnit properties at teardown."""

    properties: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    verdict: Verdict | None = None
    task: Any = None
    error_kind: str | None = None
    retryable: bool = False
    outcome: str | None = None
    sandboxes: list[str] = field(default_factory=list)

    @contextmanager
    def timed(self, phase: str) -> Iterator[None]:
        start = time.monotonic()
        try:
            yield
        finally:
            self.timings[phase] = round(self.timings.get(phase, 0.0) + time.monotonic() - start, 3)


def get_record(item: pytest.Item) -> ItemRecord:
    record = item.stash.get(record_key, None)
    if record is None:
        record = item.stash[record_key] = ItemRecord()
    return record


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


def failure_message(verdict: Verdict) -> str:
    """Which required tests failed, whether the patch applied, and where the logs are."""
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
    if verdict.tamper:
        lines.append("  tamper: " + "; ".join(verdict.tamper))
    if verdict.suspicious:
        lines.append("  suspicious: " + "; ".join(verdict.suspicious))
    for name, path in verdict.artifacts.items():
        lines.append(f"  {name}: {path}")
    return "\n".join(lines)


def assert_resolved(verdict: Verdict) -> None:
    """Fail the item (JUnit ``<failure>``) unless the verdict is resolved."""
    __tracebackhide__ = True
    if not verdict.resolved:
        pytest.fail(failure_message(verdict), pytrace=False)


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return str(value)


def final_properties(
    item: pytest.Item, reports: dict[str, pytest.TestReport], reward: float | None
) -> dict[str, Any]:
    """The item's properties once its outcome is known (called at teardown)."""
    record = get_record(item)
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
    masked = outcome in ("error", "skipped")
    props = dict(record.properties)
    props.update(
        reward=float(
            reward if reward is not None and outcome in ("passed", "failed") else (1.0 if resolved else 0.0)
        ),
        resolved=resolved,
        masked=masked,
        error_kind=record.error_kind if outcome == "error" else "",
        outcome=outcome,
    )
    if outcome == "error" and not record.error_kind:
        props["error_kind"] = "harness_error"
    for phase, seconds in record.timings.items():
        props[f"time_{phase}"] = seconds
    record.outcome = outcome
    return props


def as_user_properties(props: dict[str, Any]) -> list[tuple[str, str]]:
    ordered = [k for k in PROPERTY_ORDER if k in props] + sorted(k for k in props if k not in PROPERTY_ORDER)
    return [(k, _fmt(props[k])) for k in ordered]


__all__ = ["ItemRecord", "assert_resolved", "error_kind", "failure_message", "get_record"]
