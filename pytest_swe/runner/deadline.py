"""One deadline per item (``timeouts.item``): create + agent + eval + teardown, so one straggler
cannot hold a run open.

Each phase's own timeout is capped by the time left, and a watchdog thread stops the item's
sandboxes at the deadline, so a command blocked in one returns; the phase then ends the item
as a masked ``item_timeout`` error naming the deadline and the phase it was in.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from pytest_swe.api.errors import InfraError

if TYPE_CHECKING:
    from pytest_swe.api.sandbox import Sandbox

#: Shortest timeout a capped phase gets: a command given no time at all would fail for another reason.
MIN_TIMEOUT = 0.5


class ItemTimeout(InfraError):
    """The item's deadline passed; another attempt would be held up the same way."""

    retryable = False

    def __init__(self, seconds: float, phase: str) -> None:
        super().__init__(
            "item_timeout",
            f"the item's deadline of {seconds:g} s (timeouts.item) passed during {phase}; "
            "its sandboxes were stopped",
        )
        self.phase = phase


class ItemDeadline:
    """The deadline of one item; ``seconds`` None is no deadline (every method is then a no-op)."""

    def __init__(self, seconds: float | None, *, keep: bool = False) -> None:
        self.seconds = seconds
        self.keep = keep
        self.expired = False
        self._at = None if seconds is None else time.monotonic() + seconds
        self._sandboxes: list[Sandbox] = []
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        if seconds is not None:
            self._timer = threading.Timer(seconds, self._expire)
            self._timer.daemon = True
            self._timer.name = "pytest-swe-item-deadline"
            self._timer.start()

    def left(self) -> float | None:
        """Seconds until the deadline (None: no deadline)."""
        return None if self._at is None else self._at - time.monotonic()

    def passed(self) -> bool:
        left = self.left()
        return self.expired or (left is not None and left <= 0)

    def cap(self, timeout: float) -> float:
        """``timeout``, or the time left if that is shorter."""
        left = self.left()
        return timeout if left is None else max(MIN_TIMEOUT, min(timeout, left))

    @contextlib.contextmanager
    def during(self, phase: str) -> Iterator[None]:
        """Run one phase; past the deadline, whatever it raised or returned, the item times out."""
        if self.passed():
            raise ItemTimeout(self.seconds or 0, phase)
        try:
            yield
        except Exception as exc:  # whatever the cut-short phase raised, past the deadline it is the deadline
            if self.passed():
                raise ItemTimeout(self.seconds or 0, phase) from exc
            raise
        if self.passed():
            raise ItemTimeout(self.seconds or 0, phase)

    def watch(self, sandbox: Sandbox) -> None:
        """Stop ``sandbox`` at the deadline (at once, if it has passed)."""
        with self._lock:
            if not self.passed():
                self._sandboxes.append(sandbox)
                return
        self._stop(sandbox)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            sandboxes, self._sandboxes = self._sandboxes, []
        for sandbox in sandboxes:
            self._stop(sandbox)

    def _stop(self, sandbox: Sandbox) -> None:
        """Remove the sandbox (its blocked command returns); one kept with ``--swe-keep`` only has
        its processes ended, for the user to enter."""
        with contextlib.suppress(Exception):
            if self.keep:
                sandbox.end_processes()
            else:
                sandbox.close()

    def finish(self) -> None:
        """The item is over (its sandboxes closed): the watchdog has nothing left to stop."""
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._sandboxes.clear()
