"""Collection: benchmark files -> a benchmark collector -> one item per dataset row.

Items hold only an instance id and a row locator; the full row is read when the item
runs. A benchmark the command line cannot select (``-k``/``-m``) never loads its dataset,
so ``pytest benchmarks/ -k demo`` does not download anything for other benchmarks.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from collections.abc import Iterable
from collections.abc import Iterator
from pathlib import Path
from pathlib import PurePath
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import DatasetUnavailable
from pytest_swe.api.errors import SweError
from pytest_swe.api.family import marker_name
from pytest_swe.runner import heap
from pytest_swe.runner import options
from pytest_swe.runner.session import get_session

if TYPE_CHECKING:
    from pytest_swe.api.settings import BenchmarkSettings
    from pytest_swe.runner.dataset import RowRef


class SweDatasetWarning(pytest.PytestWarning):
    """A benchmark's dataset could not be loaded; its items were skipped."""


def is_benchmark_file(path: Path, config: pytest.Config) -> bool:
    if path.suffix not in (".yaml", ".yml") or path.name.startswith("_"):
        return False
    if path.resolve() in _explicit_args(config):
        return True
    try:
        rel = PurePath(path.resolve().relative_to(config.rootpath.resolve()))
    except ValueError:
        rel = PurePath(path)
    return any(rel.match(pattern) for pattern in options.get(config, "--swe-benchmark-files"))


def _explicit_args(config: pytest.Config) -> set[Path]:
    paths = set()
    for arg in config.args:
        candidate = Path(config.invocation_params.dir, arg.split("::", 1)[0])
        if candidate.is_file():
            paths.add(candidate.resolve())
    return paths


_SKIP_DIRS = {"node_modules", "__pycache__", "site-packages", "venv", "build", "dist", "swe-runs"}


def benchmark_files(config: pytest.Config) -> Iterator[Path]:
    """Benchmark files under the command line's arguments (for -k reasoning and the header).

    Walks without entering hidden, virtual-environment or dependency directories.
    """
    for arg in config.args or [str(config.invocation_params.dir)]:
        path = Path(config.invocation_params.dir, arg.split("::", 1)[0])
        if path.is_file():
            if is_benchmark_file(path, config):
                yield path
            continue
        for directory, subdirs, files in os.walk(path):
            subdirs[:] = [d for d in subdirs if not d.startswith((".", "_")) and d not in _SKIP_DIRS]
            for name in files:
                candidate = Path(directory, name)
                if candidate.suffix in (".yaml", ".yml") and is_benchmark_file(candidate, config):
                    yield candidate


# --- selection before loading ------------------------------------------------------------------


def _compile(expr: str) -> Any:
    try:
        # pytest's private -k/-m expression parser: evaluating it against benchmark-level names
        # tells which benchmarks no selection can reach, before their datasets load.
        from _pytest.mark.expression import Expression

        return Expression.compile(expr)
    except Exception:  # private API: any failure only means no early skip; pytest reports a bad -k itself
        return None


class _Matcher:
    """Names known at benchmark level; other names resolve to ``unknown_value``."""

    def __init__(
        self, known: Iterable[str], others: Iterable[str], unknown_value: bool, *, exact: bool
    ) -> None:
        self.known = [n.lower() for n in known]
        self.others = [n.lower() for n in others]
        self.unknown_value = unknown_value
        self.exact = exact

    def __call__(self, name: str, /, **kwargs: Any) -> bool:
        needle = name.lower()
        if self.exact:
            return needle in self.known
        if any(needle in known for known in self.known):
            return True
        if any(needle in other for other in self.others):
            return False  # names another benchmark: a benchmark selector, not an instance id
        return self.unknown_value


