"""Word frequencies of English text."""

from .counting import count_words
from .counting import top_words

__all__ = ["count_words", "top_words"]
