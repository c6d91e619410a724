"""The next item's eval sandbox, started while the current item is graded.

Starting a container is work no item can skip, but it need not wait for the item before it:
while item N runs its eval script, item N+1's eval sandbox starts on a background thread, from
the same spec the item would use. Item N+1 claims it if its spec is still the same (otherwise
it is removed and the item starts its own). Only for agents that need no sandbox of their own
(gold, empty, predictions), so a prestarted sandbox waits seconds, not an agent's run.
Whatever is not claimed is removed when another item claims, and at the end of the run before
the run's sandboxes are reaped.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from pytest_swe.api.sandbox import DeferredClose

if TYPE_CHECKING:
    from pytest_swe.api.sandbox import Sandbox
    from pytest_swe.api.sandbox import SandboxSpec

next_item_key = pytest.StashKey["pytest.Item | None"]()
"""The item pytest runs after this one (set by the plugin's ``pytest_runtest_protocol``)."""


def _same(a: SandboxSpec, b: SandboxSpec) -> bool:
    """Specs equal but for the start timeout (the item's deadline caps it when it opens)."""
    return dataclasses.replace(a, start_timeout=0) == dataclasses.replace(b, start_timeout=0)


def _discard(sandbox: Sandbox) -> None:
    with contextlib.suppress(Exception):  # unclaimed: the run's reap removes whatever this misses
        if isinstance(sandbox, DeferredClose):
            sandbox.close_soon()
        else:
            sandbox.close()


def _discard_when_done(future: concurrent.futures.Future[Sandbox]) -> None:
    def done(finished: concurrent.futures.Future[Sandbox]) -> None:
        if not finished.cancelled() and finished.exception() is None:
            _discard(finished.result())

    future.add_done_callback(done)


class Prestarts:
    """Sandboxes being started ahead, by the node id of the item they are for."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[str, tuple[SandboxSpec, concurrent.futures.Future[Sandbox]]] = {}
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._closed = False

    def offer(self, nodeid: str, spec: SandboxSpec, create: Callable[[SandboxSpec], Sandbox]) -> None:
        """Start ``create(spec)`` for the item ``nodeid`` on a background thread (once per item)."""
        with self._lock:
            if self._closed or nodeid in self._pending:
                return
            if self._pool is None:
                self._pool = concurrent.futures.ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix="pytest-swe-prestart"
                )
            self._pending[nodeid] = (spec, self._pool.submit(create, spec))

    def claim(self, nodeid: str, spec: SandboxSpec) -> Sandbox | None:
        """The sandbox started ahead for ``nodeid`` with this spec, else None; every other one goes."""
        with self._lock:
            mine = self._pending.pop(nodeid, None)
            stale = list(self._pending.values())
            self._pending.clear()
        for _, future in stale:
            _discard_when_done(future)
        if mine is None:
            return None
        offered, future = mine
        if not _same(offered, spec):
            _discard_when_done(future)
            return None
        try:
            return future.result(timeout=spec.start_timeout)
        except Exception:  # the item starts its own sandbox, and reports its fault if it has one
            _discard_when_done(future)
            return None

    def close(self) -> None:
        """Remove every unclaimed sandbox (waiting for those still starting); offer nothing more."""
        with self._lock:
            self._closed = True
            pending = list(self._pending.values())
            self._pending.clear()
            pool, self._pool = self._pool, None
        for _, future in pending:
            with contextlib.suppress(Exception):
                _discard(future.result())
        if pool is not None:
            pool.shutdown(wait=True)


_key = pytest.StashKey[Prestarts]()


def prestarts(config: pytest.Config) -> Prestarts:
    found = config.stash.get(_key, None)
    if found is None:
        found = config.stash[_key] = Prestarts()
    return found


def close(config: pytest.Config) -> None:
    found = config.stash.get(_key, None)
    if found is not None:
        found.close()
