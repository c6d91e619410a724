"""Doubly linked list of keys, most recently used at the tail.

Kept from the Python 2 days, when ``dict`` had no order and ``OrderedDict`` had no
``move_to_end``.
"""

from __future__ import annotations

from typing import Any, Iterator


class _Node:
    __slots__ = ("key", "prev", "next")

    def __init__(self, key: Any) -> None:
        self.key = key
        self.prev: _Node | None = None
        self.next: _Node | None = None


class LinkedKeys:
    def __init__(self) -> None:
        self._head: _Node | None = None
        self._tail: _Node | None = None
        self._nodes: dict[Any, _Node] = {}

    def __len__(self) -> int:
        return len(self._nodes)

    def __iter__(self) -> Iterator[Any]:
        node = self._head
        while node is not None:
            yield node.key
            node = node.next

    def _unlink(self, node: _Node) -> None:
        if node.prev is not None:
            node.prev.next = node.next
        else:
            self._head = node.next
        if node.next is not None:
            node.next.prev = node.prev
        else:
            self._tail = node.prev
        node.prev = node.next = None

    def _append(self, node: _Node) -> None:
        node.prev = self._tail
        if self._tail is not None:
            self._tail.next = node
        self._tail = node
        if self._head is None:
            self._head = node

    def touch(self, key: Any) -> None:
        """Mark ``key`` as most recently used, adding it if new."""
        node = self._nodes.get(key)
        if node is None:
            node = self._nodes[key] = _Node(key)
        else:
            self._unlink(node)
        self._append(node)

    def pop_oldest(self) -> Any:
        node = self._head
        if node is None:
            raise KeyError("empty")
        self._unlink(node)
        del self._nodes[node.key]
        return node.key

    def remove(self, key: Any) -> None:
        self._unlink(self._nodes.pop(key))
