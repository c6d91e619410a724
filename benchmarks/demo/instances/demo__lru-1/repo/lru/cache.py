"""The cache: a dict for values plus a recency list for eviction order."""

from __future__ import annotations

from typing import Any, Iterator

from lru._linked import LinkedKeys

_MISSING = object()


class LRUCache:
    """At most ``maxsize`` entries; adding one more evicts the least recently used."""

    def __init__(self, maxsize: int = 128) -> None:
        if maxsize < 1:
            raise ValueError("maxsize must be at least 1")
        self.maxsize = maxsize
        self._values: dict[Any, Any] = {}
        self._order = LinkedKeys()

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def __iter__(self) -> Iterator[Any]:
        """Keys from least to most recently used."""
        return iter(list(self._order))

    def get(self, key: Any, default: Any = None) -> Any:
        value = self._values.get(key, _MISSING)
        if value is _MISSING:
            return default
        self._order.touch(key)
        return value

    def put(self, key: Any, value: Any) -> None:
        self._values[key] = value
        self._order.touch(key)
        while len(self._values) > self.maxsize:
            oldest = self._order.pop_oldest()
            del self._values[oldest]

    def pop(self, key: Any, default: Any = _MISSING) -> Any:
        if key in self._values:
            self._order.remove(key)
            return self._values.pop(key)
        if default is _MISSING:
            raise KeyError(key)
        return default
