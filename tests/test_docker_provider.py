"""The Docker provider against a real engine: exec timeouts kill for real, output caps, files, limits, reaping."""

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

from conftest import labelled_containers

pytestmark = pytest.mark.docker


@pytest.fixture
def provider(base_image: str) -> Any:
    run = this_run(run_id=f"test-{os.getpid()}-{time.monotonic_ns()}")
    prov = DockerProvider({"name": "docker", "pull": "never"}, run)
    yield prov
    prov.reap(run_id=run.run_id)
    prov.close()


@pytest.fixture
def sandbox(provider: DockerProvider) -> Any:
    sb = provider.create(SandboxSpec(image=BASE_IMAGE, workdir="/tmp", memory="256m", pids=128, cpus=1))
    yield sb
    sb.close()


def test_exec_output_exit_code_env_and_workdir(sandbox: Any) -> None:
    result = sandbox.exec(
        "echo out; echo err >&2; pwd; echo $GREETING; exit 3", timeout=30, env={"GREETING": "hi"}
    )
    assert result.exit_code == 3 and not result.timed_out
    assert result.output.split() == ["out", "err", "/tmp", "hi"]
    assert sandbox.exec("pwd", timeout=30, workdir="/").output.strip() == "/"


def test_exec_timeout_kills_the_whole_tree(sandbox: Any) -> None:
    start = time.monotonic()
    result = sandbox.exec("sleep 300 & sleep 301; echo never", timeout=2)
    elapsed = time.monotonic() - start
    assert result.timed_out and "never" not in result.output
    assert elapsed < 10, elapsed
    procs = sandbox.exec("cat /proc/[0-9]*/cmdline | tr '\\0' ' '", timeout=30).output
    assert "sleep 300" not in procs and "sleep 301" not in procs


def test_output_is_capped_head_and_tail(sandbox: Any) -> None:
    result = sandbox.exec(
        "echo FIRST; head -c 5000000 /dev/zero | tr '\\0' x; echo; echo LAST",
        timeout=60,
        output_limit=100_000,
    )
    assert result.exit_code == 0
    assert result.output.startswith("FIRST") and result.output.rstrip().endswith("LAST")
    assert result.truncated_bytes > 4_800_000
    assert len(result.output) < 110_000
    assert "bytes of output dropped" in result.output


def test_files_round_trip(sandbox: Any) -> None:
    data = bytes(range(256)) * 100
    sandbox.write_file("/opt/deep/dir/blob.bin", data, mode=0o755)
    assert sandbox.read_file("/opt/deep/dir/blob.bin") == data
    assert sandbox.exec("test -x /opt/deep/dir/blob.bin", timeout=30).exit_code == 0
    with pytest.raises(FileNotFoundError):
        sandbox.read_file("/opt/nothing-here")


def test_files_in_one_archive_make_their_directories(sandbox: Any) -> None:
    """One write for several files, into directories that do not exist yet: made as ``mkdir -p``
    would (root's, 0755), the modes of existing directories untouched."""
    sandbox.write_files(
        {
            "/opt/new/a/hook.py": (b"hook", 0o600),
            "/opt/new/b/eval.sh": (b"#!/bin/sh\necho ran\n", 0o755),
            "/tmp/plain": (b"plain", 0o644),
        }
    )
    assert sandbox.read_file("/opt/new/a/hook.py") == b"hook"
    listing = sandbox.exec(
        "stat -c '%a %U %n' /tmp /opt/new /opt/new/a /opt/new/a/hook.py /opt/new/b/eval.sh /tmp/plain",
        timeout=30,
    ).output.split("\n")
    assert listing[:6] == [
        "1777 root /tmp",
        "755 root /opt/new",
        "755 root /opt/new/a",
        "600 root /opt/new/a/hook.py",
        "755 root /opt/new/b/eval.sh",
        "644 root /tmp/plain",
    ]
    assert sandbox.exec("/opt/new/b/eval.sh", timeout=30).output.strip() == "ran"


