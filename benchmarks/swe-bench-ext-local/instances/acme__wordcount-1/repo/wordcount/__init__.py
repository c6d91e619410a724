"""Word statistics for plain text."""

from .core import count_words
from .core import top_words

__all__ = ["count_words", "top_words"]
