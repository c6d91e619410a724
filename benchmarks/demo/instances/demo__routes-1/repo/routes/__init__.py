"""A small URL router with named routes and path parameters."""

from routes.router import NotFound, Router, normalize

__all__ = ["NotFound", "Router", "normalize"]
__version__ = "2.1.0"
