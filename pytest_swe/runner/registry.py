"""Families, providers and agents gathered from every plugin through pytest-swe's hooks."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any
from typing import Generic
from typing import TypeVar

import pytest

from pytest_swe.api.errors import ConfigError

T = TypeVar("T")


class Catalog(Generic[T]):
    """Named things of one kind; unknown names get an error listing the known ones."""

    def __init__(self, kind: str, entries: Iterable[T]) -> None:
        self.kind = kind
        self.entries: dict[str, T] = {}
        for entry in entries:
            name = getattr(entry, "name", None)
            if not isinstance(name, str) or not name:
                raise ConfigError(f"a plugin returned a {kind} without a name: {entry!r}")
            self.entries.setdefault(name, entry)

    def __contains__(self, name: object) -> bool:
        return name in self.entries

    def __iter__(self):
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
    def __init__(self, config: pytest.Config) -> None:
        hook = config.pluginmanager.hook
        self.families: Catalog[Any] = Catalog("family", _flatten(hook.pytest_swe_families()))
        self.providers: Catalog[Any] = Catalog("provider", _flatten(hook.pytest_swe_providers()))
        self.agents: Catalog[Any] = Catalog("agent", _flatten(hook.pytest_swe_agents()))


def _flatten(results: list[list[Any] | None]) -> list[Any]:
    return [entry for result in results if result for entry in result]
