"""The run as pytest's header shows it: run id and directory, and each benchmark's choices."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import SweError
from pytest_swe.api.sandbox import Versioned
from pytest_swe.runner import options
from pytest_swe.runner.collect import benchmark_files
from pytest_swe.runner.session import get_session

if TYPE_CHECKING:
    import pytest

    from pytest_swe.api.settings import BenchmarkSettings
    from pytest_swe.runner.session import SweSession

MAX_HEADER_BENCHMARKS = 8


def header_lines(config: pytest.Config) -> list[str]:
    """The effective run: run id and directory, and each benchmark's family, agent and provider."""
    session = get_session(config)
    lines = [f"pytest-swe: run {session.run.run_id}, run dir {session.run_dir}"]
    agent = options.get(config, "--swe-agent") or "(per benchmark)"
    provider = options.get(config, "--swe-provider") or "(per benchmark)"
    lines.append(f"pytest-swe: agent {agent}, provider {provider}")
    files = sorted(set(benchmark_files(config)))
    versions: dict[str, str] = {}
    for path in files[:MAX_HEADER_BENCHMARKS]:
        try:
            s = session.settings_for(path)
        except ConfigError:
            continue  # reported with its full message at collection
        key = repr(sorted(s.provider.model_dump().items()))
        if key not in versions:
            versions[key] = provider_version(session, s)
        lines.append(
            f"pytest-swe: benchmark {s.name}: family {s.family}, agent {s.agent.name}, "
            f"provider {s.provider.name}{versions[key]}, "
            f"dataset {s.dataset.source} [{s.dataset.split}], timeouts agent {s.timeouts.agent:g}s eval {s.timeouts.eval:g}s"
        )
    if len(files) > MAX_HEADER_BENCHMARKS:
        lines.append(f"pytest-swe: ... and {len(files) - MAX_HEADER_BENCHMARKS} more benchmark files")
    extras = []
    if session.overrides:
        extras.append(f"--swe-set {session.overrides}")
    if session.extra_config:
        extras.append(f"--swe-config {session.extra_config}")
    shard = options.get(config, "--swe-shard")
    if shard:
        extras.append(f"shard {shard}")
    if session.keep:
        extras.append("keep sandboxes")
    if session.retries:
        extras.append(f"retries {session.retries}")
    if session.resumed:
        extras.append(f"resuming: {len(session.resumed)} finished items re-emitted")
    if extras:
        lines.append("pytest-swe: " + ", ".join(extras))
    return lines


def provider_version(session: SweSession, settings: BenchmarkSettings) -> str:
    """`` (Docker Engine 20.10.24)``: the engine a benchmark's provider runs on, when it can say;
    `` (unavailable)`` when it cannot be asked (the preflight says why), empty for an unknown provider."""
    try:
        provider = session.registry.providers.get(settings.provider.name)(
            settings.provider.model_dump(), session.run
        )
    except ConfigError:
        return ""  # an unknown provider or bad options: reported per item
    try:
        if not isinstance(provider, Versioned):
            return ""
        return f" ({provider.version()})"
    except SweError:
        return " (unavailable)"
    finally:
        provider.close()
