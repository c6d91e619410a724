"""`pytest-swe reap` removes what dead runs left behind, and nothing that is still owned."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any

import pytest

from pytest_swe.api.sandbox import SandboxSpec
from pytest_swe.api.sandbox import this_run
from pytest_swe.providers.docker import DockerProvider
from pytest_swe.tools.images import BASE_IMAGE

from conftest import SweProject
from conftest import labelled_containers

pytestmark = pytest.mark.docker

ORPHAN = (
    "import os, signal\n"
    "from pytest_swe.providers.docker import DockerProvider; from pytest_swe.api.sandbox import this_run\n"
    "from pytest_swe.api.sandbox import SandboxSpec\n"
    "p = DockerProvider({{'name': 'docker'}}, this_run(run_id={run_id!r}))\n"
    "p.create(SandboxSpec(image={image!r}))\n"
    "os.kill(os.getpid(), signal.SIGKILL)\n"
)


def reap(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_swe.tools.cli", "reap", *args], capture_output=True, text=True
    )


def test_reap_removes_orphans_but_not_live_runs(docker_engine: Any, base_image: str) -> None:
    dead_run = f"dead-{os.getpid()}-{time.monotonic_ns()}"
    subprocess.run([sys.executable, "-c", ORPHAN.format(run_id=dead_run, image=BASE_IMAGE)], check=False)
    live = DockerProvider({"name": "docker"}, this_run(run_id=f"live-{os.getpid()}-{time.monotonic_ns()}"))
    sandbox = live.create(SandboxSpec(image=BASE_IMAGE))
    try:
        assert len(labelled_containers(docker_engine, run=dead_run)) == 1
        out = reap()
        assert out.returncode == 0, out.stderr
        assert "removed" in out.stdout
        assert not labelled_containers(docker_engine, run=dead_run)
        assert labelled_containers(docker_engine, run=live.run.run_id), "a live run's sandbox was reaped"
        by_run = reap("--run", live.run.run_id)
        assert by_run.returncode == 0 and "removed 1 sandbox" in by_run.stdout
        assert not labelled_containers(docker_engine, run=live.run.run_id)
    finally:
        sandbox.close()


def test_kept_sandboxes_have_a_way_out(
    swe_project: SweProject, demo_images: list[str], docker_engine: Any
) -> None:
    swe_project.demo("keepdemo")
    runs: list[str] = []
    try:
        first = swe_project.run("benchmarks/", "-k", "calc", "--swe-keep", subprocess=True)
        runs.append(run_id := first.suite["run_id"])
        assert (
            len(labelled_containers(docker_engine, run=run_id, keep="1")) == 1
        )  # the eval's (gold has no agent's)
        assert f"pytest-swe reap --kept --run {run_id}" in first.result.stdout.str()
        assert "removed 0" in reap("--run", run_id).stdout, "a plain --run leaves kept sandboxes alone"
        out = reap("--kept", "--run", run_id)
        assert out.returncode == 0 and "removed 1 sandbox" in out.stdout, out.stdout + out.stderr
        assert not labelled_containers(docker_engine, run=run_id)

        second = swe_project.run("benchmarks/", "-k", "calc", "--swe-keep", subprocess=True)
        runs.append(run_id := second.suite["run_id"])
        assert labelled_containers(docker_engine, run=run_id, keep="1")
        out = reap("--run", run_id, "--all")
        assert out.returncode == 0 and "removed 1 sandbox" in out.stdout, out.stdout + out.stderr
        assert not labelled_containers(docker_engine, run=run_id)
    finally:
        for run_id in runs:
            for info in labelled_containers(docker_engine, run=run_id):
                docker_engine.api.remove_container(info["Id"], force=True)


@pytest.mark.parametrize(
    ("keep", "kept", "orphan", "taken"),
    [
        ("0", False, None, True),  # a run's own sandboxes go, the kept ones stay
        ("1", False, None, False),
        ("1", True, None, True),  # --kept: only the kept ones
        ("0", True, None, False),
        ("1", None, None, True),  # both
        ("0", None, None, True),
        ("1", False, True, True),  # an orphan reap follows the orphan rule alone (ttl ends a kept one)
        ("0", False, False, False),
    ],
)
def test_which_sandboxes_a_reap_takes(keep: str, kept: bool | None, orphan: bool | None, taken: bool) -> None:
    """One selection rule for every provider's ``reap`` (``api.sandbox.reap_takes``)."""
    from pytest_swe.api.sandbox import reap_takes

    assert reap_takes({"pytest-swe.keep": keep}, kept=kept, orphan=orphan) is taken
