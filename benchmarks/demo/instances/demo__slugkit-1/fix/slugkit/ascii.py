"""Fold text to ASCII so accented titles keep their letters in slugs."""

from __future__ import annotations

import unicodedata

# Letters that Unicode decomposition does not split into a base letter plus accents.
_SPECIAL = str.maketrans(
    {
        "ß": "ss",
        "ẞ": "SS",
        "æ": "ae",
        "Æ": "AE",
        "œ": "oe",
        "Œ": "OE",
        "ø": "o",
        "Ø": "O",
        "ł": "l",
        "Ł": "L",
        "đ": "d",
        "Đ": "D",
        "þ": "th",
        "Þ": "TH",
    }
)


def to_ascii(text: str) -> str:
    """Replace accented and special Latin letters by their closest ASCII spelling.

    Characters with no ASCII counterpart are dropped.
    """
    decomposed = unicodedata.normalize("NFKD", text.translate(_SPECIAL))
    return decomposed.encode("ascii", "ignore").decode("ascii")
