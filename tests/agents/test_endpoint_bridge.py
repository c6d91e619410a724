"""The model endpoint bridge on the host: a Unix socket that reaches one loopback server and nothing else."""

from __future__ import annotations

import json
import os
import socket
import socketserver
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from modelserver import Script
from modelserver import ScriptedModelServer
from modelserver import serving
from modelserver import submit

from pytest_swe.agentkit import endpoint
from pytest_swe.agentkit.chat import ChatClient
from pytest_swe.agentkit.endpoint import FORWARDER_NAME
from pytest_swe.agentkit.endpoint import EndpointBridge
from pytest_swe.agentkit.endpoint import loopback_target
from pytest_swe.agentkit.endpoint import rewrite_url
from pytest_swe.api.errors import ConfigError


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with serving({"hello": Script([submit(), submit()])}) as srv:
        yield srv


def start_sandbox_side(bridge: EndpointBridge, tmp_path: Path) -> tuple[subprocess.Popen[bytes], int]:
    """Run the in-sandbox forwarder here on the host, as it runs in a sandbox (same python3 script)."""
    port_file = tmp_path / "port"
    proc = subprocess.Popen(
        [sys.executable, os.path.join(bridge.host_dir, FORWARDER_NAME), bridge.socket_path, str(port_file)]
    )
    deadline = time.monotonic() + 10
    while not port_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return proc, int(port_file.read_text())


def test_non_loopback_endpoints_are_refused() -> None:
    for url in ("http://192.0.2.10:8000/v1", "https://[2001:db8::1]/v1"):
        with pytest.raises(ConfigError, match="not on this host's loopback"):
            loopback_target(url)
    with pytest.raises(ConfigError, match="expected http"):
        loopback_target("ftp://127.0.0.1/v1")
    assert loopback_target("http://127.0.0.1:8123/v1") == ("127.0.0.1", 8123)
    assert rewrite_url("http://localhost:8123/v1?x=1", 40001) == "http://127.0.0.1:40001/v1?x=1"


def test_requests_through_both_forwarders_reach_the_server(
    server: ScriptedModelServer, tmp_path: Path
) -> None:
    bridge = EndpointBridge(server.url)
    proc, port = start_sandbox_side(bridge, tmp_path)
    try:
        client = ChatClient(rewrite_url(server.url, port), api_key="k", retries=0)
        response = client.complete({"model": "m", "messages": [{"role": "user", "content": "hello"}]})
        assert response.message["tool_calls"][0]["function"]["name"] == "submit"
        assert server.requests[-1]["headers"]["Authorization"] == "Bearer k"
        assert bridge.connections == 1
    finally:
        proc.kill()
        bridge.close()
    assert not Path(bridge.host_dir).exists()


def test_the_destination_cannot_be_chosen_by_the_traffic(server: ScriptedModelServer) -> None:
    """A proxy-style request naming another host still lands on the configured server, and only there."""
    bridge = EndpointBridge(server.url)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(bridge.socket_path)
            body = json.dumps({"messages": [{"role": "user", "content": "hello"}]}).encode()
            conn.sendall(
                b"POST http://192.0.2.10/v1/chat/completions HTTP/1.1\r\nHost: 192.0.2.10\r\n"
                b"Content-Type: application/json\r\nContent-Length: "
                + str(len(body)).encode()
                + b"\r\nConnection: close\r\n\r\n"
                + body
            )
            reply = b""
            while chunk := conn.recv(65536):
                reply += chunk
    finally:
        bridge.close()
    assert reply.startswith(b"HTTP/1.0 404 ")  # the scripted server speaks HTTP/1.0 (http.server's default)
    (request,) = server.requests
    assert request["path"] == "http://192.0.2.10/v1/chat/completions"
    assert request["headers"]["Host"] == "192.0.2.10"


def test_closing_the_bridge_refuses_new_connections(server: ScriptedModelServer) -> None:
    bridge = EndpointBridge(server.url)
    path = bridge.socket_path
    bridge.close()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn, pytest.raises(OSError):
        conn.connect(path)


class _Echo(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        while data := self.request.recv(65536):
            self.request.sendall(data)


def _echoes(path: str, data: bytes) -> bool:
    """Whether a connection through the bridge gets ``data`` back (False: refused or closed)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(5)
        try:
            conn.connect(path)
            conn.sendall(data)
            return conn.recv(65536) == data
        except OSError:
            return False


def test_connections_past_the_limit_are_closed_until_a_slot_frees(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(endpoint, "MAX_CONNECTIONS", 1)
    target = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Echo)
    target.daemon_threads = True
    threading.Thread(target=target.serve_forever, daemon=True).start()
    bridge = EndpointBridge(f"http://127.0.0.1:{target.server_address[1]}/v1")
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as held:
            held.connect(bridge.socket_path)
            held.sendall(b"first")
            assert held.recv(65536) == b"first"
            assert not _echoes(bridge.socket_path, b"second")
        deadline = time.monotonic() + 5
        while not _echoes(bridge.socket_path, b"third") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert time.monotonic() < deadline
        assert bridge.connections == 2
    finally:
        bridge.close()
        target.shutdown()
        target.server_close()
