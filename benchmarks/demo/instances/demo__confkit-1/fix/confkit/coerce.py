"""Conversion of raw environment strings to setting types."""

from __future__ import annotations

from typing import Any

TRUE_STRINGS = frozenset({"1", "true", "yes", "on"})
FALSE_STRINGS = frozenset({"0", "false", "no", "off", ""})


def parse_bool(raw: str) -> bool:
    """Read the usual spellings of a boolean; anything else is an error, not ``True``."""
    text = raw.strip().lower()
    if text in TRUE_STRINGS:
        return True
    if text in FALSE_STRINGS:
        return False
    raise ValueError(f"invalid boolean {raw!r} (use one of: true/false, yes/no, on/off, 1/0)")


def coerce(raw: str, kind: type) -> Any:
    """Convert ``raw`` (a string from the environment) to ``kind``."""
    if kind is str:
        return raw
    if kind is int:
        return int(raw)
    if kind is float:
        return float(raw)
    if kind is bool:
        return parse_bool(raw)
    raise TypeError(f"unsupported setting type: {kind.__name__}")