def could_select(collector: pytest.Collector, markers: Iterable[str]) -> bool:
    """False only when -k/-m cannot select any item of this benchmark, whatever its instance ids."""
    config = collector.config
    markers = list(markers)
    mexpr = config.getoption("markexpr", "")
    if mexpr:
        compiled = _compile(mexpr)
        if compiled is not None and not compiled.evaluate(_Matcher(markers, (), False, exact=True)):
            return False
    kexpr = config.getoption("keyword", "")
    if not kexpr:
        return True
    compiled = _compile(kexpr)
    if compiled is None:
        return True
    session = get_session(config)
    if session.benchmark_names is None:
        from pytest_swe.runner.config import peek_name

        session.benchmark_names = sorted({peek_name(p) for p in benchmark_files(config)})
    known = [node.name for node in collector.listchain() if not isinstance(node, pytest.Session)] + markers
    others = [n for n in session.benchmark_names if n != collector.name]
    return any(compiled.evaluate(_Matcher(known, others, value, exact=False)) for value in (False, True))


def shard_of(item: pytest.Item, total: int) -> int:
    """1-based shard of an item, stable across machines (by benchmark and instance id)."""
    key = f"{item.benchmark}::{item.instance_id}" if isinstance(item, SweItem) else item.nodeid
    return int(hashlib.sha256(key.encode()).hexdigest(), 16) % total + 1


def split_shard(
    items: list[pytest.Item], index: int, total: int
) -> tuple[list[pytest.Item], list[pytest.Item]]:
    """(kept, deselected) for ``--swe-shard index/total``: benchmark items of other shards go."""
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        if isinstance(item, (SweItem, UnavailableItem)) and shard_of(item, total) != index:
            drop.append(item)
        else:
            keep.append(item)
    return keep, drop


# --- collectors and items ----------------------------------------------------------------------


class BenchmarkFile(pytest.File):
    """A benchmark YAML file; yields one :class:`Benchmark` named by the benchmark."""

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        session = get_session(self.config)
        try:
            settings = session.settings_for(self.path)
        except ConfigError as exc:
            raise self.CollectError(str(exc)) from None
        yield Benchmark.from_parent(self, name=settings.name, settings=settings)


