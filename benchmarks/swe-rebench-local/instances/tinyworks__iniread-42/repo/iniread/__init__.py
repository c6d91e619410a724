"""Read INI-style configuration text into nested dictionaries."""

from iniread.parse import ParseError, loads

__all__ = ["ParseError", "loads"]
