"""Run-wide checks made once, on the controller, after collection and before any item runs.

A fault that every item would meet (the predictions file cannot be read, the Docker engine
does not answer, the model endpoint refuses connections) is one usage error (exit code 4)
that names the file, option or URL, instead of one identical error per item. Problems that
touch only some predictions are warnings, printed once per run.
"""

from __future__ import annotations

import os
import socket
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import Protocol
from typing import runtime_checkable

import pytest

from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import SweError
from pytest_swe.api.sandbox import Preflight

if TYPE_CHECKING:
    from pytest_swe.api.settings import BenchmarkSettings
    from pytest_swe.runner.session import SweSession

ENDPOINT_TIMEOUT = 3.0
PROVIDER_TIMEOUT = 10.0


class SwePredictionsWarning(pytest.PytestWarning):
    """Some predictions could not be used, or match no row of the benchmarks that read them."""


class SweAgentWarning(pytest.PytestWarning):
    """An agent's settings will not do what they seem to (e.g. its API key variable is unset)."""


@dataclass(frozen=True)
class Target:
    """One item that will run: its benchmark's settings and its instance id."""

    settings: BenchmarkSettings
    instance_id: str
    nodeid: str = ""


def targets_from_nodeids(session: SweSession, rootpath: Path, nodeids: Iterable[str]) -> list[Target]:
    """The benchmark items among xdist's collected node ids (``file.yaml::benchmark::instance``)."""
    out = []
    for nodeid in nodeids:
        parts = nodeid.split("::")
        if (
            len(parts) != 3
            or not parts[0].endswith((".yaml", ".yml"))
            or parts[2].endswith("[dataset-unavailable]")
        ):
            continue
        try:
            settings = session.settings_for(rootpath / parts[0])
        except ConfigError:
            continue
        out.append(Target(settings, parts[2].split("[", 1)[0], nodeid))
    return out


def check(config: pytest.Config, session: SweSession, targets: list[Target]) -> None:
    """Raise one :class:`pytest.UsageError` for every run-wide fault; warn about partial ones."""
    from pytest_swe.runner.properties import instance_key

    targets = [t for t in targets if instance_key(t.settings.name, t.instance_id) not in session.resumed]
    if not targets:
        return
    problems: list[str] = []
    problems += _check_predictions(config, session, targets)
    problems += _check_providers(session, targets)
    problems += _check_endpoints(config, session, targets)
    if not problems:
        from pytest_swe.runner import budget

        plans = budget.plan(session, targets)
        problems += budget.check_images(plans, budgeted=budget.limit_of(config) is not None)
        if not problems:
            budget.start(config, session, plans)
    if problems:
        raise pytest.UsageError(
            "pytest-swe: no item was run:\n" + "\n".join(f"  {p}" for p in dict.fromkeys(problems))
        )


def _distinct(targets: list[Target]) -> dict[str, BenchmarkSettings]:
    by_name: dict[str, BenchmarkSettings] = {}
    for target in targets:
        by_name.setdefault(target.settings.name, target.settings)
    return by_name


# --- predictions -------------------------------------------------------------------------------


def _check_predictions(config: pytest.Config, session: SweSession, targets: list[Target]) -> list[str]:
    from pytest_swe.agents.predictions import PredictionsAgent
    from pytest_swe.agents.predictions import PredictionsFileError
    from pytest_swe.agents.predictions import listed

    files: dict[tuple[str, str], list[BenchmarkSettings]] = {}
    for settings in _distinct(targets).values():
        section = settings.agent.model_dump()
        if settings.agent.name != "predictions" or not section.get("predictions"):
            continue
        key = (str(section["predictions"]), str(section.get("predictions_duplicates") or "error"))
        files.setdefault(key, []).append(settings)
    problems = []
    for (path, duplicates), benchmarks in files.items():
        agent = PredictionsAgent({"predictions": path, "predictions_duplicates": duplicates})
        try:
            predictions = agent.predictions()
        except PredictionsFileError as exc:
            problems.append(str(exc))
            continue
        except ConfigError as exc:
            problems.append(f"predictions file {path}: {exc}")
            continue
        if predictions.unreadable:
            _warn(
                config,
                f"predictions file {path}: {len(predictions.unreadable)} entr"
                f"{'y' if len(predictions.unreadable) == 1 else 'ies'} without a readable instance id, "
                f"ignored: {listed(predictions.unreadable)}",
            )
        if predictions.duplicates and duplicates != "error":
            _warn(
                config,
                f"predictions file {path}: {len(predictions.duplicates)} instance id(s) given more than once, the "
                f"{duplicates} one counts (--swe-predictions-duplicates {duplicates}): "
                f"{listed(sorted(predictions.duplicates))}",
            )
        known: set[str] = set()
        names: list[str] = []
        for settings in benchmarks:
            ids = _dataset_ids(session, settings)
            if ids is None:
                known = set()
                names = []
                break
            known |= ids
            names.append(settings.name)
        unknown = sorted(predictions.ids - known) if names else []
        if unknown:
            _warn(
                config,
                f"predictions file {path}: {len(unknown)} prediction(s) match no row of benchmark "
                f"{', '.join(names)}: {listed(unknown)}",
            )
    return problems


