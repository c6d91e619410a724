"""Parse human-written durations into seconds."""

from durations.parse import InvalidDuration, parse

__all__ = ["InvalidDuration", "parse"]
