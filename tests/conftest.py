"""Shared fixtures: a real Docker engine with the demo images, and pytester projects read back via JUnit."""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from pytest_swe import report

REPO = Path(__file__).resolve().parents[1]
DEMO_DIR = REPO / "benchmarks" / "demo"
DEMO_JSONL = DEMO_DIR / "demo.jsonl"
DEMO_IDS = [json.loads(line)["instance_id"] for line in DEMO_JSONL.read_text().splitlines() if line.strip()]
IN_CI = os.environ.get("CI", "").lower() == "true"


def _shared_data() -> Path:
    """The published SWE-bench rows: ``PYTEST_SWE_SHARED_DATA``, else ``../shared/data`` beside the
    repository, else the workplace's ``/work/shared/data`` (a clone elsewhere still finds them)."""
    candidates = [os.environ.get("PYTEST_SWE_SHARED_DATA"), REPO.parent / "shared" / "data", "/work/shared/data"]
    for candidate in candidates:
        if candidate and Path(candidate, "swebench-lite").is_dir():
            return Path(candidate)
    return Path(candidates[1])


SHARED_DATA = _shared_data()


def docker_client() -> Any:
    import docker

    client = docker.from_env(timeout=300)
    client.ping()
    return client


def _require_docker() -> Any:
    try:
        return docker_client()
    except Exception as exc:
        message = f"these tests need a running Docker engine ({exc}); .ci/run starts one"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="session")
def docker_engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A client of the real Docker engine; fails in CI when it is missing, skips elsewhere."""
    return _require_docker()


def _build_lock(tmp_path_factory: pytest.TempPathFactory) -> FileLock:
    return FileLock(str(tmp_path_factory.getbasetemp().parent / "images.lock"))


@pytest.fixture(scope="session")
def base_image(docker_engine: Any, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The base image (Debian 12, Python, pytest, git), built once if absent."""
    from pytest_swe import images

    with _build_lock(tmp_path_factory):
        images.build_base(docker_engine, log=lambda _: None)
    return images.BASE_IMAGE


@pytest.fixture(scope="session")
def demo_images(docker_engine: Any, base_image: str, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Every demo image, built once (under a lock shared by xdist workers)."""
    from pytest_swe import images
    from pytest_swe.cli import _load_benchmark

    with _build_lock(tmp_path_factory):
        settings, family, rows = _load_benchmark(str(REPO / "benchmarks" / "demo.yaml"))
        images.build_benchmark_images(docker_engine, settings, family, rows, log=lambda _: None)
    return [row["image"] for row in rows]


def labelled_containers(client: Any, **labels: str) -> list[dict[str, Any]]:
    """Containers carrying the pytest-swe label (and these label values), as listed by the engine."""
    filters = ["pytest-swe"] + [f"pytest-swe.{k}={v}" for k, v in labels.items()]
    return client.api.containers(all=True, filters={"label": filters})


@dataclass
class SweRun:
    """A finished pytester run of pytest-swe, with its JUnit ledger read back."""

    result: pytest.RunResult
    junit: Path
    run_dir: Path
    cases: list[report.Case] = field(default_factory=list)
    suite: dict[str, str] = field(default_factory=dict)

    @property
    def by_id(self) -> dict[str, report.Case]:
        return {c.instance_id: c for c in self.cases}

    def outcomes(self) -> dict[str, str]:
        return {c.instance_id: c.outcome for c in self.cases}

    def ledger(self) -> list[dict[str, Any]]:
        path = self.run_dir / "ledger.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class SweProject:
    """A pytester project holding benchmark files; runs pytest in a subprocess, as a user would."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        self.path = pytester.path
        (self.path / "benchmarks").mkdir(exist_ok=True)
        self.runs = 0

    def benchmark(self, name: str, body: str) -> Path:
        path = self.path / "benchmarks" / f"{name}.yaml"
        path.write_text(textwrap.dedent(body))
        return path

    def demo(self, name: str = "demo", extra: str = "", dataset: Path = DEMO_JSONL) -> Path:
        """A benchmark over the repository's demo dataset (and its locally built images)."""
        return self.benchmark(
            name,
            f"""
            name: {name}
            family: swe-bench
            dataset: {{source: {dataset}, split: test}}
            markers: [demo]
            agent: gold
            provider: docker
            timeouts: {{agent: 300, eval: 300}}
            limits: {{memory: 1g, cpus: 1, pids: 512}}
            """
            + textwrap.dedent(extra),
        )

    def run(self, *args: str, timeout: float = 600) -> SweRun:
        self.runs += 1
        junit = self.path / f"junit-{self.runs}.xml"
        run_dir = self.path / f"run-{self.runs}"
        result = self.pytester.runpytest_subprocess(
            *args, f"--junitxml={junit}", f"--swe-run-dir={run_dir}", "-p", "no:cacheprovider", timeout=timeout
        )
        run = SweRun(result, junit, run_dir)
        if junit.exists():
            run.cases = report.read_cases(junit)
            run.suite = report.read_suite_properties(junit)
        return run


@pytest.fixture
def swe_project(pytester: pytest.Pytester) -> Iterator[SweProject]:
    yield SweProject(pytester)


@pytest.fixture
def isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private pytest-swe cache (dataset indexes, downloads) for this test."""
    cache = tmp_path / "swe-cache"
    monkeypatch.setenv("PYTEST_SWE_CACHE", str(cache))
    return cache


def copy_demo_dataset(dest: Path) -> Path:
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(DEMO_JSONL, dest)
    return dest
