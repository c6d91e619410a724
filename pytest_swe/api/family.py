"""The family protocol: how one dataset family's rows are read, provisioned and graded."""

from __future__ import annotations

import time
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from contextlib import AbstractContextManager
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Protocol
from typing import runtime_checkable

from pytest_swe.api.errors import NotApplicable
from pytest_swe.api.patch import encode_patch

if TYPE_CHECKING:
    from pytest_swe.api.sandbox import Sandbox
    from pytest_swe.api.settings import BenchmarkSettings
    from pytest_swe.api.task import Task
    from pytest_swe.api.verdict import Verdict


def marker_name(name: str) -> str:
    """A family or provider name as a marker: ``swe-bench`` -> ``swe_bench``."""
    return "".join(c if c.isalnum() else "_" for c in name).strip("_").lower() or "swe"


class GradingState(Protocol):
    """The grading pipeline's state for one evaluation (``pytest_swe.grading.Integrity``), held
    here so a family passes it from stage to stage without the contracts knowing the pipeline."""

    @property
    def policy(self) -> str:
        """``strict`` or ``official`` (``eval.policy``)."""
        ...

    @property
    def strict(self) -> bool: ...


class RecordedTree(Protocol):
    """The eval sandbox's work tree as recorded before the patch was applied
    (``pytest_swe.grading.tree.WorkTree``)."""

    def git_after_run(self) -> list[str]:
        """What the eval run did to ``.git``, one problem per entry (empty: nothing)."""
        ...


@contextmanager
def timed(timings: dict[str, float], phase: str) -> Iterator[None]:
    """Add the seconds spent in the block to ``timings[phase]`` (a phase timed in parts adds up)."""
    start = time.monotonic()
    try:
        yield
    finally:
        timings[phase] = timings.get(phase, 0.0) + time.monotonic() - start


@dataclass
class EvalContext:
    """What a family needs to run one evaluation besides the task, patch and sandbox."""

    settings: BenchmarkSettings
    artifacts: Path
    timeout: float
    output_limit: int
    saved: dict[str, str] = field(default_factory=dict)
    integrity: GradingState | None = None
    """The grading pipeline's state for this evaluation, created by its first stage."""
    tree: RecordedTree | None = None
    """The eval sandbox's work tree as the pipeline recorded it, once the patch is applied."""
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds per grading phase (``apply``: the patch and its guards, ``script``: the eval
    script's own run), for the item's ``time_<phase>`` properties."""
    on_script: Callable[[], None] | None = None
    """Called once, right before the eval script runs (:meth:`script_starts`): work that may run
    beside the script, such as starting the next item's sandbox, without slowing what comes first."""

    def timed(self, phase: str) -> AbstractContextManager[None]:
        """Add the time spent in the block to ``timings[phase]``."""
        return timed(self.timings, phase)

    def script_starts(self) -> None:
        """The eval script is about to run: call :attr:`on_script`, the first time only."""
        started, self.on_script = self.on_script, None
        if started is not None:
            started()

    def save(self, name: str, data: str | bytes) -> str:
        """Write an artifact (eval script, log, ...) and remember its path under ``name``."""
        self.artifacts.mkdir(parents=True, exist_ok=True)
        path = self.artifacts / name
        if isinstance(data, str):
            path.write_bytes(encode_patch(data))
        else:
            path.write_bytes(data)
        self.saved[name] = str(path)
        return str(path)


class BaseFamily:
    """What most families share: rows keyed by ``instance_id``, any provider, nothing to hide.

    Subclasses set ``name`` and ``grader_version`` and write ``normalize`` and ``evaluate``.
    """

    name: str
    grader_version: str = ""
    providers: frozenset[str] | None = None
    needs: frozenset[str] = frozenset()
    id_fields: tuple[str, ...] = ("instance_id",)

    def row_id(self, row: Mapping[str, object]) -> str | None:
        value = row.get(self.id_fields[0])
        return value if isinstance(value, str) else None

    def prepare_agent_sandbox(self, task: Task, sandbox: Sandbox, settings: BenchmarkSettings) -> None:
        return None

    def regrade(self, task: Task, log: str, verdict: Verdict, settings: BenchmarkSettings) -> Verdict:
        """Grade a saved eval log again (``pytest-swe regrade``); see :class:`Regrading`."""
        raise NotApplicable(
            f"family {self.name!r} cannot regrade from a saved log: its verdict is not decided by "
            "parsing one eval log"
        )


@runtime_checkable
class Regrading(Protocol):
    """A family whose verdict is a function of one eval log, so a saved run can be graded again
    with today's parsers and rules and no sandbox (``pytest-swe regrade``)."""

    def regrade(self, task: Task, log: str, verdict: Verdict, settings: BenchmarkSettings) -> Verdict:
        """The verdict of ``log`` (the log as graded) for ``task``; ``verdict`` is the live run's,
        whose integrity findings the result keeps. Raise
        :class:`~pytest_swe.api.errors.NotApplicable` when this family cannot."""
        ...


@runtime_checkable
class Family(Protocol):
    # Read-only members: a family may narrow them (``id_fields = ("a", "b")``) and nobody sets them.
    @property
    def name(self) -> str: ...

    @property
    def grader_version(self) -> str: ...

    @property
    def providers(self) -> frozenset[str] | None:
        """Providers this family can run on (None: any)."""
        ...

    @property
    def needs(self) -> frozenset[str]:
        """Provider capabilities this family needs; on a provider lacking one its items are skipped."""
        ...

    @property
    def id_fields(self) -> tuple[str, ...]:
        """Row fields that hold (or, with :meth:`row_id`, give) the instance id."""
        ...

    def row_id(self, row: Mapping[str, object]) -> str | None:
        """The instance id of a raw row, for families whose rows have no ``instance_id``."""
        ...

    def normalize(self, row: Mapping[str, object], settings: BenchmarkSettings) -> Task:
        """Turn a raw row into a task; raise :class:`~pytest_swe.api.errors.RowError` naming the field."""
        ...

    def prepare_agent_sandbox(self, task: Task, sandbox: Sandbox, settings: BenchmarkSettings) -> None:
        """Make the agent's sandbox fit for the agent (e.g. hide the evaluation's tests)."""
        ...

    def evaluate(self, task: Task, patch: str, sandbox: Sandbox, ctx: EvalContext) -> Verdict:
        """Grade ``patch`` in a fresh ``sandbox``; raise InfraError for infrastructure faults."""
        ...
