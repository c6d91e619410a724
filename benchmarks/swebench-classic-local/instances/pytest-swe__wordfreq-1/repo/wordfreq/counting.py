"""Counting words and ranking them."""

from __future__ import annotations

from collections import Counter

from .tokenize import words


def count_words(text: str) -> Counter[str]:
    """How often each word occurs in ``text`` (case-insensitive)."""
    return Counter(words(text))


def top_words(text: str, n: int) -> list[tuple[str, int]]:
    """The ``n`` most frequent words with their counts; ties in alphabetical order."""
    counts = count_words(text)
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:n]
