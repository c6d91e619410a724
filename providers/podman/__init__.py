"""The Podman sandbox provider: the Docker provider's code over Podman's Docker-compatible API.

``podman system service`` serves the Docker Engine API on a Unix socket, and the docker SDK the
Docker provider is built on speaks it; what differs (the service, rlimits, cgroup paths, images
copied in from a local Docker engine) is in :mod:`.provider`.
"""

from __future__ import annotations

import pytest

from pytest_swe.api.sandbox import ProviderFactory

from .provider import DEFAULT_SOCKET
from .provider import PodmanProvider
from .provider import PodmanSandbox

__all__ = ["DEFAULT_SOCKET", "PodmanProvider", "PodmanSandbox"]


@pytest.hookimpl
def pytest_swe_providers() -> list[ProviderFactory]:
    return [PodmanProvider]
