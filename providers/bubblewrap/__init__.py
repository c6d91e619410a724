"""The bubblewrap sandbox provider: rootless-capable, daemonless.

Images are unpacked once into read-only root filesystems cached by digest (:mod:`.images`); each
sandbox gets a writable layer on a size-limited filesystem (:mod:`.layer`), a keep-alive ``bwrap``
with every namespace unshared (no network: loopback only) whose namespaces each command enters
(:mod:`.sandbox`), and cgroups for its limits and for killing a command's whole process tree
(:mod:`.cgroups`). Its state is a directory, which ``reap`` reads (:mod:`.provider`).
"""

from __future__ import annotations

import pytest

from pytest_swe.api.sandbox import ProviderFactory

from .provider import BubblewrapProvider
from .sandbox import BubblewrapSandbox

__all__ = ["BubblewrapProvider", "BubblewrapSandbox"]


@pytest.hookimpl
def pytest_swe_providers() -> list[ProviderFactory]:
    return [BubblewrapProvider]