def _dataset_ids(session: SweSession, settings: BenchmarkSettings) -> set[str] | None:
    try:
        family = session.registry.families.get(settings.family)
        return {ref.instance_id for ref in session.index_for(settings, family).refs() if ref.instance_id}
    except (SweError, OSError):
        return None


def _warn(config: pytest.Config, message: str) -> None:
    config.issue_config_time_warning(SwePredictionsWarning(message), stacklevel=2)


# --- sandbox providers -------------------------------------------------------------------------


def _check_providers(session: SweSession, targets: list[Target]) -> list[str]:
    seen: dict[str, list[str]] = {}
    options: dict[str, tuple[str, dict[str, Any]]] = {}
    for settings in _distinct(targets).values():
        opts = settings.provider.model_dump()
        key = repr(sorted(opts.items()))
        seen.setdefault(key, []).append(settings.name)
        options[key] = (settings.provider.name, opts)
    problems = []
    for key, (name, opts) in options.items():
        try:
            factory = session.registry.providers.get(name)
            provider = factory(opts, session.run)
        except ConfigError:
            continue  # reported per item, with the benchmark file
        if not isinstance(provider, Preflight):
            continue
        try:
            provider.preflight(timeout=PROVIDER_TIMEOUT)
        except SweError as exc:
            message = exc.args[0] if exc.args else str(exc)
            problems.append(f"provider {name!r} (benchmark {', '.join(seen[key])}): {message}")
    return problems


# --- model endpoints ---------------------------------------------------------------------------


@runtime_checkable
class CallsEndpoint(Protocol):
    """An agent that calls a model endpoint (its ``endpoint`` is an agentkit ``ModelEndpoint``)."""

    endpoint: object


def endpoint_url(agent: object) -> str | None:
    """The model endpoint an agent will call (``agent.endpoint.base_url``), if it has one."""
    if not isinstance(agent, CallsEndpoint):
        return None
    from pytest_swe.agentkit.endpoint import ModelEndpoint

    endpoint = agent.endpoint
    if isinstance(endpoint, ModelEndpoint) and endpoint.base_url:
        return endpoint.base_url
    return None


def endpoint_problem(url: str, timeout: float = ENDPOINT_TIMEOUT) -> str | None:
    """None when ``url``'s host accepts a TCP connection within ``timeout``, else why not."""
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        return None  # the agent reports a malformed URL itself
    try:
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
    except ValueError:
        return None
    host = parsed.hostname
    if _proxied(host):
        return None  # reached through a proxy: a direct connect says nothing
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except TimeoutError:
        return f"no answer from {host}:{port} within {timeout:g} s"
    except socket.gaierror as exc:
        return f"cannot resolve {host!r} ({exc.strerror or exc})"
    except OSError as exc:
        return f"{host}:{port} refuses connections ({exc.strerror or exc})"


def _proxied(host: str) -> bool:
    if host in ("localhost", "127.0.0.1", "::1") or host.startswith("127."):
        return False
    proxy = any(
        os.environ.get(v) for v in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY")
    )
    return proxy


def unset_key_variable(agent: object) -> str | None:
    """The name in the agent's ``api_key_env`` when that variable is unset (no auth header is sent)."""
    from pytest_swe.agentkit.endpoint import ModelEndpoint

    endpoint = agent.endpoint if isinstance(agent, CallsEndpoint) else None
    if isinstance(endpoint, ModelEndpoint) and endpoint.api_key_env and endpoint.api_key() is None:
        return endpoint.api_key_env
    return None


def _check_endpoints(config: pytest.Config, session: SweSession, targets: list[Target]) -> list[str]:
    urls: dict[str, list[str]] = {}
    unset: dict[str, list[str]] = {}
    for settings in _distinct(targets).values():
        try:
            factory = session.registry.agents.get(settings.agent.name)
            agent = factory(settings.agent.model_dump())
        except Exception:
            continue  # a bad agent configuration is reported per item, with its reason
        user = f"{settings.name} (agent {settings.agent.name})"
        url = endpoint_url(agent)
        if url:
            urls.setdefault(url, []).append(user)
        variable = unset_key_variable(agent)
        if variable:
            unset.setdefault(variable, []).append(user)
    for variable, users in unset.items():
        config.issue_config_time_warning(
            SweAgentWarning(
                f"agent.api_key_env names {variable}, which is not set: benchmark {', '.join(users)} will call "
                f"its model without an API key; set {variable}, or agent.api_key_env=null for an endpoint "
                "that needs none"
            ),
            stacklevel=2,
        )
    problems = []
    for url, users in urls.items():
        problem = endpoint_problem(url)
        if problem:
            problems.append(
                f"model endpoint {url} of benchmark {', '.join(users)}: {problem}; start the model server "
                "or point agent.base_url at one (--swe-set agent.base_url=...)"
            )
    return problems
