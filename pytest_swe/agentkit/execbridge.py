"""Lets a program on the host run commands in an item's sandbox, whatever the provider.

The command agent's host mode starts an :class:`ExecServer` on a Unix socket and gives the
host command ``SWE_SANDBOX_EXEC``, a script that runs ``python -m pytest_swe.agentkit.execbridge``:

    $SWE_SANDBOX_EXEC 'cd src && pytest -x'            # output and exit code as if local
    $SWE_SANDBOX_EXEC --timeout 60 --workdir /testbed 'make'

Every request goes through :meth:`Sandbox.exec`, so the provider's timeout (which kills
the command's process tree), output cap and workdir rules hold, and no command outlives
the agent's time limit.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import socketserver
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from pytest_swe.api.sandbox import Sandbox

TIMED_OUT_EXIT = 124
MAX_REQUEST = 4 * 1024 * 1024
REQUEST_TIMEOUT = 30.0


class ExecServer:
    """Serves ``{"command", "timeout", "workdir"}`` requests, one JSON object per connection."""

    def __init__(
        self,
        sandbox: Sandbox,
        *,
        workdir: str,
        default_timeout: float,
        deadline: float,
        output_limit: int | None = None,
    ) -> None:
        self.sandbox = sandbox
        self.workdir = workdir
        self.default_timeout = default_timeout
        self.deadline = deadline
        self.output_limit = output_limit
        self.count = 0
        self.dir = tempfile.mkdtemp(prefix="pytest-swe-exec-")
        self.socket_path = os.path.join(self.dir, "exec.sock")
        self._lock = threading.Lock()
        self._server = _UnixServer(self.socket_path, self)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.2},
            name="pytest-swe-exec",
            daemon=True,
        )
        self._thread.start()

    def write_helper(self, path: Path) -> Path:
        """An executable script that runs the client against this server."""
        path.write_text(
            f'#!/bin/sh\nexec "{sys.executable}" -m pytest_swe.agentkit.execbridge "{self.socket_path}" "$@"\n'
        )
        path.chmod(0o755)
        return path

    def execute(self, request: Any) -> dict[str, Any]:
        """Run one request in the sandbox; the reply's shape is the client's exit status and output."""
        if not isinstance(request, dict):
            raise ValueError("the request must be a JSON object")
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            return {
                "exit_code": TIMED_OUT_EXIT,
                "output": "pytest-swe exec: the agent's time limit is over\n",
                "timed_out": True,
            }
        timeout = min(float(request.get("timeout") or self.default_timeout), remaining)
        with self._lock:  # one command at a time, as a shell would run them
            self.count += 1
            result = self.sandbox.exec(
                str(request["command"]),
                timeout=timeout,
                workdir=request.get("workdir") or self.workdir,
                output_limit=self.output_limit,
            )
        return {"exit_code": result.exit_code, "output": result.output, "timed_out": result.timed_out}

    def close(self) -> None:
        # serve_forever's own thread leaves the accept loop; only then is the socket closed, so no
        # pending accept() can take a connection from a socket that reuses its descriptor.
        self._server.shutdown()
        self._thread.join(timeout=5)
        self._server.server_close()
        shutil.rmtree(self.dir, ignore_errors=True)


class _Handler(socketserver.StreamRequestHandler):
    """One connection: read the request to EOF, run it, write the reply, close."""

    timeout = REQUEST_TIMEOUT  # for reading the request; the command itself has its own

    server: _UnixServer

    def handle(self) -> None:
        try:
            raw = self.rfile.read(MAX_REQUEST + 1)
            if len(raw) > MAX_REQUEST:
                raise ValueError("request too large")
            request = json.loads(raw)
            self.connection.settimeout(None)
            reply = self.server.owner.execute(request)
        except Exception as exc:  # a bad request or any fault of the provider's exec: the client reports it
            reply = {
                "exit_code": 125,
                "output": f"pytest-swe exec: {type(exc).__name__}: {exc}\n",
                "timed_out": False,
            }
        with contextlib.suppress(OSError):
            self.wfile.write(json.dumps(reply).encode())


class _UnixServer(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True  # a command still running never holds up close()
    request_queue_size = 8

    def __init__(self, path: str, owner: ExecServer) -> None:
        self.owner = owner
        super().__init__(path, _Handler)


def main(argv: list[str] | None = None) -> int:
    """``swe-exec SOCKET [--timeout S] [--workdir DIR] [--] COMMAND...``: run COMMAND in the sandbox."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: swe-exec SOCKET [--timeout SECONDS] [--workdir DIR] [--] COMMAND...", file=sys.stderr)
        return 2
    path, args = args[0], args[1:]
    options: dict[str, str] = {}
    while args and args[0] in ("--timeout", "--workdir", "--") and (args[0] == "--" or len(args) > 1):
        if args[0] == "--":
            args = args[1:]
            break
        options[args[0][2:]], args = args[1], args[2:]
    command = " ".join(args).strip()
    if not command:
        print("swe-exec: no command given", file=sys.stderr)
        return 2
    request = {
        "command": command,
        "timeout": float(options["timeout"]) if "timeout" in options else None,
        "workdir": options.get("workdir"),
    }
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(path)
        conn.sendall(json.dumps(request).encode())
        conn.shutdown(socket.SHUT_WR)
        with conn.makefile("rb") as stream:
            reply = json.loads(stream.read())
    sys.stdout.write(reply.get("output", ""))
    sys.stdout.flush()
    if reply.get("timed_out"):
        return TIMED_OUT_EXIT
    code = reply.get("exit_code")
    return 1 if code is None else int(code)


if __name__ == "__main__":
    sys.exit(main())