def test_an_engine_that_makes_no_parents_gets_them_made(
    sandbox: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where an upload into a missing directory fails (an engine that does not make parents), the
    directories are made and the upload repeated once."""
    import docker

    upload = sandbox.container.put_archive
    calls: list[str] = []

    def first_fails(path: str, data: bytes) -> bool:
        calls.append(path)
        if len(calls) == 1:
            raise docker.errors.APIError("no such file or directory")
        return upload(path, data)

    monkeypatch.setattr(sandbox.container, "put_archive", first_fails)
    sandbox.write_file("/srv/made/here/file.txt", b"content")
    assert len(calls) == 2
    assert sandbox.read_file("/srv/made/here/file.txt") == b"content"


def test_no_network_and_limits(sandbox: Any, docker_engine: Any) -> None:
    out = sandbox.exec("cat /proc/net/dev | tail -n +3 | cut -d: -f1", timeout=30).output.split()
    assert out == ["lo"]
    attrs = docker_engine.api.inspect_container(sandbox.id)
    assert attrs["HostConfig"]["NetworkMode"] == "none"
    assert attrs["HostConfig"]["Memory"] == 256 * 1024 * 1024
    assert attrs["HostConfig"]["PidsLimit"] == 128
    labels = attrs["Config"]["Labels"]
    assert labels["pytest-swe"] == "1" and labels["pytest-swe.owner-pid"] == str(os.getpid())


def test_memory_limit_is_reported_as_oom(sandbox: Any) -> None:
    result = sandbox.exec('python3 -c "b = bytearray(600 * 1024 * 1024); print(len(b))"', timeout=60)
    assert result.exit_code == 137
    assert result.oom_killed


def test_end_processes_spares_the_keepalive(sandbox: Any) -> None:
    sandbox.exec("nohup sleep 500 >/dev/null 2>&1 & setsid sleep 501 >/dev/null 2>&1 &", timeout=30)
    sandbox.end_processes()
    procs = sandbox.exec("cat /proc/[0-9]*/cmdline | tr '\\0' ' '", timeout=30).output
    assert "sleep 500" not in procs and "sleep 501" not in procs
    assert sandbox.alive()


def test_close_is_confirmed(provider: DockerProvider, docker_engine: Any) -> None:
    sb = provider.create(SandboxSpec(image=BASE_IMAGE))
    result = sb.close()
    assert result.removed
    assert not labelled_containers(docker_engine, run=provider.run.run_id)


def test_close_soon_is_confirmed_before_the_provider_closes(base_image: str, docker_engine: Any) -> None:
    """Removals started by close_soon run while the caller goes on; the provider's close waits
    for each, so none is left behind or unconfirmed."""
    run = this_run(run_id=f"test-soon-{os.getpid()}-{time.monotonic_ns()}")
    provider = DockerProvider({"name": "docker", "pull": "never"}, run)
    try:
        sandboxes = [provider.create(SandboxSpec(image=BASE_IMAGE)) for _ in range(3)]
        removals = [sb.close_soon() for sb in sandboxes]
        provider.close()
        assert all(removal.done() and removal.result().removed for removal in removals)
        assert not labelled_containers(docker_engine, run=run.run_id)
    finally:
        provider.reap(run_id=run.run_id)
        provider.close()


def test_missing_image_is_an_infra_error(provider: DockerProvider) -> None:
    from pytest_swe.api.errors import InfraError

    with pytest.raises(InfraError) as excinfo:
        provider.create(SandboxSpec(image="pytest-swe-test/does-not-exist:never"))
    assert excinfo.value.kind == "image_missing"


def test_reaper_removes_orphans_of_a_dead_owner(docker_engine: Any, base_image: str) -> None:
    """A run whose process died (SIGKILL) leaves containers; the next start removes them."""
    run_id = f"orphan-{os.getpid()}-{time.monotonic_ns()}"
    code = (
        "import os, signal\n"
        "from pytest_swe.providers.docker import DockerProvider; from pytest_swe.api.sandbox import this_run\n"
        "from pytest_swe.api.sandbox import SandboxSpec\n"
        f"p = DockerProvider({{'name': 'docker'}}, this_run(run_id={run_id!r}))\n"
        f"p.create(SandboxSpec(image={BASE_IMAGE!r}))\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=False)
    assert len(labelled_containers(docker_engine, run=run_id)) == 1
    survivor = DockerProvider({"name": "docker"}, this_run(run_id="other"))
    removed = survivor.reap(orphans=True)
    assert removed
    assert not labelled_containers(docker_engine, run=run_id)


def test_the_reap_waits_for_a_removal_under_way_instead_of_asking_again(
    provider: DockerProvider, docker_engine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last item's container is still being removed when the run's end reaps: asked again, the
    engine answers "removal already in progress" and the reap waits out a retry's back-off."""
    sb = provider.create(SandboxSpec(image=BASE_IMAGE))
    calls: list[str] = []
    remove = provider.remove

    def slow_remove(container_id: str, attempts: int = 4) -> Any:
        calls.append(container_id)
        time.sleep(0.5)  # a busy engine: the reap lists the container before it is gone
        return remove(container_id, attempts)

    monkeypatch.setattr(provider, "remove", slow_remove)
    removal = provider.remove_soon(sb.id)
    assert provider.reap(run_id=provider.run.run_id) == [sb.id[:12]]
    assert removal.done() and removal.result().removed
    assert calls == [sb.id]
    assert not labelled_containers(docker_engine, run=provider.run.run_id)


def test_ttl_ends_an_abandoned_container(provider: DockerProvider, docker_engine: Any) -> None:
    sb = provider.create(SandboxSpec(image=BASE_IMAGE, ttl=2))
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and labelled_containers(docker_engine, run=provider.run.run_id):
        time.sleep(0.5)
    assert not labelled_containers(docker_engine, run=provider.run.run_id), sb.id


def test_output_is_exact_and_a_cut_stream_is_an_infra_error(sandbox: Any) -> None:
    assert sandbox.exec("printf 'no newline at the end'", timeout=30).output == "no newline at the end"
    assert sandbox.exec("printf 'two\\n\\n'", timeout=30).output == "two\n\n"
    from pytest_swe.api.errors import InfraError

    # the end mark the provider adds never arrives when the wrapper dies: the output cannot be trusted
    with pytest.raises(InfraError) as excinfo:
        sandbox.exec("echo partial; kill -TERM $PPID; sleep 5", timeout=30)
    assert excinfo.value.kind == "sandbox_error" and "cut in transit" in str(excinfo.value)


def test_a_file_of_a_dead_sandbox_is_not_a_missing_file(sandbox: Any) -> None:
    """Reading from a container that died (and auto-removal took) is a dead sandbox: a reader that
    took it for a missing file would grade the tree as changed."""
    from pytest_swe.api.errors import InfraError

    sandbox.write_file("/tmp/state", b"before")
    sandbox.container.kill()
    deadline = time.monotonic() + 10
    while sandbox.alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    with pytest.raises(InfraError) as excinfo:
        sandbox.read_file("/tmp/state")
    assert excinfo.value.kind == "sandbox_died", excinfo.value


@pytest.mark.parametrize("engine_answers", [True, False], ids=["engine-up", "engine-gone"])
def test_a_container_that_does_not_start_is_the_sandboxs_fault_unless_the_engine_is_gone(
    provider: DockerProvider, monkeypatch: pytest.MonkeyPatch, engine_answers: bool
) -> None:
    """A real container is created; its start fails (as when the engine stops between the two).
    The item's error says whose fault it is: ``sandbox_start`` while the engine still answers,
    ``provider_unavailable`` once it does not; the created container is removed either way."""
    import docker.errors

    from pytest_swe.api.errors import InfraError

    collection = type(provider.client.containers)  # the SDK makes a new one on each access
    create = collection.create
    made: list[str] = []

    def create_that_will_not_start(self: Any, **kwargs: Any) -> Any:
        container = create(self, **kwargs)
        made.append(container.id)

        def start() -> None:
            raise docker.errors.APIError("the engine is shutting down")

        container.start = start
        return container

    monkeypatch.setattr(collection, "create", create_that_will_not_start)
    if not engine_answers:
        monkeypatch.setattr(provider, "daemon_alive", lambda: False)
    with pytest.raises(InfraError) as fault:
        provider.create(SandboxSpec(image=BASE_IMAGE, workdir="/tmp"))
    assert fault.value.kind == ("sandbox_start" if engine_answers else "provider_unavailable")
    assert "cannot start a container" in str(fault.value)
    # The low-level listing: the SDK's inspects each container it lists, and another test's
    # container may be removed between the two.
    assert made and not provider.client.api.containers(all=True, filters={"id": made[0]})
