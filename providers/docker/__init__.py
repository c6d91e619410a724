"""The Docker sandbox provider (docker SDK).

One container per sandbox. The image's entrypoint is replaced by ``docker-init`` with a
``sleep <ttl>`` keep-alive, so a container ends itself (and, with auto-remove, disappears)
even if the process that created it is killed with SIGKILL. Every container carries the
``pytest-swe`` label plus the run id, the owner's pid, host and start time, so orphans
can be found and removed by the next run or by ``pytest-swe reap``.

Modules: :mod:`.provider` (creating, removing, reaping), :mod:`.sandbox` (one container: exec,
files, limits), :mod:`.stream` (an exec's output), :mod:`.images` (pull policy, builds),
:mod:`.pool` (several engines as one provider, with ``hosts:``), :mod:`.placement` (where a
pool's sandbox goes, its load counted across processes) and :mod:`.queries` (the read-only
questions a run replayed from the verdict cache asks, over a local socket without the SDK).
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_swe.api.sandbox import ProviderFactory

from .engine import README_ENGINE_SECTION
from .engine import unreachable_message
from .factory import DockerFactory
from .provider import DockerProvider
from .provider import parse_size
from .sandbox import DockerSandbox

__all__ = [
    "README_ENGINE_SECTION",
    "DockerPool",
    "DockerProvider",
    "DockerSandbox",
    "parse_size",
    "unreachable_message",
]


def __getattr__(name: str) -> Any:
    """:class:`DockerPool` on first use: a run without ``hosts`` does not import the pool."""
    if name == "DockerPool":
        from .pool import DockerPool

        return DockerPool
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@pytest.hookimpl
def pytest_swe_providers() -> list[ProviderFactory]:
    return [DockerFactory()]
