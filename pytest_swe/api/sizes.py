"""Sizes as users write them (``512m``, ``10g``, ``100G``, ``1.5t``, bytes): one reading for every
option that takes one (a provider's disk and memory limits, the image budget)."""

from __future__ import annotations

import re

from pytest_swe.api.errors import ConfigError

__all__ = ["parse_size"]

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([bkmgt]?)i?b?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


def parse_size(value: object, option: str) -> int:
    """``value`` in bytes, binary units (``k`` is 1024) as the container engines count them; a
    ConfigError naming ``option`` for anything else, and for a size that is not positive."""
    match = None if isinstance(value, bool) else _SIZE.match(str(value))
    if match is None:
        raise ConfigError(f"{option}: {value!r} is not a size (for example 512m or 10g)")
    size = int(float(match.group(1)) * _UNITS[match.group(2).lower()])
    if size <= 0:
        raise ConfigError(f"{option}: {value!r} must be positive")
    return size
