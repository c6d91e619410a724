"""The Docker daemon stops mid-run: in-flight items error, the run finishes, resume completes the rest.

Runs a second, private Docker engine (its own socket, data root and containerd namespace)
so stopping it cannot disturb the engine other tests use.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.api.errors import InfraError
from pytest_swe.api.sandbox import SandboxSpec
from pytest_swe.api.sandbox import this_run
from pytest_swe.providers.docker import DockerProvider
from pytest_swe.tools import report

from conftest import DEMO_IDS
from conftest import SweProject

pytestmark = pytest.mark.docker


class PrivateEngine:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.socket = root / "docker.sock"
        self.host = f"unix://{self.socket}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        import docker

        log = open(self.root / "dockerd.log", "ab")  # noqa: SIM115  (the daemon writes to it until stopped)
        self.proc = subprocess.Popen(
            [
                "dockerd",
                "--data-root",
                str(self.root / "data"),
                "--exec-root",
                str(self.root / "exec"),
                "--pidfile",
                str(self.root / "docker.pid"),
                "-H",
                self.host,
                "--bridge=none",
                "--containerd-namespace",
                "pytest-swe-fault",
                "--containerd-plugins-namespace",
                "pytest-swe-fault-p",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                docker.DockerClient(base_url=self.host, timeout=5).ping()
                return
            except Exception:
                time.sleep(0.5)
        raise RuntimeError(
            f"private dockerd did not start: {(self.root / 'dockerd.log').read_text()[-2000:]}"
        )

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=60)
        self.proc = None

    def client(self) -> Any:
        import docker

        return docker.DockerClient(base_url=self.host, timeout=300)


@pytest.fixture
def private_engine(docker_engine: Any, demo_images: list[str]) -> Iterator[PrivateEngine]:
    if shutil.which("dockerd") is None:
        pytest.fail("dockerd not installed")
    root = Path(f"/tmp/pytest-swe-fault-{os.getpid()}")  # short: unix socket paths are limited
    root.mkdir(parents=True, exist_ok=True)
    engine = PrivateEngine(root)
    engine.start()
    try:
        save = subprocess.Popen(["docker", "save", *demo_images], stdout=subprocess.PIPE)
        load = subprocess.run(
            ["docker", "-H", engine.host, "load", "-q"], stdin=save.stdout, capture_output=True
        )
        save.wait()
        assert load.returncode == 0 and save.returncode == 0, load.stderr
        yield engine
    finally:
        engine.stop()
        subprocess.run(["rm", "-rf", str(root)], check=False)


def labelled(engine: PrivateEngine) -> list[dict[str, Any]]:
    return engine.client().api.containers(all=True, filters={"label": ["pytest-swe"]})


def test_daemon_stop_midrun_then_resume(
    swe_project: SweProject, private_engine: PrivateEngine, tmp_path: Path
) -> None:
    swe_project.demo("faultdemo")
    run_dir = tmp_path / "run"
    env = {**os.environ, "DOCKER_HOST": private_engine.host}
    junit1 = tmp_path / "first.xml"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "benchmarks/",
            "-p",
            "no:cacheprovider",
            f"--swe-run-dir={run_dir}",
            f"--junitxml={junit1}",
        ],
        cwd=swe_project.path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    ledger = run_dir / "ledger.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not ledger.exists() or len(ledger.read_text().splitlines()) < 2):
        time.sleep(0.2)
    private_engine.stop()
    out, _ = proc.communicate(timeout=180)
    assert proc.returncode != 0
    first = report.read_cases(junit1)
    assert len(first) == len(DEMO_IDS), out[-3000:]
    outcomes = [c.outcome for c in first]
    assert outcomes.count("passed") >= 2
    errored = [c for c in first if c.outcome == "error"]
    assert errored, "items after the stop must be errors"
    assert all(c.outcome in ("passed", "error") for c in first), "an infra fault is never a failure"
    kinds = {c.properties["error_kind"] for c in errored}
    assert kinds <= {"provider_unavailable", "sandbox_died"}, [c.message[-1500:] for c in errored]
    assert all(c.properties["masked"] == "true" for c in errored)

    private_engine.start()
    junit2 = tmp_path / "resumed.xml"
    resumed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "benchmarks/",
            "-p",
            "no:cacheprovider",
            f"--swe-resume={run_dir}",
            f"--junitxml={junit2}",
        ],
        cwd=swe_project.path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert resumed.returncode == 0, resumed.stdout[-3000:]
    cases = report.read_cases(junit2)
    assert sorted(c.instance_id for c in cases) == sorted(DEMO_IDS)
    assert all(c.outcome == "passed" for c in cases)
    entries = [json.loads(line) for line in ledger.read_text().splitlines() if line.strip()]
    assert {e["properties"]["instance_id"] for e in entries if e["outcome"] == "passed"} == set(DEMO_IDS)
    assert not labelled(private_engine), "no sandbox of either run is left on the engine"


def test_an_engine_shutting_down_is_not_answering(
    private_engine: PrivateEngine, demo_images: list[str]
) -> None:
    """A stopping engine closes its socket at once but serves the connections already open while
    it stops its containers. A command cut off then is the engine's fault, not the sandbox's, and
    the engine is not taken for alive because a pooled connection still answers."""
    # A container whose first process ignores SIGTERM holds the engine's shutdown open for its
    # stop timeout (10 s), so the window is there however fast the machine.
    private_engine.client().containers.run(
        demo_images[0], ["600"], entrypoint=["sleep"], init=False, network_mode="none", detach=True
    )
    provider = DockerProvider({"name": "docker", "pull": "never", "host": private_engine.host}, this_run())
    sandbox = provider.create(SandboxSpec(image=demo_images[0], workdir="/"))
    assert provider.client.ping() and provider.daemon_alive()
    faults: list[BaseException] = []

    def command() -> None:
        try:
            sandbox.exec("sleep 600", timeout=300)
        except InfraError as exc:
            faults.append(exc)

    running = threading.Thread(target=command)
    running.start()
    time.sleep(1.0)
    assert private_engine.proc is not None
    private_engine.proc.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    assert private_engine.proc.poll() is None, "the engine stopped at once: no window to test"
    assert provider.client.ping(), "the pooled connection no longer answers: no window to test"
    assert not provider.daemon_alive()
    running.join(timeout=120)
    assert not running.is_alive()
    assert [getattr(f, "kind", f) for f in faults] == ["provider_unavailable"], faults
