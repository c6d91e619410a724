"""The Docker provider's read-only questions asked without the SDK (``providers/docker/queries.py``):
the same answers as the SDK's from a real engine, and the same errors when the engine is missing or
answers badly (a real HTTP server on a Unix socket)."""

from __future__ import annotations

import http.server
import os
import socketserver
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.api.errors import InfraError
from pytest_swe.api.sandbox import SandboxSpec
from pytest_swe.api.sandbox import this_run
from pytest_swe.providers.docker import DockerProvider
from pytest_swe.providers.docker.queries import EngineAnswer
from pytest_swe.providers.docker.queries import SocketQueries
from pytest_swe.providers.docker.queries import socket_of
from pytest_swe.tools.images import BASE_IMAGE


@pytest.mark.parametrize(
    ("host", "env", "path"),
    [
        (None, None, "/var/run/docker.sock"),
        ("", "", "/var/run/docker.sock"),
        ("unix://", None, "/var/run/docker.sock"),
        ("unix:///run/podman/podman.sock", None, "/run/podman/podman.sock"),
        ("http+unix:///tmp/e.sock", None, "/tmp/e.sock"),
        (None, "unix:///tmp/from-env.sock", "/tmp/from-env.sock"),
        ("unix:///tmp/option.sock", "tcp://10.0.0.1:2375", "/tmp/option.sock"),
        (None, "tcp://10.0.0.1:2375", None),
        ("ssh://user@build-host", None, None),
        ("tcp://127.0.0.1:2376", None, None),
        ("npipe:////./pipe/docker_engine", None, None),
        ("unix://var/run/docker.sock", None, None),  # the legacy relative form: the SDK reads it
    ],
)
def test_which_engines_are_asked_without_the_sdk(
    host: str | None, env: str | None, path: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if env is None:
        monkeypatch.delenv("DOCKER_HOST", raising=False)
    else:
        monkeypatch.setenv("DOCKER_HOST", env)
    assert socket_of(host) == path


class _UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


@pytest.fixture
def engine_answers(tmp_path: Path) -> Iterator[tuple[str, dict[str, tuple[int, bytes]]]]:
    """A real HTTP server on a Unix socket that answers each path as told (404 otherwise)."""
    answers: dict[str, tuple[int, bytes]] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, body = answers.get(self.path.split("?")[0], (404, b'{"message": "no such thing"}'))
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def address_string(self) -> str:
            return "unix"

        def log_message(self, *args: Any) -> None:
            pass

    path = str(tmp_path / "engine.sock")
    server = _UnixHTTPServer(path, Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield path, answers
    server.shutdown()
    server.server_close()


def test_error_answers_are_engine_errors_with_the_engine_message(
    engine_answers: tuple[str, dict[str, tuple[int, bytes]]],
) -> None:
    path, answers = engine_answers
    queries = SocketQueries(path, timeout=5)
    assert queries.inspect_image("absent:1") is None  # 404: no such image
    answers["/images/broken:1/json"] = (500, b'{"message": "layer store is corrupt"}')
    with pytest.raises(EngineAnswer, match="500: layer store is corrupt"):
        queries.inspect_image("broken:1")
    answers["/_ping"] = (503, b"starting")
    with pytest.raises(EngineAnswer, match="503: starting"):
        queries.ping()
    answers["/version"] = (200, b"<html>a proxy's page</html>")
    with pytest.raises(ValueError):
        queries.version()
    with pytest.raises(EngineAnswer, match="404"):
        queries.containers(["pytest-swe"])


def test_the_provider_turns_them_into_infrastructure_errors(
    engine_answers: tuple[str, dict[str, tuple[int, bytes]]], tmp_path: Path
) -> None:
    path, answers = engine_answers
    answers["/images/broken:1/json"] = (500, b'{"message": "layer store is corrupt"}')
    answers["/_ping"] = (500, b"down")
    provider = DockerProvider({"name": "docker", "host": f"unix://{path}"}, this_run())
    with pytest.raises(InfraError, match="cannot inspect image broken:1: 500: layer store is corrupt") as err:
        provider.image_id("broken:1")
    assert err.value.kind == "provider_unavailable"
    with pytest.raises(InfraError, match="cannot reach the Docker daemon") as err:
        provider.preflight(timeout=5)
    assert err.value.kind == "provider_unavailable"
    assert provider.reap(run_id="any") == []  # no listing: nothing to remove, no error

    missing = DockerProvider({"name": "docker", "host": f"unix://{tmp_path / 'none.sock'}"}, this_run())
    for ask in (
        lambda: missing.preflight(timeout=5),
        lambda: missing.version(),
        lambda: missing.image_exists("x:1"),
    ):
        with pytest.raises(InfraError, match=f"cannot reach the Docker daemon at unix://{tmp_path}") as err:
            ask()
        assert err.value.kind == "provider_unavailable"


@pytest.mark.docker
def test_answers_are_the_sdks_from_a_real_engine(docker_engine: Any, base_image: str) -> None:
    if socket_of(None) is None:
        pytest.skip("DOCKER_HOST is not a Unix socket here")
    queries = SocketQueries(str(socket_of(None)), timeout=30)
    queries.ping()
    assert queries.version()["Version"] == docker_engine.version()["Version"]
    assert queries.inspect_image(BASE_IMAGE)["Id"] == docker_engine.api.inspect_image(BASE_IMAGE)["Id"]
    assert queries.inspect_image("pytest-swe-no-such-image:never") is None

    run = this_run(run_id=f"test-queries-{os.getpid()}-{time.monotonic_ns()}")
    provider = DockerProvider({"name": "docker", "pull": "never"}, run)
    try:
        assert provider.image_id(BASE_IMAGE) == docker_engine.images.get(BASE_IMAGE).id
        assert provider.image_exists(BASE_IMAGE) and not provider.image_exists(
            "pytest-swe-no-such-image:never"
        )
        assert provider.version().startswith("Docker Engine ")
        sandboxes = [provider.create(SandboxSpec(image=BASE_IMAGE, workdir="/tmp")) for _ in range(2)]
        labels = ["pytest-swe", f"pytest-swe.run={run.run_id}"]
        mine = {c["Id"] for c in queries.containers(labels)}
        assert mine == {c["Id"] for c in docker_engine.api.containers(all=True, filters={"label": labels})}
        assert len(mine) == 2
        assert sorted(provider.reap(run_id=run.run_id)) == sorted(c[:12] for c in mine)
        assert queries.containers(labels) == []
        for sandbox in sandboxes:
            sandbox.close()
    finally:
        provider.reap(run_id=run.run_id)
        provider.close()