class Benchmark(pytest.Collector):
    """All rows of one benchmark; ``-k <benchmark name>`` selects them."""

    def __init__(self, *, settings: BenchmarkSettings, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.settings = settings

    def _markers(self, family_name: str) -> list[str]:
        names = [marker_name(family_name), marker_name(self.settings.provider.name), *self.settings.markers]
        return list(dict.fromkeys(names))

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        session = get_session(self.config)
        settings = self.settings
        registry = session.registry
        try:
            family = registry.families.get(settings.family, where=f"{settings.file}: family")
            registry.providers.get(settings.provider.name, where=f"{settings.file}: provider")
            registry.agents.get(settings.agent.name, where=f"{settings.file}: agent")
        except ConfigError as exc:
            raise self.CollectError(str(exc)) from None
        markers = self._markers(family.name)
        for marker in markers:
            register_marker(self.config, marker, f"pytest-swe benchmark marker ({settings.name})")
            self.add_marker(marker)
        if not could_select(self, markers):
            return []
        source = Path(settings.dataset.source).expanduser()
        if settings.dataset_is_local and not settings.dataset.optional and not source.exists():
            raise self.CollectError(
                f"{settings.file}: dataset.source {settings.dataset.source}: no such file (a local dataset path "
                "must exist; set dataset.optional: true for a dataset that may be absent on this machine)"
            )
        try:
            index = session.index_for(settings, family)
        except (DatasetUnavailable, SweError) as exc:
            if session.strict_datasets:
                raise self.CollectError(f"{settings.file}: dataset unavailable: {exc}") from None
            message = f"benchmark {settings.name!r}: dataset unavailable, its items are skipped: {exc}"
            warnings.warn_explicit(
                SweDatasetWarning(message), category=None, filename=str(self.path), lineno=1
            )
            return [
                UnavailableItem.from_parent(
                    self, name=f"{settings.name}[dataset-unavailable]", reason=message
                )
            ]
        # Each item is a dozen objects that live until the session ends: made with the cyclic
        # collector paused, then frozen (see runner.heap).
        with heap.paused():
            items = list(self._items(index.refs(), settings))
        heap.freeze(self.config)
        return items

    def _items(self, refs: Iterable[RowRef], settings: BenchmarkSettings) -> Iterator[pytest.Item]:
        wanted = set(settings.dataset.instances) if settings.dataset.instances is not None else None
        seen: dict[str, int] = {}
        fixtureinfo = None
        for ref in refs:
            if wanted is not None and ref.instance_id not in wanted:
                continue
            name = ref.instance_id or f"row-{ref.position + 1}"
            problem = (
                None
                if ref.instance_id
                else "the row has no instance id (field 'instance_id' missing or empty)"
            )
            if name in seen:
                problem = f"duplicate instance id {name!r} (first at row {seen[name] + 1})"
                name = f"{name}[row-{ref.position + 1}]"
            else:
                seen[name] = ref.position
            item = SweItem.from_parent(
                self,
                name=name,
                callobj=swe_instance,
                ref=ref,
                settings=settings,
                problem=problem,
                fixtureinfo=fixtureinfo,
            )
            fixtureinfo = item._fixtureinfo  # pytest's private fixture closure: every row shares the first's
            yield item


def swe_instance(swe_verdict: Any, swe_task: Any, request: pytest.FixtureRequest) -> None:
    """One dataset row: resolved if the agent's patch passes the row's tests in a fresh sandbox.

    ``--pdb`` opens in this frame: the task, the verdict and the eval sandbox (None when the
    verdict came from the cache and no sandbox ran) are in scope by their fixture names."""
    from pytest_swe.runner.debugging import eval_sandbox_key
    from pytest_swe.runner.outcome import assert_resolved
    from pytest_swe.runner.properties import get_record

    swe_eval_sandbox = request.node.stash.get(eval_sandbox_key, None)  # noqa: F841 (for --pdb)
    assert_resolved(swe_verdict, get_record(request.node).agent)


class SweItem(pytest.Function):
    """One dataset row as a pytest item; its fixtures provision, run the agent and grade."""

    def __init__(
        self, *, ref: RowRef, settings: BenchmarkSettings, problem: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.ref = ref
        self.settings = settings
        self.problem = problem

    @property
    def benchmark(self) -> str:
        return self.settings.name

    @property
    def instance_id(self) -> str:
        return self.ref.instance_id or self.name

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, 0, f"{self.settings.name}::{self.name}"

    def _repr_failure_py(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        # pytest's private formatter of a failure: a pytest-swe fault reads as one line, not a traceback.
        if isinstance(excinfo.value, SweError) and not self.config.getoption("fulltrace", False):
            return f"{type(excinfo.value).__name__}: {excinfo.value}"
        return super()._repr_failure_py(excinfo, style=style)


class UnavailableItem(pytest.Item):
    """Stands for a benchmark whose dataset cannot be loaded now; always skipped with why."""

    def __init__(self, *, reason: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.reason = reason

    def runtest(self) -> None:
        pytest.skip(self.reason)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, 0, self.name


def register_benchmark_markers(config: pytest.Config) -> None:
    """Register the ``markers`` of every benchmark file the command line would collect, so
    ``pytest --markers`` lists them without collecting (collection registers them too)."""
    from pytest_swe.runner.config import peek_markers
    from pytest_swe.runner.config import peek_name

    for path in benchmark_files(config):
        for marker in peek_markers(path):
            register_marker(config, marker, f"pytest-swe benchmark marker ({peek_name(path)})")


def register_marker(config: pytest.Config, name: str, description: str) -> None:
    registered = {line.split(":", 1)[0].split("(", 1)[0].strip() for line in config.getini("markers")}
    if name not in registered:
        config.addinivalue_line("markers", f"{name}: {description}")
