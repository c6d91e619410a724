"""Typed application settings read from environment variables."""

from confkit.loader import ConfigError, Setting, load

__all__ = ["ConfigError", "Setting", "load"]
__version__ = "1.2.0"
