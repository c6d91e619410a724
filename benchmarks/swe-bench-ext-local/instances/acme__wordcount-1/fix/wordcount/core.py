"""Counting the words of a text."""

from collections import Counter


def words(text: str) -> list[str]:
    """The words of ``text``, lower-cased; any run of whitespace separates two words."""
    return [word.lower() for word in text.split()]


def count_words(text: str) -> int:
    """How many words ``text`` holds."""
    return len(words(text))


def top_words(text: str, n: int = 3) -> list[tuple[str, int]]:
    """The ``n`` most common words of ``text`` with their counts, most common first."""
    return Counter(words(text)).most_common(n)
