"""pytest-swe: a pytest plugin that benchmarks coding agents on SWE-style datasets.

The names below are the public API for writing families, providers and agents as plugins;
everything else is internal to its layer (see ARCHITECTURE.md).
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

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

try:
    __version__ = _version("pytest-swe")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

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
