"""An item's JUnit properties: every property name lives in this module.

Fixtures and hooks tell an item's :class:`ItemRecord` what happened (the task was read, the
agent finished, the verdict came); the record turns that into named properties, and at
teardown :func:`as_user_properties` orders them for the JUnit file. The ledger, resume and
the crash report of a dead worker read and write them through the names and functions here.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import asdict
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_swe.api.family import timed
from pytest_swe.api.patch import encode_patch
from pytest_swe.api.patch import patch_sha256
from pytest_swe.api.sandbox import CleanupResult

if TYPE_CHECKING:
    from concurrent.futures import Future

    from pytest_swe.api.agent import AgentResult
    from pytest_swe.api.task import Task
    from pytest_swe.api.verdict import Verdict

REWARD = "reward"
"""Present on every pytest-swe testcase: what tells them from other tests in a JUnit file."""
OUTCOME = "outcome"
BENCHMARK = "benchmark"
INSTANCE_ID = "instance_id"
RUN_ID = "run_id"
KEPT_PREFIX = "kept_"
SANDBOX_HOST = "sandbox_host"
"""Where the item's sandboxes ran, for a provider whose sandboxes know it (a pool of engines)."""
CACHED = "cached"
"""``true`` on an item whose verdict and eval log were re-emitted from the verdict cache."""
PENDING_CLEANUP = "pending (confirmed before the run ends)"
"""``cleanup_<role>`` of a sandbox whose removal was still under way when the item finished."""
SUPERSEDED_ATTEMPT = "superseded_attempt"
"""Replaces the properties of a pytest-rerunfailures attempt that was run again."""

RUN_LEVEL = ("benchmark", "family", "dataset", "split", "grader_version", "agent", "provider")
"""Properties that describe the run rather than the item: gathered into testsuite properties."""

