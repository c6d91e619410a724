"""The docker SDK, imported on first use (it costs a tenth of a second at every pytest start), and
the errors a call to the engine can raise."""

from __future__ import annotations

import http.client
import os
from types import ModuleType

README_ENGINE_SECTION = "Starting the Docker engine"


def sdk() -> ModuleType:
    import docker

    module: ModuleType = docker
    return module


def engine_errors(*also: type[BaseException]) -> tuple[type[BaseException], ...]:
    """What a call to the engine raises when the engine, the connection or the request fails (and ``also``).

    The SDK's own errors, requests' (refused, reset, timed out), urllib3's and http.client's when a
    streamed body is cut, and OSError from the socket: a programming error still propagates.
    """
    import requests
    import urllib3

    docker = sdk()
    return (
        *also,
        docker.errors.DockerException,
        requests.exceptions.RequestException,
        urllib3.exceptions.HTTPError,
        http.client.HTTPException,
        OSError,
    )


def unreachable_message(exc: BaseException, host: str | None = None) -> str:
    host = host or os.environ.get("DOCKER_HOST") or "the local socket /var/run/docker.sock"
    return (
        f"cannot reach the Docker daemon at {host} ({exc}); start it (README section "
        f"'{README_ENGINE_SECTION}': bash scripts/setup.sh starts it) or choose another provider with --swe-provider"
    )
