"""Helpers that turn the compact per-repo tables into ``{version: RepoSpec}`` maps.

Versions that share one spec are written once, as a space-separated list, so the tables stay
readable and a difference between two versions is visible at a glance.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from pytest_swe.families.swebench.specs.model import RepoSpec


def _freeze(value: Any) -> Any:
    """Lists become tuples and mappings read-only views, so a shared spec cannot be mutated."""
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(item) for item in value)
    if isinstance(value, Mapping):
        return MappingProxyType({key: _freeze(item) for key, item in value.items()})
    return value


def repo(
    language: str,
    by_version: Mapping[str, Mapping[str, Any]],
    *,
    shared: Mapping[str, Any] | None = None,
    dialect: str = "swebench",
    origin: str = "",
) -> dict[str, RepoSpec]:
    """Build one repository's table.

    ``by_version`` maps a space-separated list of versions to the fields that differ between
    groups; ``shared`` holds the fields every version of the repository has in common. A
    version listed twice is a mistake in the table and raises ``ValueError``.
    """
    table: dict[str, RepoSpec] = {}
    for versions, fields in by_version.items():
        merged = {**(shared or {}), **fields}
        spec = RepoSpec(
            language=language,
            dialect=dialect,
            origin=origin,
            **{key: _freeze(value) for key, value in merged.items()},
        )
        for version in versions.split():
            if version in table:
                raise ValueError(f"version {version!r} is listed twice")
            table[version] = spec
    return table
