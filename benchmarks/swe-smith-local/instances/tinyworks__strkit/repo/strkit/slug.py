"""URL-friendly slugs."""

import re


def slugify(text, sep="-"):
    """Lower-case words and numbers of ``text`` joined by ``sep``."""
    return sep.join(re.findall(r"[a-z0-9]+", text.lower()))
