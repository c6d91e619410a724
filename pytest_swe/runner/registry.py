"""Finding plugins, and the families, providers and agents they provide.

Plugins are found one way, for pytest and the ``pytest-swe`` command alike: the modules named
by the ``pytest_swe`` entry-point group. The built-in families, providers and agents are
declared there in pyproject.toml, like any third-party plugin.

A plugin may also declare the names it provides, in the ``pytest_swe.names`` group
(``"family:swe-bench" = "pytest_swe.families.swebench"``): such a module is imported only when
a run asks for one of its names, so a run pays for the family, provider and agent it uses, not
for every one installed. Its names are known (for markers, for "did you mean") without the import.
"""

from __future__ import annotations

import difflib
import functools
import importlib.metadata
import threading
import weakref
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
from typing import TYPE_CHECKING
from typing import Any
from typing import Generic
from typing import TypeVar

import pluggy

from pytest_swe.api import hookspecs
from pytest_swe.api.errors import ConfigError
from pytest_swe.api.family import Family

if TYPE_CHECKING:
    from pytest_swe.api.agent import AgentFactory
    from pytest_swe.api.sandbox import ProviderFactory

ENTRY_POINT_GROUP = "pytest_swe"
NAMES_GROUP = "pytest_swe.names"
"""Entry points ``"KIND:NAME" = "MODULE"``: MODULE (also in :data:`ENTRY_POINT_GROUP`) provides the
family, provider or agent NAME, and is imported when a run first asks for a name of it."""
OWN_DISTRIBUTION = "pytest-swe"
KINDS = {"family": "families", "provider": "providers", "agent": "agents"}
"""A declared kind -> the ``pytest_swe_<kinds>`` hook that returns them."""

T = TypeVar("T")


def _distribution_name(
    entry_point: importlib.metadata.EntryPoint, names: dict[int, str | None]
) -> str | None:
    """The name of the distribution that declares an entry point (None for one read from no
    distribution). Entry points of one distribution share its object: its metadata is read once."""
    dist = getattr(entry_point, "dist", None)
    if dist is None:
        return None
    if id(dist) not in names:
        name = dist.metadata["Name"]
        names[id(dist)] = name if isinstance(name, str) else None
    return names[id(dist)]


def _is_builtin(name: str | None) -> bool:
    return name is not None and name.replace("_", "-").lower() == OWN_DISTRIBUTION


class DeferredPlugin:
    """A plugin module not imported yet, with the names it declares (``{"families": [...]}``)."""

    def __init__(self, entry_point: importlib.metadata.EntryPoint, names: dict[str, list[str]]) -> None:
        self.entry_point = entry_point
        self.names = names
        self._lock = threading.Lock()
        self._results: dict[str, list[Any]] | None = None

    def provided(self, hook: str) -> list[Any]:
        """What the module's ``pytest_swe_<hook>`` returns (the module imported on first use).

        The module is not registered with pytest: it is called for its catalog hooks alone (a
        module that implements any other hook is loaded at start-up, undeclared)."""
        with self._lock:
            if self._results is None:
                try:
                    module = self.entry_point.load()
                except Exception as exc:  # a broken plugin: named, with what it declared
                    declared = ", ".join(f"{kind} {', '.join(names)}" for kind, names in self.names.items())
                    raise ConfigError(
                        f"cannot import plugin {self.entry_point.value!r} (it declares {declared}): "
                        f"{type(exc).__name__}: {exc}"
                    ) from exc
                self._results = {}
                for kind in KINDS.values():
                    function = getattr(module, f"pytest_swe_{kind}", None)
                    self._results[kind] = list(function() or []) if callable(function) else []
            return self._results[hook]


_DEFERRED: weakref.WeakKeyDictionary[pluggy.PluginManager, list[DeferredPlugin]] = weakref.WeakKeyDictionary()


def _declared_names(entry_points: Iterable[importlib.metadata.EntryPoint]) -> dict[str, dict[str, list[str]]]:
    """``pytest_swe.names`` entry points: module -> hook kind -> names (malformed ones ignored: the
    module is then imported at start-up as any other)."""
    declared: dict[str, dict[str, list[str]]] = {}
    for entry_point in entry_points:
        kind, _, name = entry_point.name.partition(":")
        if kind in KINDS and name:
            declared.setdefault(entry_point.value, {}).setdefault(KINDS[kind], []).append(name)
    return declared


