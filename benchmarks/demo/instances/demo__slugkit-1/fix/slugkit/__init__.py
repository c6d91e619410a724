"""URL slugs from titles."""

from slugkit.ascii import to_ascii
from slugkit.slug import slugify

__all__ = ["slugify", "to_ascii"]
__version__ = "0.5.0"
