"""``provider: docker``: which provider a benchmark's options ask for.

Apart from :mod:`.pool`, which a run imports only when ``hosts`` lists several engines.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING
from typing import Any

from pytest_swe.api.sandbox import RunInfo

from .provider import DockerProvider

if TYPE_CHECKING:
    from .pool import DockerPool


class DockerFactory:
    """``provider: docker``: the one engine of ``host`` (or DOCKER_HOST), or a pool when ``hosts`` lists several."""

    name = "docker"
    capabilities = DockerProvider.capabilities

    def __call__(self, options: Mapping[str, Any], run: RunInfo) -> DockerProvider | DockerPool:
        if options.get("hosts"):
            from .pool import DockerPool

            return DockerPool(options, run)
        return DockerProvider(options, run)