def register_plugins(pm: pluggy.PluginManager) -> None:
    """Register the module of every ``pytest_swe`` entry point (skipping names ``-p no:`` blocked);
    a module that declares its names (:data:`NAMES_GROUP`) is kept for later instead.

    The built-ins go first: hook results come latest registration first, so a third-party
    family, provider or agent with a built-in's name replaces it.
    """
    names: dict[int, str | None] = {}
    everything = importlib.metadata.entry_points()
    declared = _declared_names(everything.select(group=NAMES_GROUP))
    entry_points = sorted(
        everything.select(group=ENTRY_POINT_GROUP),
        key=lambda ep: not _is_builtin(_distribution_name(ep, names)),
    )
    deferred: list[DeferredPlugin] = []
    for entry_point in entry_points:
        if pm.is_blocked(entry_point.name) or pm.has_plugin(entry_point.name):
            continue  # blocked, or the same entry point seen again (an egg-info beside the install)
        if entry_point.value in declared:
            if all(d.entry_point.value != entry_point.value for d in deferred):
                deferred.append(DeferredPlugin(entry_point, declared[entry_point.value]))
            continue
        plugin = entry_point.load()
        if not pm.is_registered(plugin):
            pm.register(plugin, entry_point.name)
    _DEFERRED[pm] = deferred


def plugin_manager_for_tools() -> pluggy.PluginManager:
    """The plugins pytest would load, outside pytest (for the ``pytest-swe`` command)."""
    pm = pluggy.PluginManager("pytest")  # the project name of ``pytest.hookimpl`` marks
    pm.add_hookspecs(hookspecs)
    register_plugins(pm)
    return pm


class Catalog(Generic[T]):
    """Named things of one kind; unknown names get an error listing the known ones.

    ``deferred`` names are known before their plugin is imported: asking for one imports it.
    """

    def __init__(
        self,
        kind: str,
        entries: Iterable[T],
        deferred: dict[str, Callable[[], list[Any]]] | None = None,
        check: Callable[[list[Any]], list[T]] | None = None,
    ) -> None:
        self.kind = kind
        self.entries: dict[str, T] = {}
        """The entries loaded so far (those of deferred plugins once asked for)."""
        self._check = check
        self._add(list(entries))
        self._deferred = {name: load for name, load in (deferred or {}).items() if name not in self.entries}

    def _add(self, entries: list[Any]) -> None:
        for entry in self._check(entries) if self._check else entries:
            name = getattr(entry, "name", None)  # a plugin's return value, checked before it is trusted
            if not isinstance(name, str) or not name:
                raise ConfigError(f"a plugin returned a {self.kind} without a name: {entry!r}")
            self.entries.setdefault(name, entry)

    @property
    def names(self) -> list[str]:
        """Every known name, deferred ones included."""
        return [*self.entries, *(name for name in self._deferred if name not in self.entries)]

    def __contains__(self, name: object) -> bool:
        return name in self.entries or name in self._deferred

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def get(self, name: str, *, where: str = "") -> T:
        load = self._deferred.get(name)
        if load is not None and name not in self.entries:
            self._add(load())  # its other names stay deferred: the import is cached in the loader
        self._deferred.pop(name, None)  # only once loaded: a plugin that failed fails again, named
        try:
            return self.entries[name]
        except KeyError:
            known = self.names
            close = difflib.get_close_matches(name, known, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            listed = ", ".join(sorted(known)) or "(none)"
            prefix = f"{where}: " if where else ""
            raise ConfigError(f"{prefix}unknown {self.kind} {name!r} (known: {listed}){hint}") from None


class Registry:
    """Every plugin's families, provider factories and agent factories, by name."""

    def __init__(self, pm: pluggy.PluginManager) -> None:
        hook = pm.hook
        deferred = _DEFERRED.get(pm, [])

        def later(kind: str) -> dict[str, Callable[[], list[Any]]]:
            loaders: dict[str, Callable[[], list[Any]]] = {}
            for plugin in reversed(deferred):  # a later entry point wins a name, as in hook results
                for name in plugin.names.get(kind, []):
                    loaders.setdefault(name, functools.partial(plugin.provided, kind))
            return loaders

        self.families: Catalog[Family] = Catalog(
            "family", _flatten(hook.pytest_swe_families()), later("families"), check=_families
        )
        self.providers: Catalog[ProviderFactory] = Catalog(
            "provider", _flatten(hook.pytest_swe_providers()), later("providers")
        )
        self.agents: Catalog[AgentFactory] = Catalog(
            "agent", _flatten(hook.pytest_swe_agents()), later("agents")
        )


def _families(entries: list[Any]) -> list[Family]:
    """The families, each checked against the :class:`Family` protocol (name the members it lacks)."""
    for entry in entries:
        if not isinstance(entry, Family):
            members = [m for m in _protocol_members(Family) if not hasattr(entry, m)]
            raise ConfigError(
                f"a plugin returned a family that lacks {', '.join(members)}: {entry!r} "
                "(pytest_swe.api.family.BaseFamily gives the defaults)"
            )
    return entries


def _protocol_members(protocol: type) -> list[str]:
    """The attributes and methods a Protocol class declares."""
    members = [
        name
        for name, value in vars(protocol).items()
        if (callable(value) or isinstance(value, property)) and not name.startswith("_")
    ]
    return sorted({*getattr(protocol, "__annotations__", {}), *members})


def _flatten(results: list[list[Any] | None]) -> list[Any]:
    return [entry for result in results if result for entry in result]
