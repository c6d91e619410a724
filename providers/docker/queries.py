"""Read-only questions to an engine on a local Unix socket, asked without the docker SDK.

A run whose every verdict comes from the verdict cache asks the engine only these: a ping, its
version, an image's inspection (the cache key names the image by content) and a listing of the
run's containers (to reap). Importing the SDK (requests, urllib3, charset-normalizer) takes
0.12-0.16 s, more than the rest of such a run's own work; the standard library's ``http.client``
over the socket takes 0.015 s. Whatever changes the engine's state, and any engine that is not on a
Unix socket (TCP, TLS, SSH), goes through the SDK.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
from typing import Any
from urllib.parse import quote_plus
from urllib.parse import urlencode

DEFAULT_SOCKET = "/var/run/docker.sock"


class EngineAnswer(Exception):
    """The engine answered with an error status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status


QUERY_ERRORS: tuple[type[BaseException], ...] = (OSError, http.client.HTTPException, EngineAnswer, ValueError)
"""What a question raises when the engine, the connection or the answer fails (a refused or
missing socket is an OSError; a body that is not JSON a ValueError)."""


def socket_of(host: str | None) -> str | None:
    """The socket path of an engine address (option ``host``, else ``DOCKER_HOST``, else the local
    socket); None for an address the SDK alone reaches (``tcp://``, ``ssh://``, ``npipe://``)."""
    address = (host or os.environ.get("DOCKER_HOST") or "").strip()
    if not address or address == "unix://":
        return DEFAULT_SOCKET
    for scheme in ("unix://", "http+unix://"):
        if address.startswith(scheme) and address[len(scheme) :].startswith("/"):
            return address[len(scheme) :].rstrip("/") or None
    return None


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.socket_path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(self.timeout)
            sock.connect(self.socket_path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


class SocketQueries:
    """GET requests to the engine API at ``path``, one connection each (as the CLI makes them)."""

    def __init__(self, path: str, timeout: float) -> None:
        self.path = path
        self.timeout = timeout

    def get(self, url: str, params: dict[str, str] | None = None) -> tuple[int, bytes]:
        """The status and body of ``GET url``."""
        connection = _UnixConnection(self.path, self.timeout)
        try:
            connection.request("GET", url + (f"?{urlencode(params)}" if params else ""))
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def _json(self, url: str, params: dict[str, str] | None = None, *, missing_ok: bool = False) -> Any:
        status, body = self.get(url, params)
        if missing_ok and status == 404:
            return None
        if status >= 400:
            try:
                message = str(json.loads(body).get("message", ""))
            except (ValueError, AttributeError):
                message = body.decode("utf-8", "replace")
            raise EngineAnswer(status, message.strip() or "no message")
        return json.loads(body)

    def ping(self) -> None:
        status, body = self.get("/_ping")
        if status != 200:
            raise EngineAnswer(status, body.decode("utf-8", "replace").strip() or "no message")

    def version(self) -> dict[str, Any]:
        return dict(self._json("/version"))

    def inspect_image(self, tag: str) -> dict[str, Any] | None:
        """The engine's inspection of the local image ``tag``; None when it has no such image."""
        found = self._json(f"/images/{quote_plus(tag, safe='/:')}/json", missing_ok=True)
        return None if found is None else dict(found)

    def containers(self, labels: list[str]) -> list[dict[str, Any]]:
        """Every container (running or not) that carries all of ``labels`` (``key`` or ``key=value``)."""
        listing = self._json("/containers/json", {"all": "1", "filters": json.dumps({"label": labels})})
        return [dict(entry) for entry in listing]
