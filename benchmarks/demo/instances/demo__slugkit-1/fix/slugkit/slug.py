"""Turn free text into a lowercase, separator-joined slug."""

from __future__ import annotations

import re

from slugkit.ascii import to_ascii

_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def slugify(text: str, sep: str = "-", max_length: int | None = None) -> str:
    """Lowercase ``text`` and join its runs of letters and digits with ``sep``.

    Accented letters are folded to ASCII first (``"Crème"`` gives ``"creme"``).
    With ``max_length`` the slug is cut to at most that many characters, never
    ending on a separator.
    """
    slug = _NOT_ALNUM.sub(sep, to_ascii(text).lower()).strip(sep)
    if max_length is not None:
        slug = slug[:max_length].rstrip(sep)
    return slug
