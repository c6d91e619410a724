"""Read .env files into a dict."""

from envfile.parser import ParseError, load, parse

__all__ = ["ParseError", "load", "parse"]
__version__ = "0.4.0"
