"""Counting things by key."""

from .counter import Tally

__all__ = ["Tally"]
