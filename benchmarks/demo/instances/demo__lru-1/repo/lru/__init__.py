"""A size-bounded least-recently-used cache."""

from lru.cache import LRUCache

__all__ = ["LRUCache"]
__version__ = "1.4.0"
