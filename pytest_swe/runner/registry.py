"""Finding plugins, and the families, providers and agents they provide.

Plugins are found one way, for pytest and the ``pytest-swe`` command alike: the modules named
by the ``pytest_swe`` entry-point group. The built-in families, providers and agents are
declared there in pyproject.toml, like any third-party plugin.
"""

from __future__ import annotations

import difflib
import importlib.metadata
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
OWN_DISTRIBUTION = "pytest-swe"

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


def register_plugins(pm: pluggy.PluginManager) -> None:
    """Register the module of every ``pytest_swe`` entry point (skipping names ``-p no:`` blocked).

    The built-ins go first: hook results come latest registration first, so a third-party
    family, provider or agent with a built-in's name replaces it.
    """
    names: dict[int, str | None] = {}
    entry_points = sorted(
        importlib.metadata.entry_points(group=ENTRY_POINT_GROUP),
        key=lambda ep: not _is_builtin(_distribution_name(ep, names)),
    )
    for entry_point in entry_points:
        if pm.is_blocked(entry_point.name) or pm.has_plugin(entry_point.name):
            continue  # blocked, or the same entry point seen again (an egg-info beside the install)
        plugin = entry_point.load()
        if not pm.is_registered(plugin):
            pm.register(plugin, entry_point.name)


def plugin_manager_for_tools() -> pluggy.PluginManager:
    """The plugins pytest would load, outside pytest (for the ``pytest-swe`` command)."""
    pm = pluggy.PluginManager("pytest")  # the project name of ``pytest.hookimpl`` marks
    pm.add_hookspecs(hookspecs)
    register_plugins(pm)
    return pm


class Catalog(Generic[T]):
    """Named things of one kind; unknown names get an error listing the known ones."""

    def __init__(self, kind: str, entries: Iterable[T]) -> None:
        self.kind = kind
        self.entries: dict[str, T] = {}
        for entry in entries:
            name = getattr(entry, "name", None)  # a plugin's return value, checked before it is trusted
            if not isinstance(name, str) or not name:
                raise ConfigError(f"a plugin returned a {kind} without a name: {entry!r}")
            self.entries.setdefault(name, entry)

    def __contains__(self, name: object) -> bool:
        return name in self.entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.entries)

    def get(self, name: str, *, where: str = "") -> T:
        try:
            return self.entries[name]
        except KeyError:
            close = difflib.get_close_matches(name, list(self.entries), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            known = ", ".join(sorted(self.entries)) or "(none)"
            prefix = f"{where}: " if where else ""
            raise ConfigError(f"{prefix}unknown {self.kind} {name!r} (known: {known}){hint}") from None


class Registry:
    """Every plugin's families, provider factories and agent factories, by name."""

    def __init__(self, pm: pluggy.PluginManager) -> None:
        hook = pm.hook
        self.families: Catalog[Family] = Catalog("family", _families(_flatten(hook.pytest_swe_families())))
        self.providers: Catalog[ProviderFactory] = Catalog("provider", _flatten(hook.pytest_swe_providers()))
        self.agents: Catalog[AgentFactory] = Catalog("agent", _flatten(hook.pytest_swe_agents()))


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
