"""URL slugs from titles."""

from .core import slugify

__all__ = ["slugify"]
