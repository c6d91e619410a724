"""Splitting text into words."""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)*")


def words(text: str) -> list[str]:
    """The lower-cased words of ``text``, in order.

    A word is a run of letters; an apostrophe between letters belongs to the word
    (``don't``, ``it's``), while quotes around a word do not.
    """
    return _WORD.findall(text.lower())
