"""Turning titles into URL slugs."""

import os
import re
import unicodedata

MAX_LENGTH = int(os.environ.get("SLUG_MAX_LENGTH", "50"))


def slugify(title: str) -> str:
    """A lower-case ASCII slug of ``title`` with words joined by hyphens."""
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    slug = re.sub(r"\s+", "-", text)
    return slug[:MAX_LENGTH]
