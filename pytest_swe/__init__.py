"""pytest-swe: a pytest plugin that benchmarks coding agents on SWE-style datasets.

The names below are the public API for writing families, providers and agents as plugins;
everything else is internal to its layer (see ARCHITECTURE.md). They are imported when first
used: the plugin loads in every pytest run of an environment it is installed in, and a run with
no benchmark in it should not pay for pydantic and the rest.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING
from typing import Any

if TYPE_CHECKING:
    from pytest_swe.api.agent import Agent
    from pytest_swe.api.agent import AgentContext
    from pytest_swe.api.agent import AgentFactory
    from pytest_swe.api.agent import AgentResult
    from pytest_swe.api.agent import ExitStatus
    from pytest_swe.api.agent import Usage
    from pytest_swe.api.errors import ConfigError
    from pytest_swe.api.errors import DatasetUnavailable
    from pytest_swe.api.errors import InfraError
    from pytest_swe.api.errors import NotApplicable
    from pytest_swe.api.errors import RowError
    from pytest_swe.api.errors import SweError
    from pytest_swe.api.family import BaseFamily
    from pytest_swe.api.family import EvalContext
    from pytest_swe.api.family import Family
    from pytest_swe.api.sandbox import CleanupResult
    from pytest_swe.api.sandbox import ExecResult
    from pytest_swe.api.sandbox import Provider
    from pytest_swe.api.sandbox import ProviderFactory
    from pytest_swe.api.sandbox import RunInfo
    from pytest_swe.api.sandbox import Sandbox
    from pytest_swe.api.sandbox import SandboxSpec
    from pytest_swe.api.settings import BenchmarkSettings
    from pytest_swe.api.task import Task
    from pytest_swe.api.verdict import Verdict

    __version__: str

_HOMES = {
    "pytest_swe.api.agent": ("Agent", "AgentContext", "AgentFactory", "AgentResult", "ExitStatus", "Usage"),
    "pytest_swe.api.errors": (
        "ConfigError",
        "DatasetUnavailable",
        "InfraError",
        "NotApplicable",
        "RowError",
        "SweError",
    ),
    "pytest_swe.api.family": ("BaseFamily", "EvalContext", "Family"),
    "pytest_swe.api.sandbox": (
        "CleanupResult",
        "ExecResult",
        "Provider",
        "ProviderFactory",
        "RunInfo",
        "Sandbox",
        "SandboxSpec",
    ),
    "pytest_swe.api.settings": ("BenchmarkSettings",),
    "pytest_swe.api.task": ("Task",),
    "pytest_swe.api.verdict": ("Verdict",),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "Agent",
    "AgentContext",
    "AgentFactory",
    "AgentResult",
    "BaseFamily",
    "BenchmarkSettings",
    "CleanupResult",
    "ConfigError",
    "DatasetUnavailable",
    "EvalContext",
    "ExecResult",
    "ExitStatus",
    "Family",
    "InfraError",
    "NotApplicable",
    "Provider",
    "ProviderFactory",
    "RowError",
    "RunInfo",
    "Sandbox",
    "SandboxSpec",
    "SweError",
    "Task",
    "Usage",
    "Verdict",
    "__version__",
]


def _installed_version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version

    try:
        return version("pytest-swe")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0.0.0"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value: Any = _installed_version()
    elif name in _HOME_OF:
        value = getattr(importlib.import_module(_HOME_OF[name]), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
