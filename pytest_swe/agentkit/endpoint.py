"""Model endpoint settings, and the bridge that lets a sandbox reach a loopback endpoint and nothing else.

Sandboxes run without a network (``network_mode=none``), yet an agent running *inside* one
(the command agent) may need the model server that runs on the host's loopback. The path:

    agent in sandbox --TCP--> 127.0.0.1:<port> (in-sandbox forwarder, python3 or socat)
        --Unix socket--> <host temp dir>/endpoint.sock (bind-mounted into the sandbox)
        --TCP--> the configured loopback endpoint (host forwarder)

The host forwarder's destination is fixed when it starts (the resolved loopback address
of ``base_url``); it pipes bytes and never reads a destination from the traffic, so the
socket reaches that one server and nothing else. Non-loopback endpoints are refused: the
rewritten URL would break their TLS names anyway, and a sandbox that needs a remote API
is given one by running a local proxy (or by ``network.agent: true``).
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import shutil
import socket
import socketserver
import tempfile
import threading
import urllib.parse
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field
from pydantic import ValidationError

from pytest_swe.agentkit import forward
from pytest_swe.agentkit.forward import pipe
from pytest_swe.api.agent import EndpointBridging
from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import InfraError
from pytest_swe.api.sandbox import Sandbox
from pytest_swe.api.sandbox import SandboxSpec

SANDBOX_DIR = "/run/pytest-swe-endpoint"
SOCKET_NAME = "endpoint.sock"
FORWARDER_NAME = "forward.py"
MAX_CONNECTIONS = 64


class ModelEndpoint(BaseModel):
    """How an agent reaches its model: read from the benchmark's ``agent`` section."""

    model_config = ConfigDict(extra="ignore")
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = "OPENAI_API_KEY"
    """Name of the environment variable holding the key (the key itself never goes in a file)."""
    temperature: float | None = 0.0
    max_tokens: int | None = Field(None, gt=0)
    request_timeout: float = Field(300.0, gt=0)
    retries: int = Field(5, ge=0)
    retry_backoff: float = Field(1.0, ge=0)
    prices: dict[str, float] = Field(default_factory=dict)
    """USD per million tokens: ``{input: ..., output: ...}``; a server-reported ``usage.cost`` wins."""
    extra_body: dict[str, Any] = Field(default_factory=dict)
    """Extra fields sent with every request (e.g. ``top_p``, ``seed``)."""

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> ModelEndpoint:
        try:
            return cls.model_validate(dict(settings))
        except ValidationError as exc:
            problems = "; ".join(f"agent.{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            raise ConfigError(f"model endpoint settings: {problems}") from None

    def api_key(self) -> str | None:
        """The key from the environment variable named by ``api_key_env`` (None when unset)."""
        if not self.api_key_env:
            return None
        return os.environ.get(self.api_key_env) or None

    def cost_of(self, prompt_tokens: int, completion_tokens: int, reported: float | None) -> float | None:
        if reported is not None:
            return reported
        if not self.prices:
            return None
        return (
            prompt_tokens * self.prices.get("input", 0.0) + completion_tokens * self.prices.get("output", 0.0)
        ) / 1e6


# --- the host side ------------------------------------------------------------------------------


def loopback_target(base_url: str) -> tuple[str, int]:
    """The (address, port) a loopback ``base_url`` points at; ConfigError for anything else."""
    parsed = urllib.parse.urlsplit(base_url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ConfigError(f"agent.base_url {base_url!r}: expected http(s)://host:port/...")
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(parsed.hostname, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ConfigError(f"agent.base_url {base_url!r}: cannot resolve {parsed.hostname!r}: {exc}") from None
    addresses = [str(info[4][0]) for info in infos]  # the host of an AF_INET or AF_INET6 sockaddr
    if not addresses or not all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in addresses):
        raise ConfigError(
            f"agent.base_url {base_url!r} is not on this host's loopback: a sandbox can only be bridged to a "
            "loopback endpoint (run a local proxy, or give the agent sandbox a network with "
            "network.agent=true)"
        )
    return addresses[0], port


def rewrite_url(base_url: str, port: int) -> str:
    """``base_url`` with its host and port replaced by the in-sandbox forwarder's."""
    parsed = urllib.parse.urlsplit(base_url)
    return urllib.parse.urlunsplit((parsed.scheme, f"127.0.0.1:{port}", parsed.path, parsed.query, ""))


class EndpointBridge:
    """A Unix socket in a temp dir (mounted into the sandbox) piped to one fixed loopback address."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.target = loopback_target(base_url)
        self.host_dir = tempfile.mkdtemp(prefix="pytest-swe-ep-")
        os.chmod(self.host_dir, 0o755)
        self.socket_path = os.path.join(self.host_dir, SOCKET_NAME)
        self.sandbox_dir = SANDBOX_DIR
        self.connections = 0
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._server = _BridgeServer(self.socket_path, self)
        os.chmod(self.socket_path, 0o777)  # any user the sandbox runs commands as may connect
        shutil.copyfile(forward.__file__, os.path.join(self.host_dir, FORWARDER_NAME))
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.2},
            name="pytest-swe-endpoint-bridge",
            daemon=True,
        )
        self._thread.start()

    @property
    def mounts(self) -> dict[str, str]:
        return {self.host_dir: self.sandbox_dir}

    def pipe_to_target(self, client: socket.socket) -> None:
        """Connect to the fixed target and pipe bytes both ways until both sides are done."""
        upstream: socket.socket | None = None
        try:
            family = socket.AF_INET6 if ":" in self.target[0] else socket.AF_INET
            upstream = socket.socket(family, socket.SOCK_STREAM)
            upstream.settimeout(10)
            upstream.connect(self.target)
            upstream.settimeout(None)
            with self._lock:
                self.connections += 1
                self._open.update((client, upstream))
            back = threading.Thread(target=pipe, args=(upstream, client), daemon=True)
            back.start()
            pipe(client, upstream)
            back.join()
        except OSError:
            pass  # the target refused or dropped the connection: the client sees it closed
        finally:
            with self._lock:
                self._open.discard(client)
                if upstream is not None:
                    self._open.discard(upstream)
            if upstream is not None:
                with contextlib.suppress(OSError):
                    upstream.close()

    def start_in_sandbox(self, sandbox: Sandbox, *, timeout: float = 30) -> str:
        """Start the in-sandbox forwarder; returns the URL the agent in the sandbox should use."""
        fallback_port = 20000 + int.from_bytes(os.urandom(2), "big") % 20000
        script = START_SCRIPT.format(d=self.sandbox_dir, fallback_port=fallback_port)
        result = sandbox.exec(script, timeout=timeout, workdir="/")
        port = result.output.strip().splitlines()[-1] if result.output.strip() else ""
        if result.exit_code != 0 or not port.isdigit():
            raise InfraError(
                "sandbox_error",
                f"cannot start the model endpoint forwarder in the sandbox (exit {result.exit_code}): "
                f"{result.output[-1000:]}",
            )
        return rewrite_url(self.base_url, int(port))

    def close(self) -> None:
        # serve_forever leaves its accept loop first; only then is the listening socket closed, so no
        # pending accept() can take a connection from a socket that reuses its descriptor.
        self._server.shutdown()
        self._thread.join(timeout=5)
        self._server.server_close()
        with self._lock:
            for sock in list(self._open):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                    sock.close()
        shutil.rmtree(self.host_dir, ignore_errors=True)


class _BridgeServer(socketserver.ThreadingUnixStreamServer):
    """Accepts sandbox connections on the Unix socket, at most MAX_CONNECTIONS at once."""

    daemon_threads = True
    request_queue_size = 16

    def __init__(self, path: str, bridge: EndpointBridge) -> None:
        self.bridge = bridge
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        super().__init__(path, _BridgeHandler)

    def verify_request(self, request: Any, client_address: Any) -> bool:
        return self.slots.acquire(blocking=False)  # a connection past the limit is closed at once

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


class _BridgeHandler(socketserver.BaseRequestHandler):
    server: _BridgeServer

    def handle(self) -> None:
        self.server.bridge.pipe_to_target(self.request)


def open_bridge(agent: Any, spec: SandboxSpec) -> EndpointBridge | None:
    """Start a bridge when the agent asks for one (``endpoint_bridge_url()``) and mount it into ``spec``."""
    url = agent.endpoint_bridge_url() if isinstance(agent, EndpointBridging) else None
    if not url:
        return None
    bridge = EndpointBridge(url)
    spec.mounts.update(bridge.mounts)
    return bridge


START_SCRIPT = """\
d={d}
p=/tmp/.pytest-swe-endpoint.port
rm -f "$p"
if command -v python3 >/dev/null 2>&1; then
  nohup python3 "$d/forward.py" "$d/endpoint.sock" "$p" >/dev/null 2>&1 &
elif command -v socat >/dev/null 2>&1; then
  nohup socat TCP-LISTEN:{fallback_port},bind=127.0.0.1,fork,reuseaddr \
    UNIX-CONNECT:"$d/endpoint.sock" >/dev/null 2>&1 &
  sleep 0.3
  echo {fallback_port} > "$p"
else
  echo "neither python3 nor socat is in the image: cannot forward the model endpoint" >&2
  exit 97
fi
i=0
while [ $i -lt 100 ]; do
  if [ -s "$p" ]; then cat "$p"; echo; exit 0; fi
  sleep 0.1
  i=$((i+1))
done
echo "the forwarder did not start" >&2
exit 98
"""
