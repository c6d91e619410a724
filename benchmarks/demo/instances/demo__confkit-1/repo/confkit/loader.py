"""Load a list of settings from an environment mapping."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from confkit.coerce import coerce


@dataclass(frozen=True)
class Setting:
    """One named, typed setting with a default."""

    name: str
    kind: type = str
    default: Any = None

    def env_key(self, prefix: str) -> str:
        return prefix + self.name.upper()


def load(
    settings: Iterable[Setting], environ: Mapping[str, str] | None = None, prefix: str = "APP_"
) -> dict[str, Any]:
    """Return ``{name: value}`` for every setting, reading ``<prefix><NAME>`` variables."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for setting in settings:
        key = setting.env_key(prefix)
        if key in env:
            values[setting.name] = coerce(env[key], setting.kind)
        else:
            values[setting.name] = setting.default
    return values
