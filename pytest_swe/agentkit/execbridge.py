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
import sys
import tempfile
import threading
import time
from pathlib import Path

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
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(self.socket_path)
        self._server.listen(8)
        self._server.settimeout(0.2)
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="pytest-swe-exec", daemon=True)
        self._thread.start()

    def write_helper(self, path: Path) -> Path:
        """An executable script that runs the client against this server."""
        path.write_text(
            f'#!/bin/sh\nexec "{sys.executable}" -m pytest_swe.agentkit.execbridge "{self.socket_path}" "$@"\n'
        )
        path.chmod(0o755)
        return path

    def _serve(self) -> None:
        # This thread alone uses and closes the listening socket (see EndpointBridge._serve).
        try:
            while not self._closed.is_set():
                try:
                    conn, _ = self._server.accept()
                except TimeoutError:
                    continue
                except OSError:
                    return
                threading.Thread(target=self._handle, args=(conn,), daemon=True).start()
        finally:
            self._server.close()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.settimeout(REQUEST_TIMEOUT)
                request = json.loads(_read_all(conn, MAX_REQUEST))
                conn.settimeout(None)
                reply = self._run(request)
            except Exception as exc:  # a bad request or a sandbox fault: the client reports it
                reply = {
                    "exit_code": 125,
                    "output": f"pytest-swe exec: {type(exc).__name__}: {exc}\n",
                    "timed_out": False,
                }
            with contextlib.suppress(OSError):
                conn.sendall(json.dumps(reply).encode())

    def _run(self, request: dict) -> dict:
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
        self._closed.set()
        self._thread.join(timeout=5)
        shutil.rmtree(self.dir, ignore_errors=True)


def _read_all(conn: socket.socket, limit: int | None = None) -> bytes:
    chunks, size = [], 0
    while True:
        data = conn.recv(65536)
        if not data:
            return b"".join(chunks)
        chunks.append(data)
        size += len(data)
        if limit is not None and size > limit:
            raise ValueError("request too large")


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
        reply = json.loads(_read_all(conn))
    sys.stdout.write(reply.get("output", ""))
    sys.stdout.flush()
    if reply.get("timed_out"):
        return TIMED_OUT_EXIT
    code = reply.get("exit_code")
    return 1 if code is None else int(code)


if __name__ == "__main__":
    sys.exit(main())
