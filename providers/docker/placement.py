"""Where a sandbox of a Docker pool goes, and how the pool's load is counted across processes.

Capacity is counted with one lock file per host slot in the run's shared directory, held with
``flock`` for as long as the slot's sandboxes live. Every xdist worker of the run is a process of
its own, so an in-memory count would see only its own sandboxes; a lock file is seen by them all,
needs no server, and the kernel releases it when the process holding it dies (a killed worker
frees its slots at once, and no stale count survives a crash). A host's load is the number of its
slot files held by anyone.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import time
from collections.abc import Iterable
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PLACED = "placed"
"""A host's count of placements in this run: one byte appended per placement (atomic with
O_APPEND), so the count is the file's size; it breaks ties between equally loaded hosts."""
DRAINED = "drained"
"""A host's marker: it stopped answering; every worker of the run stops placing there."""


@dataclass(frozen=True)
class HostView:
    """What placement knows of one host at the moment of choosing."""

    name: str
    capacity: int
    load: int
    has_image: bool
    placed: int = 0
    healthy: bool = True

    @property
    def free(self) -> int:
        return max(self.capacity - self.load, 0)


def rank(hosts: Iterable[HostView]) -> list[HostView]:
    """The hosts a sandbox may go to, best first.

    Only healthy hosts with a free slot. A host that has the image comes first (no transfer),
    then the least loaded (by the share of its capacity in use, then by the sandboxes running),
    then the one given the fewest sandboxes so far in this run (so equal hosts take turns), then
    by name (stable).
    """
    usable = [h for h in hosts if h.healthy and h.free > 0]
    return sorted(usable, key=lambda h: (not h.has_image, h.load / h.capacity, h.load, h.placed, h.name))


class Slot:
    """One held slot of a host: the lock is released with :meth:`release` (or by the process dying)."""

    def __init__(self, host: str, index: int, fd: int) -> None:
        self.host = host
        self.index = index
        self._fd: int | None = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    @property
    def held(self) -> bool:
        return self._fd is not None


class HostSlots:
    """The slot lock files, placement count and drain marker of one host in the run's directory."""

    def __init__(self, state_dir: Path, host: str, capacity: int, owner: str = "") -> None:
        self.host = host
        self.capacity = capacity
        self.owner = owner
        """Who runs the run (controller pid and start): a marker another run left (``--swe-resume``
        reuses the run directory) does not drain the host for this one."""
        self.dir = state_dir / _safe(host)
        self.dir.mkdir(parents=True, exist_ok=True)

    def _slot_path(self, index: int) -> Path:
        return self.dir / f"slot-{index}.lock"

    def _try(self, index: int) -> int | None:
        fd = os.open(self._slot_path(index), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        return fd

    def load(self) -> int:
        """How many slots are held now (by any process of the run)."""
        held = 0
        for index in range(self.capacity):
            fd = self._try(index)
            if fd is None:
                held += 1
            else:
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)
        return held

    def acquire(self) -> Slot | None:
        """A free slot, held until released; None when every slot is taken."""
        for index in range(self.capacity):
            fd = self._try(index)
            if fd is not None:
                with open(self.dir / PLACED, "ab") as counter:
                    counter.write(b".")
                return Slot(self.host, index, fd)
        return None

    def placed(self) -> int:
        try:
            return (self.dir / PLACED).stat().st_size
        except FileNotFoundError:
            return 0

    def drain(self, reason: str) -> None:
        if self.drained():
            return
        staging = self.dir / f"{DRAINED}.{os.getpid()}"
        staging.write_text(f"{self.owner}\n{time.strftime('%H:%M:%S')} {reason}\n")
        staging.replace(self.dir / DRAINED)  # whole or absent for a reader in another process

    def drained(self) -> str | None:
        """Why the host was drained (by any worker of this run), or None."""
        try:
            owner, _, reason = (self.dir / DRAINED).read_text().partition("\n")
        except FileNotFoundError:
            return None
        return (reason.strip() or "drained") if owner == self.owner else None

    def image_lock(self, image: str) -> Path:
        """The lock file that lets one process at a time bring ``image`` to this host."""
        return self.dir / f"image-{hashlib.sha1(image.encode()).hexdigest()[:16]}.lock"


@contextlib.contextmanager
def exclusive(path: Path, timeout: float) -> Iterator[None]:
    """Hold ``path``'s flock (waiting up to ``timeout`` seconds); TimeoutError when it stays taken."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    end = time.monotonic() + timeout
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= end:
                    raise TimeoutError(f"{path} stayed locked for {timeout:.0f}s") from None
                time.sleep(0.2)
        yield
    finally:
        os.close(fd)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "_"
