"""Conversion of raw environment strings to setting types."""

from __future__ import annotations

from typing import Any


def coerce(raw: str, kind: type) -> Any:
    """Convert ``raw`` (a string from the environment) to ``kind``."""
    if kind is str:
        return raw
    if kind is int:
        return int(raw)
    if kind is float:
        return float(raw)
    if kind is bool:
        return bool(raw)
    raise TypeError(f"unsupported setting type: {kind.__name__}")
