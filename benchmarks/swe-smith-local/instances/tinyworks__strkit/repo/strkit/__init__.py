"""Small string helpers."""

from strkit.slug import slugify
from strkit.truncate import truncate

__all__ = ["slugify", "truncate"]
