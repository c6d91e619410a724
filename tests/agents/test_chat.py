"""The chat client's retry policy, timeouts and error reports, against a real loopback HTTP server."""

from __future__ import annotations

import json
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.agentkit.chat import MAX_BODY_CHARS
from pytest_swe.agentkit.chat import ChatClient
from pytest_swe.agentkit.chat import EndpointDeadline
from pytest_swe.agentkit.chat import ModelEndpointError

COMPLETION = {
    "choices": [{"message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 7, "completion_tokens": 3, "cost": 0.5},
}


@dataclass
class Answer:
    status: int = 200
    body: str = json.dumps(COMPLETION)
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    length: int | None = None  # a Content-Length other than the body's: the body is cut short


class Server:
    """Answers POSTs from a script (the last answer repeats) and records what it was sent."""

    def __init__(self, answers: list[Answer], tls: ssl.SSLContext | None = None) -> None:
        self.answers = answers
        self.requests: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                owner.requests.append({"path": self.path, "headers": dict(self.headers), "body": raw})
                answer = owner.answers[min(len(owner.requests), len(owner.answers)) - 1]
                time.sleep(answer.delay)
                data = answer.body.encode()
                try:
                    self.send_response(answer.status)
                    for name, value in answer.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(answer.length or len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (the timeout tests)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        scheme = "https" if tls is not None else "http"
        self.url = f"{scheme}://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[Server] = []

    def start(*answers: Answer, tls: ssl.SSLContext | None = None) -> Server:
        servers.append(Server(list(answers), tls))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def client(url: str, **kwargs: Any) -> tuple[ChatClient, list[float]]:
    sleeps: list[float] = []
    return ChatClient(url, sleep=sleeps.append, **kwargs), sleeps


def test_a_completion_is_parsed_and_sent_with_the_key_and_headers(serve: Any) -> None:
    server = serve(Answer())
    chat, sleeps = client(server.url, api_key="sk-1", extra_headers={"X-Trace": "t1"})
    response = chat.complete({"model": "m", "messages": []})
    assert response.message == {"role": "assistant", "content": "hi"} and response.finish_reason == "stop"
    assert (response.prompt_tokens, response.completion_tokens, response.reported_cost) == (7, 3, 0.5)
    assert response.attempts == 1 and sleeps == []
    [sent] = server.requests
    assert sent["path"] == "/v1/chat/completions" and json.loads(sent["body"]) == {
        "model": "m",
        "messages": [],
    }
    headers = {k.lower(): v for k, v in sent["headers"].items()}
    assert headers["authorization"] == "Bearer sk-1" and headers["x-trace"] == "t1"
    assert headers["content-type"] == "application/json"


def test_transient_statuses_back_off_exponentially(serve: Any) -> None:
    server = serve(Answer(503, "busy"), Answer(500, "oops"), Answer(429, "slow"), Answer())
    chat, sleeps = client(server.url, backoff=1.0, max_backoff=3.0)
    assert chat.complete({}).attempts == 4
    assert len(server.requests) == 4
    # 1, 2, then 4 capped at 3; each with up to 10% jitter on top.
    for slept, base in zip(sleeps, [1.0, 2.0, 3.0], strict=True):
        assert base <= slept <= base * 1.1


def test_retry_after_is_honoured_up_to_the_cap(serve: Any) -> None:
    server = serve(
        Answer(429, "wait", {"Retry-After": "7"}), Answer(503, "wait", {"Retry-After": "120"}), Answer()
    )
    chat, sleeps = client(server.url, backoff=0.01, max_backoff=30.0)
    chat.complete({})
    assert 7 <= sleeps[0] <= 7.7 and 30 <= sleeps[1] <= 33


def test_retries_run_out_with_the_status_body_and_attempts(serve: Any) -> None:
    server = serve(Answer(502, '{"error": "bad gateway"}'))
    chat, sleeps = client(server.url, retries=2, backoff=0.0)
    with pytest.raises(ModelEndpointError) as caught:
        chat.complete({})
    error = caught.value
    assert (error.status, error.body, error.attempts) == (502, '{"error": "bad gateway"}', 3)
    assert (
        str(error)
        == 'model endpoint failed (HTTP 502) after 3 attempts: 502 Bad Gateway: {"error": "bad gateway"}'
    )
    assert len(server.requests) == 3 and len(sleeps) == 2


def test_a_client_error_is_not_retried_and_keeps_a_cut_body(serve: Any) -> None:
    server = serve(Answer(401, "x" * (MAX_BODY_CHARS + 50)))
    chat, sleeps = client(server.url)
    with pytest.raises(ModelEndpointError) as caught:
        chat.complete({})
    error = caught.value
    assert (error.status, error.attempts) == (401, 1) and len(server.requests) == 1 and sleeps == []
    assert error.body == "x" * MAX_BODY_CHARS + " [...]"
    assert f"401 Unauthorized from {server.url}/chat/completions" in str(error)


def test_a_200_that_is_not_a_completion_is_retried(serve: Any) -> None:
    server = serve(Answer(200, "<html>proxy error</html>"), Answer())
    chat, _ = client(server.url, backoff=0.0)
    assert chat.complete({}).attempts == 2
    server = serve(Answer(200, '{"choices": []}'))
    chat, _ = client(server.url, retries=1, backoff=0.0)
    with pytest.raises(ModelEndpointError) as caught:
        chat.complete({})
    assert (caught.value.status, caught.value.body, caught.value.attempts) == (200, '{"choices": []}', 2)
    assert "the response is not a chat completion" in str(caught.value)


def test_an_unreachable_endpoint_is_retried_then_reported() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    chat, sleeps = client(f"http://127.0.0.1:{port}/v1", retries=3, backoff=0.0)
    with pytest.raises(ModelEndpointError) as caught:
        chat.complete({})
    assert caught.value.status is None and caught.value.attempts == 4 and len(sleeps) == 3
    assert str(caught.value).startswith(
        "model endpoint failed (no HTTP response) after 4 attempts: cannot reach"
    )


def test_a_slow_answer_times_out_per_request(serve: Any) -> None:
    server = serve(Answer(delay=2.0))
    chat, _ = client(server.url, retries=0, request_timeout=0.3)
    start = time.monotonic()
    with pytest.raises(ModelEndpointError, match="no HTTP response"):
        chat.complete({})
    assert time.monotonic() - start < 1.5


def test_the_deadline_bounds_requests_and_retries(serve: Any) -> None:
    chat, _ = client("http://127.0.0.1:9/v1")
    with pytest.raises(EndpointDeadline, match="no time left"):
        chat.complete({}, deadline=time.monotonic() - 1)
    # A request cut by the deadline is not retried: the time is up.
    server = serve(Answer(delay=2.0))
    chat, sleeps = client(server.url, request_timeout=60)
    start = time.monotonic()
    with pytest.raises(EndpointDeadline, match="ran out while the endpoint failed: cannot reach"):
        chat.complete({}, deadline=time.monotonic() + 0.3)
    assert time.monotonic() - start < 1.5 and sleeps == [] and len(server.requests) == 1
    # A backoff is cut to the time left.
    server = serve(Answer(503, "busy"))
    chat = ChatClient(server.url, backoff=60.0, max_backoff=60.0)
    start = time.monotonic()
    with pytest.raises(EndpointDeadline):
        chat.complete({}, deadline=time.monotonic() + 0.5)
    assert time.monotonic() - start < 2


def test_a_malformed_url_fails_at_once() -> None:
    chat, sleeps = client("localhost:8000/v1")
    with pytest.raises(ValueError, match="cannot send a request"):
        chat.complete({})
    assert sleeps == []


def test_a_redirect_is_followed_with_the_request_kept(serve: Any) -> None:
    server = serve(Answer(307, "", {"Location": "/v2/chat/completions"}), Answer())
    chat, _ = client(server.url)
    assert chat.complete({"model": "m"}).attempts == 1
    assert [r["path"] for r in server.requests] == ["/v1/chat/completions", "/v2/chat/completions"]
    assert json.loads(server.requests[1]["body"]) == {"model": "m"}


def test_a_body_cut_short_is_retried_and_a_cut_error_body_leaves_the_status(serve: Any) -> None:
    body = json.dumps(COMPLETION)
    server = serve(Answer(body=body, length=len(body) + 100), Answer())
    chat, sleeps = client(server.url, backoff=0.0)
    assert chat.complete({}).attempts == 2 and len(sleeps) == 1
    server = serve(Answer(401, "denied", length=500))
    chat, _ = client(server.url)
    with pytest.raises(ModelEndpointError) as caught:
        chat.complete({})
    assert (caught.value.status, caught.value.body, caught.value.attempts) == (401, "", 1)


def test_a_proxy_comes_from_the_environment(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = serve(Answer())
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens there: only the proxy can answer
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", proxy.url.removesuffix("/v1"))
    chat, _ = client(f"http://127.0.0.1:{port}/v1", retries=0)
    assert chat.complete({}).message["content"] == "hi"
    assert [r["path"] for r in proxy.requests] == [f"http://127.0.0.1:{port}/v1/chat/completions"]
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    with pytest.raises(ModelEndpointError, match="cannot reach"):
        chat.complete({})
    assert len(proxy.requests) == 1


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command to make a CA")
def test_a_private_ca_is_trusted_through_the_system_store(
    serve: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A company's own CA, named by SSL_CERT_FILE as for urllib and curl, is trusted; certifi's
    bundle, which does not hold it, would refuse the endpoint."""
    from pytest_swe.agentkit import chat as chat_module

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    server = serve(Answer(), tls=tls)
    for name in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_DIR"):
        monkeypatch.delenv(name, raising=False)
    chat_module._system_tls.cache_clear()
    monkeypatch.setattr(chat_module, "_system_tls", chat_module._system_tls)
    try:
        chat, _ = client(server.url, retries=0)
        with pytest.raises(ModelEndpointError, match="CERTIFICATE_VERIFY_FAILED"):
            chat.complete({})
        chat_module._system_tls.cache_clear()
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        assert chat.complete({}).message["content"] == "hi"
    finally:
        chat_module._system_tls.cache_clear()
