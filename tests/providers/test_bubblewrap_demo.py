"""The demo benchmark under bubblewrap with no Docker daemon: ``pytest-swe images benchmarks/demo.yaml
--provider bubblewrap`` once, then ``pytest ... --swe-provider bubblewrap -n 2`` with DOCKER_HOST on a
dead socket resolves every row with gold and none with empty (read back from the JUnit XML), and no
container of the run exists in the real engine."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pytest_swe.api.errors import InfraError
from pytest_swe.api.sandbox import this_run
from pytest_swe.providers.bubblewrap import BubblewrapProvider

from .conftest import DEMO_YAML
from .conftest import unavailable
from conftest import DEMO_IDS
from conftest import REPO
from conftest import SweProject
from conftest import labelled_containers
from conftest import require_docker

DEAD_DOCKER = "unix:///nonexistent/pytest-swe-bwrap-demo.sock"


def test_demo_runs_without_a_docker_daemon(swe_project: SweProject, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        BubblewrapProvider({}, this_run()).preflight()
    except InfraError as exc:
        unavailable("bubblewrap", str(exc))
    engine = require_docker()  # the images come from the engine once, as `pytest-swe images` takes them
    images = subprocess.run(
        [sys.executable, "-m", "pytest_swe.tools.cli", "images", str(DEMO_YAML), "--provider", "bubblewrap"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert images.returncode == 0, images.stderr[-3000:]

    monkeypatch.setenv("DOCKER_HOST", DEAD_DOCKER)
    swe_project.demo("demo-gold", extra="agent: gold\n")
    swe_project.demo("demo-empty", extra="agent: empty\n")
    run = swe_project.run("benchmarks/", "-n", "2", "--swe-provider", "bubblewrap", timeout=1200)
    outcomes: dict[str, dict[str, str]] = {}
    for case in run.cases:
        assert case.properties["provider"] == "bubblewrap"
        outcomes.setdefault(case.properties["benchmark"], {})[case.instance_id] = case.outcome
    tail = run.result.stdout.str()[-3000:]
    assert outcomes.get("demo-gold") == dict.fromkeys(DEMO_IDS, "passed"), tail
    assert outcomes.get("demo-empty") == dict.fromkeys(DEMO_IDS, "failed"), tail
    run_id = run.suite.get("run_id") or run.cases[0].properties["run_id"]
    assert labelled_containers(engine, run=run_id) == []
    assert BubblewrapProvider({}, this_run()).reap(run_id=run_id, kept=None) == []
