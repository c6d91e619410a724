"""Count hashable items and list the most common ones."""

from tally.core import most_common
from tally.core import tally

__all__ = ["most_common", "tally"]
