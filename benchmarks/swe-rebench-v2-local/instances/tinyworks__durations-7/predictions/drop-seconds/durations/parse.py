"""``1h30m``, ``2m5s``, ``90s``: numbers with unit letters, largest unit first."""

import re

UNITS = {"h": 3600, "m": 60, "s": 1}
_PART = re.compile(r"(\d+)([hms])")


class InvalidDuration(ValueError):
    """Text that is not a sequence of <number><unit> parts."""


def parse(text):
    """The duration in seconds."""
    text = text.strip().lower()
    parts = _PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise InvalidDuration(text)
    return sum(int(number) * UNITS[unit] for number, unit in parts if unit != "s")
