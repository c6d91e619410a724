"""Ctrl-C and SIGTERM: stop the run at once, once, and never cut its cleanup short."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest


class Interrupt:
    """The run's response to Ctrl-C and SIGTERM.

    In the process that writes the ledger and the JUnit file (the xdist controller, or pytest
    without xdist) the first signal stops the run (a KeyboardInterrupt, so fixtures tear down
    and the finished items are reported); later ones only say that it is stopping, so they can
    no longer cut the writing of the JUnit file or the removal of sandboxes. An xdist worker
    ignores SIGINT while its controller lives: a terminal sends Ctrl-C to the whole process
    group, and the controller stops the workers itself (see
    :meth:`pytest_swe.runner.xdist.XdistController.pytest_keyboard_interrupt`); a worker whose
    controller is gone (execnet then interrupts it) tears down as usual.
    """

    def __init__(self, controller_pid: int | None = None) -> None:
        self.controller_pid = controller_pid
        self.signalled: int | None = None
        self.repeats = 0

    def rearm(self) -> None:
        """The run goes on after all (pdb took the KeyboardInterrupt, say): a signal stops it again."""
        self.signalled = None
        self.repeats = 0

    def worker_sigint(self, signum: int, frame: FrameType | None) -> None:
        if self.controller_pid is not None and os.getppid() == self.controller_pid:
            return
        raise KeyboardInterrupt

    def handle(self, signum: int, frame: FrameType | None) -> None:
        if self.signalled is not None:
            self.repeats += 1
            if self.repeats == 1:
                note(
                    "pytest-swe: already stopping (writing the results of finished items, removing sandboxes); "
                    f"kill -9 {os.getpid()} stops at once"
                )
            return
        self.signalled = signum
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise KeyboardInterrupt(f"signal {signum}")


_interrupt_key = pytest.StashKey[Interrupt]()


def note(text: str) -> None:
    """A line on stderr, written without Python's buffered streams (safe inside a signal handler)."""
    with contextlib.suppress(OSError):
        os.write(2, ("\n" + text + "\n").encode())


def rearm(config: pytest.Config) -> None:
    interrupt = config.stash.get(_interrupt_key, None)
    if interrupt is not None:
        interrupt.rearm()


def install_signal_handlers(config: pytest.Config) -> None:
    """SIGTERM behaves like Ctrl-C, so fixtures tear down and sandboxes are removed; a repeated
    signal never interrupts that cleanup (see :class:`Interrupt`)."""
    if threading.current_thread() is not threading.main_thread():
        return
    workerinput = getattr(config, "workerinput", None)  # set by xdist on a worker's config
    controller = int(workerinput["swe_owner_pid"]) if workerinput and "swe_owner_pid" in workerinput else None
    interrupt = config.stash[_interrupt_key] = Interrupt(controller)
    handlers = {
        signal.SIGTERM: interrupt.handle,
        signal.SIGINT: interrupt.worker_sigint if workerinput is not None else interrupt.handle,
    }
    for signum, handler in handlers.items():
        try:
            previous = signal.signal(signum, handler)
        except (ValueError, OSError):
            continue
        config.add_cleanup(_restore(signum, previous))


def _restore(signum: int, previous: Any) -> Callable[[], None]:
    def restore() -> None:
        signal.signal(signum, previous)

    return restore
