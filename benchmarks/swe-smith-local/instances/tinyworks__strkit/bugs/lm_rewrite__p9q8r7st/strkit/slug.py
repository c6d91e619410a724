"""URL-friendly slugs."""

import re


def slugify(text, sep="-"):
    """Lower-case words and numbers of ``text`` joined by ``sep``."""
    words = re.findall(r"[a-z]+", text.lower())
    return sep.join(words)
