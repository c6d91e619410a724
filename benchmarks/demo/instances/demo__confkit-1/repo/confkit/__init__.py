"""Typed application settings read from environment variables."""

from confkit.loader import Setting, load

__all__ = ["Setting", "load"]
__version__ = "1.2.0"