PROPERTY_ORDER = (
    "reward",
    "resolved",
    "masked",
    "error_kind",
    "outcome",
    "family",
    "benchmark",
    "instance_id",
    "repo",
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
"""Order in which properties appear in the JUnit file (others follow, sorted)."""

AGENT_MESSAGE_LIMIT = 1000


@dataclass(frozen=True)
class Identity:
    """What an item is: its benchmark's choices and the run (set before its row is read)."""

    family: str
    benchmark: str
    instance_id: str
    dataset: str
    split: str
    agent: str
    provider: str
    grader_version: str
    run_id: str


@dataclass(frozen=True)
class Outcome:
    """How an item ended, as the JUnit file and the ledger state it."""

    reward: float
    resolved: bool
    masked: bool
    error_kind: str
    outcome: str


def attempt_properties(attempt: int, earlier_errors: list[str]) -> dict[str, Any]:
    """An item run more than once: its attempt count and the error kinds of the attempts before."""
    if attempt <= 1:
        return {}
    props: dict[str, Any] = {"attempts": attempt}
    if earlier_errors:
        props["retried_errors"] = "; ".join(earlier_errors)
    return props


def crash_properties(nodeid: str, run_id: str, attempts: int) -> list[tuple[str, str]]:
    """The properties of an item whose worker died running it (an infrastructure error)."""
    parts = nodeid.split("::")
    outcome = Outcome(reward=0.0, resolved=False, masked=True, error_kind="worker_crashed", outcome="error")
    return as_user_properties(
        {
            **asdict(outcome),
            BENCHMARK: parts[-2] if len(parts) >= 3 else "",
            INSTANCE_ID: parts[-1],
            RUN_ID: run_id,
            "attempts": attempts,
        }
    )


def superseded(attempt: int) -> list[tuple[str, object]]:
    """What is left of the properties of a rerun attempt (the last attempt carries the item's)."""
    return [(SUPERSEDED_ATTEMPT, str(attempt))]


def is_item(props: Mapping[str, Any]) -> bool:
    """Whether a testcase's properties are a pytest-swe item's."""
    return REWARD in props


def kept_sandboxes(props: Mapping[str, Any]) -> list[str]:
    """``<instance id>: <enter command>`` of each sandbox an item kept."""
    return [f"{props.get(INSTANCE_ID)}: {v}" for k, v in props.items() if k.startswith(KEPT_PREFIX)]


def item_key(nodeid: str, props: Mapping[str, Any]) -> str:
    """An item's identity across runs: benchmark and instance id (the nodeid moves with the rootdir)."""
    benchmark, instance = props.get(BENCHMARK), props.get(INSTANCE_ID)
    return f"{benchmark}::{instance}" if benchmark and instance else nodeid


def instance_key(benchmark: str, instance_id: str, nodeid: str = "") -> str:
    """:func:`item_key` of an item known by its benchmark and instance id."""
    return item_key(nodeid, {BENCHMARK: benchmark, INSTANCE_ID: instance_id})


def _artifact_property(name: str) -> str:
    return name.replace(".", "_") + "_path"


def verdict_properties(verdict: Verdict) -> dict[str, Any]:
    """The properties a verdict gives its item (counts, resolution, findings)."""
    f2p, p2p = verdict.group("FAIL_TO_PASS"), verdict.group("PASS_TO_PASS")
    props: dict[str, Any] = {
        "f2p_passed": len(f2p.success),
        "f2p_total": f2p.total,
        "p2p_passed": len(p2p.success),
        "p2p_total": p2p.total,
        "patch_applied": "" if verdict.patch_applied is None else verdict.patch_applied,
        "resolution": verdict.resolution,
        "log_valid": verdict.log_valid,
        "test_exit_code": "" if verdict.test_exit_code is None else verdict.test_exit_code,
    }
    if verdict.extra.get("apply_in"):
        props["apply_in"] = verdict.extra["apply_in"]
    if verdict.tamper:
        props["tamper"] = "; ".join(verdict.tamper)
    if verdict.extra.get("neutralized"):
        props["neutralized"] = "; ".join(str(p).replace(";", ",") for p in verdict.extra["neutralized"])
    if verdict.suspicious:
        props["suspicious"] = "; ".join(verdict.suspicious)
    for name, group in verdict.tests_status.items():
        if name not in ("FAIL_TO_PASS", "PASS_TO_PASS") and group.total:
            props[f"{name.lower()}_passed"] = len(group.success)
            props[f"{name.lower()}_total"] = group.total
    return props


@dataclass
class ItemRecord:
    """What an item's fixtures learned, turned into JUnit properties at teardown."""

    properties: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    verdict: Verdict | None = None
    task: Task | None = None
    agent: AgentResult | None = None
    error_kind: str | None = None
    retryable: bool = False
    outcome: str | None = None
    sandboxes: list[str] = field(default_factory=list)

    def timed(self, phase: str) -> AbstractContextManager[None]:
        return timed(self.timings, phase)

    def add_timings(self, timings: Mapping[str, float]) -> None:
        """Phases timed elsewhere (the grading pipeline's ``apply`` and ``script``)."""
        for phase, seconds in timings.items():
            self.timings[phase] = self.timings.get(phase, 0.0) + seconds

    def identify(self, identity: Identity) -> None:
        self.properties.update(asdict(identity))

    def sandbox_opened(self, role: str, enter_command: str) -> None:
        self.sandboxes.append(f"{role}: {enter_command}")

    def sandbox_placed(self, host: str) -> None:
        """A sandbox runs on ``host``: ``sandbox_host`` lists the item's hosts, first one first."""
        hosts = [h for h in str(self.properties.get(SANDBOX_HOST, "")).split(",") if h]
        if host not in hosts:
            self.properties[SANDBOX_HOST] = ",".join([*hosts, host])

    def sandbox_kept(self, role: str, enter_command: str) -> None:
        self.properties[f"{KEPT_PREFIX}{role}_sandbox"] = enter_command

    def sandbox_closed(self, role: str, result: CleanupResult) -> None:
        self.properties[f"cleanup_{role}"] = (
            "ok" if result.removed else f"failed after {result.attempts} attempts: {result.error}"
        )

    def sandbox_closing(self, role: str, removal: Future[CleanupResult]) -> None:
        """A removal still under way; its result is the property if it is in by :meth:`final`."""
        self.properties[f"cleanup_{role}"] = PENDING_CLEANUP
        removal.add_done_callback(lambda done: self._removed(role, done))

    def _removed(self, role: str, removal: Future[CleanupResult]) -> None:
        if self.properties.get(f"cleanup_{role}") != PENDING_CLEANUP:
            return
        try:
            self.sandbox_closed(role, removal.result())
        except Exception as exc:  # the removal's own fault, reported like a failed removal
            self.sandbox_closed(role, CleanupResult(False, 1, str(exc)))

    def agent_finished(self, result: AgentResult) -> None:
        """The agent's account: why it stopped, its steps and model usage, its files."""
        self.agent = result
        self.properties.update(
            agent_exit_status=str(result.exit_status),
            agent_steps=result.steps,
            agent_calls=result.usage.calls,
            agent_prompt_tokens=result.usage.prompt_tokens,
            agent_completion_tokens=result.usage.completion_tokens,
            agent_cost="" if result.usage.cost is None else result.usage.cost,
            trajectory_path=result.trajectory_path or "",
        )
        from pytest_swe.api.agent import ExitStatus

        if result.message and result.exit_status not in (ExitStatus.SUBMITTED, ExitStatus.REPLAYED):
            self.properties["agent_message"] = result.message[:AGENT_MESSAGE_LIMIT]
        if result.model_name:
            self.properties["model"] = result.model_name
        for key, value in result.extra.items():
            if key.endswith("_path") and value:  # e.g. the command agent's stdout and stderr files
                self.properties[f"agent_{key}"] = str(value)

    def patch_taken(self, patch: str, path: Path) -> None:
        self.properties.update(
            patch_exists=bool(patch.strip()),
            patch_sha256=patch_sha256(patch),
            patch_bytes=len(encode_patch(patch)),
            patch_path=str(path),
        )

    def artifacts_saved(self, saved: Mapping[str, str]) -> None:
        """The evaluation's artifacts (eval script, logs), one ``<name>_path`` property each."""
        for name, path in saved.items():
            self.properties[_artifact_property(name)] = path

    def cached(self) -> None:
        """The verdict came from the verdict cache: no sandbox ran for it."""
        self.properties[CACHED] = True

    def graded(self, verdict: Verdict, verdict_path: Path) -> None:
        self.verdict = verdict
        self.properties.update(verdict_properties(verdict))
        self.properties["verdict_path"] = str(verdict_path)

    def task_read(self, task: Task) -> None:
        """The row's task: kept for the reward hook; its repository is a property to group by."""
        self.task = task
        self.properties["repo"] = task.repo or ""

    def default(self, name: str, value: Any) -> None:
        """Set a property the fixtures did not (an item that never read its row has no benchmark)."""
        self.properties.setdefault(name, value)

    def final(self, outcome: Outcome, extra: Mapping[str, Any]) -> dict[str, Any]:
        """Every property of the item once its outcome is known (teardown)."""
        self.outcome = outcome.outcome
        props = {**self.properties, **asdict(outcome)}
        for phase, seconds in self.timings.items():
            props[f"time_{phase}"] = round(seconds, 3)
        props.update(extra)
        return props


record_key = pytest.StashKey[ItemRecord]()


def get_record(item: pytest.Item) -> ItemRecord:
    record = item.stash.get(record_key, None)
    if record is None:
        record = item.stash[record_key] = ItemRecord()
    return record


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return str(value)


def as_user_properties(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    ordered = [k for k in PROPERTY_ORDER if k in props] + sorted(k for k in props if k not in PROPERTY_ORDER)
    return [(k, _fmt(props[k])) for k in ordered]
