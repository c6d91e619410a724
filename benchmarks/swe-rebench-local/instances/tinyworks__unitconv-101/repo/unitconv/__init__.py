"""Convert lengths and masses between units."""

from unitconv.convert import UnknownUnit, convert

__all__ = ["UnknownUnit", "convert"]
