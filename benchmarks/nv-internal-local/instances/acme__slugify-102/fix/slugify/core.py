"""Turning titles into URL slugs."""

import os
import re
import unicodedata

MAX_LENGTH = int(os.environ.get("SLUG_MAX_LENGTH", "50"))


def slugify(title: str) -> str:
    """A lower-case ASCII slug of ``title`` with words joined by single hyphens."""
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).lower()
    slug = re.sub(r"[\s_-]+", "-", text).strip("-")
    return slug[:MAX_LENGTH].rstrip("-")
