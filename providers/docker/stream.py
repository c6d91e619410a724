"""An exec's output: Docker's multiplexed stdout/stderr frames read on a thread into a capped buffer.

Hand-written rather than the SDK's ``exec_start(stream=True)`` / ``docker.utils.socket.frames_iter``
for two reasons: the SDK reads the raw socket under the HTTP client's buffer, so output that arrived
with the upgrade response is lost (docker/docker-py#425), and its frame reader blocks without a
timeout, so a command cut at its deadline (or one whose background children keep the stream open)
would leave the reader waiting for ever.
"""

from __future__ import annotations

import socket
import struct
import threading
from typing import Any


class CappedBuffer:
    """Keeps the first and last ``limit/2`` bytes of a stream and counts what it dropped."""

    def __init__(self, limit: int) -> None:
        self.half = max(limit // 2, 1)
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, data: bytes) -> None:
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if not data:
            return
        self.tail += data
        excess = len(self.tail) - self.half
        if excess > 0:
            del self.tail[:excess]
            self.dropped += excess

    @property
    def received(self) -> int:
        """Every byte added, kept or dropped."""
        return len(self.head) + len(self.tail) + self.dropped

    def text(self) -> str:
        middle = f"\n[... {self.dropped} bytes of output dropped ...]\n".encode() if self.dropped else b""
        return (bytes(self.head) + middle + bytes(self.tail)).decode("utf-8", errors="replace")


def demux(pending: bytes, buffer: CappedBuffer) -> bytes:
    """Move every complete stdout/stderr frame of ``pending`` into ``buffer``; return the rest."""
    while len(pending) >= 8:
        stream_type, size = struct.unpack(">BxxxL", pending[:8])
        if stream_type not in (0, 1, 2):  # not multiplexed (tty): take it raw
            buffer.add(pending)
            return b""
        if len(pending) < 8 + size:
            break
        buffer.add(pending[8 : 8 + size])
        pending = pending[8 + size :]
    return pending


def read_frames(
    raw: socket.socket, buffer: CappedBuffer, stop: threading.Event, initial: bytes = b""
) -> None:
    """Read Docker's multiplexed stdout/stderr frames until EOF or ``stop``.

    ``initial`` holds stream bytes the HTTP client had already read with the upgrade response.
    """
    pending = demux(initial, buffer)
    raw.settimeout(0.2)
    while True:
        try:
            chunk = raw.recv(65536)
        except TimeoutError:
            if stop.is_set():
                return
            continue
        except OSError:
            return
        if not chunk:
            return
        pending = demux(pending + chunk, buffer)


def read_ahead(sock: Any, raw: socket.socket) -> bytes:
    """Stream bytes the HTTP client buffered while reading the upgrade response.

    When a command's output reaches the client together with the response headers (a fast
    command, a busy client), the HTTP library keeps it in its read buffer, not the socket:
    reading only the socket would lose the start of the output, or all of it. The SDK offers no
    public way to that buffer (docker/docker-py#425), hence the private path.
    """
    try:
        reader = sock._response.raw._fp.fp
    except AttributeError:
        return b""
    raw.setblocking(False)
    try:
        data = reader.read1(1 << 20)
    except (BlockingIOError, OSError, ValueError):
        data = b""
    finally:
        raw.setblocking(True)
    return bytes(data or b"")


class OutputStream:
    """The output of one exec, read on a thread until the stream ends or :meth:`close`."""

    def __init__(self, sock: Any, limit: int) -> None:
        self._sock = sock
        # The SDK hands back a SocketIO for plain sockets: reading needs the socket itself.
        self._raw: socket.socket = getattr(sock, "_sock", sock)
        self.buffer = CappedBuffer(limit)
        self._stop = threading.Event()
        initial = read_ahead(sock, self._raw)
        self._reader = threading.Thread(
            target=read_frames, args=(self._raw, self.buffer, self._stop, initial), daemon=True
        )
        self._reader.start()

    def wait(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the stream to end."""
        self._reader.join(timeout=timeout)

    def close(self) -> None:
        self._stop.set()
        try:
            self._sock.close()
            self._raw.close()
        except OSError:
            pass
