"""The cache: an ordered dict whose order is the recency of use."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Iterator, Optional

_MISSING = object()

EvictCallback = Callable[[Any, Any], None]


class LRUCache:
    """At most ``maxsize`` entries; adding one more evicts the least recently used.

    ``on_evict(key, value)`` is called for every entry pushed out by the size bound
    (not for ``pop`` or for overwriting a key).
    """

    def __init__(self, maxsize: int = 128, on_evict: Optional[EvictCallback] = None) -> None:
        if maxsize < 1:
            raise ValueError("maxsize must be at least 1")
        self.maxsize = maxsize
        self.on_evict = on_evict
        self._data: OrderedDict[Any, Any] = OrderedDict()

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[Any]:
        """Keys from least to most recently used."""
        return iter(list(self._data))

    def get(self, key: Any, default: Any = None) -> Any:
        if key not in self._data:
            return default
        self._data.move_to_end(key)
        return self._data[key]

    def put(self, key: Any, value: Any) -> None:
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.maxsize:
            oldest, evicted = self._data.popitem(last=False)
            if self.on_evict is not None:
                self.on_evict(oldest, evicted)

    def pop(self, key: Any, default: Any = _MISSING) -> Any:
        if default is _MISSING:
            return self._data.pop(key)
        return self._data.pop(key, default)
