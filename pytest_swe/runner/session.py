"""Per-process state of a pytest-swe run: settings, dataset indexes, providers, run identity."""

from __future__ import annotations

import contextlib
import re
import threading
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_swe.api.errors import ConfigError
from pytest_swe.runner import options

if TYPE_CHECKING:
    from pytest_swe.api.family import Family
    from pytest_swe.api.sandbox import Provider
    from pytest_swe.api.sandbox import RunInfo
    from pytest_swe.api.settings import BenchmarkSettings
    from pytest_swe.runner.cache import VerdictCache
    from pytest_swe.runner.dataset import DatasetIndex
    from pytest_swe.runner.registry import Registry

session_key = pytest.StashKey["SweSession"]()


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]


def safe_name(value: str) -> str:
    """A string usable as one path component."""
    return re.sub(r"[^A-Za-z0-9_.=+-]+", "_", value).strip("._") or "_"


class SweSession:
    def __init__(self, config: pytest.Config, run: RunInfo, run_dir: Path) -> None:
        self.config = config
        self.run = run
        self.run_dir = run_dir
        self.is_worker = hasattr(config, "workerinput")
        self._registry: Registry | None = None
        self._settings: dict[Path, BenchmarkSettings | ConfigError] = {}
        self._indexes: dict[tuple[Any, ...], DatasetIndex] = {}
        self._providers: dict[tuple[str, str], Provider] = {}
        self._lock = threading.Lock()
        self._registry_lock = threading.RLock()
        self.overrides = self._overrides()
        self.cli_layer = self._cli_layer()
        extra = options.get(config, "--swe-config")
        self.extra_config = Path(config.invocation_params.dir, extra) if extra else None
        self.keep = bool(options.get(config, "--swe-keep"))
        self.strict_datasets = bool(options.get(config, "--swe-strict-datasets"))
        self.benchmark_names: list[str] | None = None
        self.had_items = False
        self.resumed: dict[str, dict[str, Any]] = {}
        self.retries = 0
        self._verdict_cache: VerdictCache | None = None
        self._verdict_cache_made = False

    @property
    def verdict_cache(self) -> VerdictCache | None:
        """The run's verdict cache (None when it is off), made on first use."""
        if not self._verdict_cache_made:
            from pytest_swe.runner.cache import VerdictCache
            from pytest_swe.runner.cache import store_for

            store = store_for(self.config)
            self._verdict_cache = VerdictCache(store) if store is not None else None
            self._verdict_cache_made = True
        return self._verdict_cache

    # -- configuration ----------------------------------------------------------------------

    def _overrides(self) -> dict[str, Any]:
        dotlist = options.get(self.config, "--swe-set")
        if not dotlist:
            return {}
        from pytest_swe.runner.config import parse_dotlist

        try:
            return parse_dotlist(dotlist)
        except ConfigError as exc:
            raise pytest.UsageError(str(exc)) from None

    def _cli_layer(self) -> dict[str, Any]:
        layer: dict[str, Any] = {}
        agent = options.get(self.config, "--swe-agent")
        predictions = options.get(self.config, "--swe-predictions")
        provider = options.get(self.config, "--swe-provider")
        if agent:
            layer["agent"] = {"name": agent}
        if predictions:
            path = Path(self.config.invocation_params.dir, predictions).resolve()
            layer.setdefault("agent", {})["predictions"] = str(path)
            if not agent:
                layer["agent"]["name"] = "predictions"
        duplicates = options.get(self.config, "--swe-predictions-duplicates")
        if duplicates:
            from pytest_swe.agents.predictions import DUPLICATE_POLICIES

            if duplicates not in DUPLICATE_POLICIES:
                raise pytest.UsageError(
                    f"--swe-predictions-duplicates (ini: swe_predictions_duplicates) {duplicates!r}: "
                    f"expected one of {', '.join(DUPLICATE_POLICIES)}"
                )
            layer.setdefault("agent", {})["predictions_duplicates"] = duplicates
        if provider:
            layer["provider"] = {"name": provider}
        return layer

    @property
    def registry(self) -> Registry:
        """Every plugin's families, providers and agents; the first use registers the plugins."""
        if self._registry is None:
            self.load_plugins()
        assert self._registry is not None
        return self._registry

    def load_plugins(self) -> None:
        """Register the ``pytest_swe`` entry points' plugins and the family and provider markers.

        Done when a session first needs a family, provider or agent, not when pytest starts: the
        plugin loads in every pytest run of an environment it is installed in."""
        with self._registry_lock:
            if self._registry is not None:
                return
            from pytest_swe.api.family import marker_name
            from pytest_swe.runner.collect import register_marker
            from pytest_swe.runner.registry import Registry
            from pytest_swe.runner.registry import register_plugins

            register_plugins(self.config.pluginmanager)
            registry = Registry(self.config.pluginmanager)
            for family in registry.families:
                register_marker(self.config, marker_name(family), f"pytest-swe family {family}")
            for provider in registry.providers:
                register_marker(self.config, marker_name(provider), f"pytest-swe provider {provider}")
            self._registry = registry

    def settings_for(self, path: Path) -> BenchmarkSettings:
        """The resolved settings of a benchmark file (cached; errors are cached too)."""
        from pytest_swe.runner.config import load_benchmark

        path = Path(path).resolve()
        with self._lock:
            if path not in self._settings:
                try:
                    self._settings[path] = load_benchmark(
                        path,
                        extra_config=self.extra_config,
                        overrides=self.overrides,
                        cli_layer=self.cli_layer,
                    )
                except ConfigError as exc:
                    self._settings[path] = exc
            value = self._settings[path]
        if isinstance(value, ConfigError):
            raise value
        return value

    def loaded_settings(self) -> list[BenchmarkSettings]:
        """The benchmark settings read so far (on the xdist controller: those its preflight read)."""
        with self._lock:
            return [value for value in self._settings.values() if not isinstance(value, ConfigError)]

    # -- datasets ---------------------------------------------------------------------------

    def index_for(self, settings: BenchmarkSettings, family: Family) -> DatasetIndex:
        from pytest_swe.runner.dataset import fetch_hf
        from pytest_swe.runner.dataset import open_local

        ds = settings.dataset
        key = (ds.source, ds.split, ds.name, ds.revision, tuple(family.id_fields), family.name)
        with self._lock:
            if key not in self._indexes:
                path = (
                    Path(ds.source)
                    if settings.dataset_is_local
                    else fetch_hf(ds.source, ds.split, name=ds.name, revision=ds.revision)
                )
                custom = family.row_id if family.id_fields[0] != "instance_id" else None
                self._indexes[key] = open_local(path, id_fields=family.id_fields, id_of=custom)
            return self._indexes[key]

    # -- providers --------------------------------------------------------------------------

    def provider_for(self, settings: BenchmarkSettings) -> Provider:
        name = settings.provider.name
        opts = settings.provider.model_dump()
        key = (name, repr(sorted(opts.items())))
        with self._lock:
            if key not in self._providers:
                factory = self.registry.providers.get(name, where=settings.file)
                provider = self._providers[key] = factory(opts, self.run)
                # Orphans of dead runs (owner gone, or past their ttl) go when a run first needs a sandbox.
                threading.Thread(target=_reap_orphans, args=(provider,), daemon=True).start()
            return self._providers[key]

    def providers(self) -> list[Provider]:
        return list(self._providers.values())

    # -- artifacts --------------------------------------------------------------------------

    def artifacts_dir(self, benchmark: str, instance_id: str) -> Path:
        path = self.run_dir / safe_name(benchmark) / safe_name(instance_id)
        path.mkdir(parents=True, exist_ok=True)
        return path

    def close(self) -> None:
        for provider in self._providers.values():
            with contextlib.suppress(Exception):
                provider.close()
        self._providers.clear()


def _reap_orphans(provider: Provider) -> None:
    with contextlib.suppress(Exception):
        provider.reap(orphans=True)


def get_session(config: pytest.Config) -> SweSession:
    return config.stash[session_key]
