"""The cyclic garbage collector and a run's long-lived objects.

A benchmark run holds large numbers of objects that live as long as its session: the loaded
modules and classes, and tens of thousands of items in a large benchmark. Every full pass of the
cyclic collector walks all of them, and pytest makes five full passes at the session's end (to
surface unraisable exceptions): over an unfrozen heap that is a third of a second in every pytest
process, the xdist controller included. So a session with benchmark items freezes what is alive
once its items are collected (a worker, or a run without xdist) or once the first worker reports
them (the controller), and gives it all back to the collector when it ends. Only such sessions:
frozen objects are out of ``gc.get_objects()``, which a project's own tests may rely on. A session
nested in one that froze (an in-process pytest run) leaves the collector as it found it.
"""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator
from contextlib import contextmanager

_owner: object | None = None
"""The session (its config) whose freezes :func:`thaw` undoes; None when nothing is frozen here."""
_freeze_at_exit = False


def freeze(config: object) -> None:
    """Move every object alive now out of the collector's passes, until ``config``'s :func:`thaw`;
    nothing when another session (an outer one, or code outside pytest) froze the heap first."""
    global _owner, _freeze_at_exit
    if _owner is None and gc.get_freeze_count() == 0:
        _owner = config
    if _owner is not config:
        return
    gc.freeze()
    if not _freeze_at_exit:
        # At the interpreter's exit everything is frozen again: its last collections would walk
        # the session's objects once more (0.7 s for 25,000 items) only to free memory the
        # process is about to give back. Nothing is skipped but cyclic garbage collection.
        atexit.register(gc.freeze)
        _freeze_at_exit = True


def thaw(config: object) -> None:
    """Give what ``config``'s session froze back to the collector (at the session's end)."""
    global _owner
    if _owner is config:
        gc.unfreeze()
        _owner = None


@contextmanager
def paused() -> Iterator[None]:
    """The collector off while a burst of long-lived objects is made (its passes would walk
    them again and again as they grow: half of the time of making 25,000 items)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
