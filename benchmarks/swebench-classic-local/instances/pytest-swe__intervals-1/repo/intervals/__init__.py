"""Closed integer intervals."""

from .core import merge
from .core import total_length

__all__ = ["merge", "total_length"]
