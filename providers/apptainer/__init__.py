"""The Apptainer sandbox provider (HPC clusters: no daemon, no root).

One instance per sandbox (``apptainer instance start --containall --no-home --writable-tmpfs``,
network off), commands through ``apptainer exec instance://NAME``, SIF images built once per digest
(:mod:`.provider`); the command lines and the parsing of Apptainer's output live in
:mod:`.commands`, one instance's commands and files in :mod:`.sandbox`.
"""

from __future__ import annotations

import pytest

from pytest_swe.api.sandbox import ProviderFactory

from .provider import ApptainerProvider
from .sandbox import ApptainerSandbox

__all__ = ["ApptainerProvider", "ApptainerSandbox"]


@pytest.hookimpl
def pytest_swe_providers() -> list[ProviderFactory]:
    return [ApptainerProvider]
