"""Stock levels per SKU."""

from .stock import Stock

__all__ = ["Stock"]
