"""A pool of Docker engines (``provider: docker`` with ``hosts:``): placement, capacity across
processes, and for real three engines, each in a network namespace of its own reached over TLS on
a private veth link (``scripts/pool_hosts.py``), one of them cut off mid-run."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import InfraError
from pytest_swe.api.sandbox import Located
from pytest_swe.api.sandbox import SandboxSpec
from pytest_swe.api.sandbox import this_run
from pytest_swe.providers.docker import DockerPool
from pytest_swe.providers.docker import DockerProvider
from pytest_swe.providers.docker.factory import DockerFactory
from pytest_swe.providers.docker.placement import HostSlots
from pytest_swe.providers.docker.placement import HostView
from pytest_swe.providers.docker.placement import rank
from pytest_swe.providers.docker.pool import parse_hosts
from pytest_swe.runner.properties import ItemRecord

from conftest import DEMO_IDS
from conftest import REPO
from conftest import SweProject
from conftest import load_module
from conftest import unavailable

pool_hosts = load_module(REPO / "scripts" / "pool_hosts.py")
DEMO_IMAGE = "pytest-swe-demo/sweb.eval.x86_64.demo_1776_calc-1:latest"
FAST = {"health_interval": 1, "health_timeout": 5, "request_timeout": 20}
"""Timings that let a test see a host drained within seconds (the defaults are for real networks)."""


# --- placement and capacity (no engine) -------------------------------------------------------------


def test_pool_placement_prefers_the_host_with_the_image_then_the_least_loaded() -> None:
    hosts = [
        HostView("a", capacity=4, load=0, has_image=False),
        HostView("b", capacity=4, load=3, has_image=True),
        HostView("c", capacity=4, load=1, has_image=True),
    ]
    assert [h.name for h in rank(hosts)] == ["c", "b", "a"]
    # Without the image anywhere: the least loaded by share of capacity, then by turns taken.
    bare = [
        HostView("a", capacity=2, load=1, has_image=False),
        HostView("b", capacity=8, load=2, has_image=False),
        HostView("c", capacity=8, load=2, has_image=False, placed=0),
        HostView("d", capacity=8, load=2, has_image=False, placed=5),
    ]
    assert [h.name for h in rank(bare)] == ["b", "c", "d", "a"]
    tie = [
        HostView(n, capacity=2, load=0, has_image=True, placed=p) for n, p in (("x", 3), ("y", 1), ("z", 2))
    ]
    assert [h.name for h in rank(tie)] == ["y", "z", "x"]  # equal hosts take turns


def test_pool_placement_skips_full_and_drained_hosts() -> None:
    hosts = [
        HostView("full", capacity=2, load=2, has_image=True),
        HostView("drained", capacity=2, load=0, has_image=True, healthy=False),
        HostView("free", capacity=2, load=1, has_image=False),
    ]
    assert [h.name for h in rank(hosts)] == ["free"]
    assert rank([HostView("full", capacity=1, load=1, has_image=True)]) == []


def test_pool_capacity_is_counted_across_processes(tmp_path: Path) -> None:
    """Slots held by another process (an xdist worker) count; they free when that process dies."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path\n"
            "from pytest_swe.providers.docker.placement import HostSlots\n"
            f"s = HostSlots(Path({str(tmp_path)!r}), 'h1', 3); held = [s.acquire(), s.acquire()]\n"
            "print('held', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        slots = HostSlots(tmp_path, "h1", 3)
        assert slots.load() == 2 and slots.placed() == 2
        mine = slots.acquire()
        assert mine is not None and slots.acquire() is None  # the third slot was the last
        assert slots.load() == 3
        mine.release()
        assert slots.load() == 2
    finally:
        holder.kill()
        holder.wait()
    assert slots.load() == 0  # the kernel released the dead process's locks


def test_pool_sandbox_host_lists_each_host_of_an_item_once() -> None:
    record = ItemRecord()
    for host in ("h2", "h1", "h2"):
        record.sandbox_placed(host)
    assert record.properties["sandbox_host"] == "h2,h1"


def test_pool_drain_marker_is_seen_by_every_process_of_the_run_only(tmp_path: Path) -> None:
    first, second = HostSlots(tmp_path, "h", 1, owner="1@5"), HostSlots(tmp_path, "h", 1, owner="1@5")
    assert second.drained() is None
    first.drain("stopped answering")
    assert "stopped answering" in (second.drained() or "")
    assert HostSlots(tmp_path, "h", 1, owner="2@9").drained() is None  # a resumed run tries the host again


def test_pool_configuration_is_checked(tmp_path: Path) -> None:
    pem = tmp_path / "x.pem"
    pem.write_text("x")
    tls = {"ca": str(pem), "cert": str(pem), "key": str(pem)}
    hosts = parse_hosts(
        [
            {"url": "tcp://10.0.0.1:2376", "capacity": 3, "tls": tls},
            "ssh://user@builder",
            {"url": "unix:///var/run/docker.sock", "name": "local"},
        ]
    )
    assert [(h.name, h.capacity) for h in hosts] == [("10.0.0.1", 3), ("builder", 4), ("local", 4)]
    assert hosts[0].tls == (str(pem), str(pem), str(pem)) and hosts[1].tls is None
    bad = {
        "not a unix://, tcp:// or ssh://": [{"url": "http://x"}],
        "capacity": [{"url": "tcp://x:1", "capacity": 0}],
        "TLS client certificates are for tcp://": [{"url": "ssh://x", "tls": tls}],
        "is not a file": [{"url": "tcp://x:1", "tls": {**tls, "key": str(tmp_path / "missing.pem")}}],
        "given twice": [{"url": "tcp://x:1"}, {"url": "tcp://x:2"}],
        "unknown key": [{"url": "tcp://x:1", "capacty": 2}],
        "expected a list": [],
    }
    for message, value in bad.items():
        with pytest.raises(ConfigError, match=message):
            parse_hosts(value)


def test_pool_is_the_docker_provider_with_hosts() -> None:
    factory = DockerFactory()
    assert factory.name == "docker"
    run = this_run()
    assert isinstance(factory({"name": "docker"}, run), DockerProvider)
    assert isinstance(factory({"name": "docker", "hosts": ["unix:///nonexistent.sock"]}, run), DockerPool)


def test_pool_image_comes_from_the_registry_when_configured_else_from_a_peer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_swe.providers.docker import pool as pool_module

    calls: list[str] = []
    present = {"peer": {"img"}, "new": set()}

    def has_image(self: Any, image: str) -> bool:
        return image in present[self.host_name]

    def pull(client: Any, image: str) -> None:
        calls.append("pull")
        if image == "unpullable":
            raise InfraError("image_missing", "no registry answers")
        present["new"].add(image)

    def stream(source: Any, target: Any, image: str) -> None:
        calls.append(f"stream from {source.host_name}")
        present[target.host_name].add(image)

    class Client:
        def close(self) -> None:
            pass

    monkeypatch.setattr(pool_module.PoolHost, "has_image", has_image)
    monkeypatch.setattr(pool_module.PoolHost, "transfer_client", lambda self: Client())
    monkeypatch.setattr(pool_module.images, "pull_image", pull)
    monkeypatch.setattr(pool_module, "stream_image", stream)
    hosts = [{"name": n, "url": f"unix://{tmp_path}/{n}.sock"} for n in ("peer", "new")]
    run = dataclasses.replace(this_run(), run_dir=str(tmp_path))

    with_registry = DockerPool({"name": "docker", "hosts": hosts, "registry": True}, run)
    with_registry.ensure_image(with_registry.hosts[1], "img")
    assert calls == ["pull"]
    present["peer"].add("unpullable")
    with_registry.ensure_image(with_registry.hosts[1], "unpullable")  # the registry fails: a peer has it
    assert calls == ["pull", "pull", "stream from peer"]

    calls.clear()
    present["new"].clear()
    peers_only = DockerPool({"name": "docker", "hosts": hosts}, run)
    peers_only.ensure_image(peers_only.hosts[1], "img")
    assert calls == ["stream from peer"]
    peers_only.ensure_image(peers_only.hosts[1], "img")  # there now: nothing to do
    assert calls == ["stream from peer"]


# --- real engines in network namespaces ----------------------------------------------------------------


@dataclass
class Pool:
    """Three engines started for this test session, and their pool settings."""

    engines: list[Any]
    certs: Path

    def hosts(self, capacity: int = 2) -> list[dict[str, Any]]:
        return [e.host_entry(self.certs, capacity=capacity) for e in self.engines]

    def provider(
        self, run_id: str, capacity: int = 2, engines: list[Any] | None = None, **options: Any
    ) -> DockerPool:
        chosen = engines or self.engines
        hosts = [e.host_entry(self.certs, capacity=capacity) for e in chosen]
        settings = {"name": "docker", "pull": "never", "hosts": hosts, **FAST, **options}
        run = dataclasses.replace(this_run(run_id=run_id), run_dir=str(self.certs.parent / "runs" / run_id))
        return DockerPool(settings, run)

    def settings_yaml(self, capacity: int = 2) -> str:
        body = {"name": "docker", "pull": "never", "hosts": self.hosts(capacity), **FAST}
        return json.dumps(body)

    def labelled(self, engine: Any, running: bool = False, **labels: str) -> list[dict[str, Any]]:
        """The pytest-swe containers on ``engine`` (only the running ones), asked through its Unix
        socket (not the link)."""
        import docker

        client = docker.DockerClient(base_url=engine.socket, timeout=30)
        try:
            filters = ["pytest-swe"] + [f"pytest-swe.{k}={v}" for k, v in labels.items()]
            return client.api.containers(all=not running, filters={"label": filters})
        finally:
            client.close()


@pytest.fixture(scope="session")
def pool(tmp_path_factory: pytest.TempPathFactory, demo_images: list[str]) -> Iterator[Pool]:
    """Three Docker engines in network namespaces over TLS, each with the demo images; started once
    per test process and torn down after (engines stopped, namespaces and links deleted)."""
    missing = pool_hosts.missing_tools()
    if missing:
        unavailable(f"the pool tests need {', '.join(missing)} (.ci/install-pool.sh installs them)")
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    first = 20 + 4 * int("".join(c for c in worker if c.isdigit()) or 0)  # engines of each xdist worker apart
    root = tmp_path_factory.mktemp("pool")
    try:
        engines = pool_hosts.up(root, 3, first=first)
        pool_hosts.load_images(root, sorted(set(demo_images)), engines)
    except Exception as exc:
        pool_hosts.down(root)
        if isinstance(exc, subprocess.CalledProcessError):
            pytest.fail(f"{exc.cmd}: {exc.stderr}", pytrace=False)
        raise
    try:
        yield Pool(engines, root / "certs")
    finally:
        for engine in engines:
            engine.restore()
        pool_hosts.down(root)
    assert not [e for e in engines if Path("/var/run/netns", e.netns).exists()]


@pytest.fixture
def restore_links(pool: Pool) -> Iterator[None]:
    """Links cut by a test come back after it."""
    yield
    for engine in pool.engines:
        engine.restore()


@pytest.mark.docker
def test_pool_engine_refuses_a_client_without_a_certificate(pool: Pool) -> None:
    import docker

    engine = pool.engines[0]
    with pytest.raises(docker.errors.DockerException):
        docker.DockerClient(base_url=engine.url.replace("tcp://", "https://"), timeout=5, tls=True).ping()
    provider = pool.provider("tls-check", engines=[engine])
    try:
        provider.preflight()
        assert provider.hosts[0].ping()
    finally:
        provider.close()


@pytest.mark.docker
def test_pool_gold_demo_on_three_hosts_resolves_all_spread_over_hosts(
    swe_project: SweProject, pool: Pool
) -> None:
    swe_project.demo(extra=f"provider: {pool.settings_yaml()}\n")
    run = swe_project.run("benchmarks/", "-n", "2", "--swe-agent", "gold")
    run.result.assert_outcomes(passed=len(DEMO_IDS))
    hosts = {case.instance_id: case.properties.get("sandbox_host") for case in run.cases}
    assert sorted(hosts) == sorted(DEMO_IDS)
    assert set(hosts.values()) == {e.name for e in pool.engines}, hosts  # every host took items
    for engine in pool.engines:
        assert pool.labelled(engine, run=run.suite["run_id"]) == []


@pytest.mark.docker
def test_pool_host_cut_off_mid_run_items_retried_elsewhere_none_lost_none_orphaned(
    swe_project: SweProject, pool: Pool, restore_links: None
) -> None:
    """A host whose link goes down while it runs an item: that item errors as provider_unavailable,
    runs again on another host (--swe-retries 1), every item resolves, and the hosts still up keep
    no sandbox; the cut host's sandbox goes when the next run reaps orphans there."""
    victim = pool.engines[2]
    swe_project.demo(extra=f"provider: {pool.settings_yaml()}\n")
    cut_at: list[str] = []

    def cut_when_busy() -> None:
        end = time.monotonic() + 300
        while time.monotonic() < end and not cut_at:
            running = pool.labelled(victim, running=True)
            if running:
                time.sleep(0.3)  # past its start: the item is grading there now
                victim.cut()
                cut_at.append(running[0]["Labels"].get("pytest-swe.instance", "?"))
                return
            time.sleep(0.1)

    watcher = threading.Thread(target=cut_when_busy, daemon=True)
    watcher.start()
    run = swe_project.run("benchmarks/", "-n", "2", "--swe-agent", "gold", "--swe-retries", "1")
    watcher.join(timeout=5)
    assert cut_at, "no item ever ran on the host to cut"
    run.result.assert_outcomes(passed=len(DEMO_IDS))
    assert sorted(run.by_id) == sorted(DEMO_IDS)  # none lost
    retried = [c for c in run.cases if "provider_unavailable" in c.properties.get("retried_errors", "")]
    assert retried, "the item in flight on the cut host was not retried"
    for case in retried:
        assert case.properties["attempts"] == "2" and case.properties["sandbox_host"] != victim.name
    assert cut_at[0] in {c.instance_id for c in retried}
    assert {c.properties["sandbox_host"] for c in run.cases if c not in retried} <= {
        e.name for e in pool.engines
    }
    run_id = run.suite["run_id"]
    for engine in pool.engines[:2]:
        assert pool.labelled(engine, run=run_id) == [], engine.name  # none orphaned on the hosts still up
    drained = Path(run.run_dir, "pool", victim.name, "drained")
    assert drained.is_file()
    left = pool.labelled(victim, run=run_id)
    assert left, "the cut host kept its sandbox (it could not be told to remove it)"
    # The next run reaches the host again and reaps its own orphans there (their owner is gone).
    victim.restore()
    later = pool.provider("next-run")
    try:
        removed = later.reap(orphans=True)
    finally:
        later.close()
    assert {c["Id"][:12] for c in left} <= set(removed)
    assert pool.labelled(victim, run=run_id) == []


@pytest.mark.docker
def test_pool_drain_fails_the_in_flight_sandbox_and_places_the_next_elsewhere(
    pool: Pool, restore_links: None
) -> None:
    provider = pool.provider("drain", capacity=1, engines=pool.engines[:2])
    try:
        spec = SandboxSpec(image=DEMO_IMAGE, labels={"pytest-swe.instance": "one"}, ttl=300)
        first = provider.create(spec)
        assert isinstance(first, Located)
        victim = next(e for e in pool.engines if e.name == first.sandbox_host)
        assert first.exec("echo ok", timeout=30).output.strip() == "ok"
        victim.cut()
        started = time.monotonic()
        with pytest.raises(InfraError) as fault:
            first.exec("sleep 30", timeout=60)
        assert fault.value.kind == "provider_unavailable" and fault.value.retryable
        assert time.monotonic() - started < 45  # bounded by request_timeout, not the command
        assert provider.hosts[[h.host_name for h in provider.hosts].index(victim.name)].drained()
        cleanup = first.close()
        assert not cleanup.removed and "drained" in (cleanup.error or "")
        second = provider.create(
            SandboxSpec(image=DEMO_IMAGE, labels={"pytest-swe.instance": "two"}, ttl=300)
        )
        assert second.sandbox_host != victim.name
        assert second.close().removed
    finally:
        provider.close()
    victim.restore()
    assert pool.labelled(victim, run="drain")  # left for the next run's orphan reap
    sweeper = pool.provider("drain-sweep")
    try:
        sweeper.reap(run_id="drain")
    finally:
        sweeper.close()
    assert pool.labelled(victim, run="drain") == []


@pytest.mark.docker
def test_pool_host_is_asked_on_a_new_connection_after_a_failed_call(
    pool: Pool, restore_links: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine that is shutting down still answers on the connections it has open (the host's
    health client) and on no new one. After a failed call the host is asked on a new connection:
    here the health client is made to answer while the link is down, and the host is drained."""
    victim = pool.engines[0]
    provider = pool.provider("fresh", engines=[victim])
    try:
        host = provider.hosts[0]
        assert host.daemon_alive() and not host.drained()
        monkeypatch.setattr(host, "ping", lambda: True)
        victim.cut()
        started = time.monotonic()
        assert not host.daemon_alive()
        assert time.monotonic() - started < FAST["request_timeout"] + 10
        assert "stopped answering" in (host.drained() or "")
    finally:
        provider.close()


@pytest.mark.docker
def test_pool_host_down_at_the_start_is_drained_and_skipped(pool: Pool, tmp_path: Path) -> None:
    hosts = [
        {"name": "gone", "url": f"unix://{tmp_path}/no-engine.sock"},
        pool.engines[0].host_entry(pool.certs),
    ]
    provider = DockerPool(
        {"name": "docker", "pull": "never", "hosts": hosts, **FAST},
        dataclasses.replace(this_run(), run_dir=str(tmp_path / "a")),
    )
    try:
        provider.preflight()
        assert "did not answer at the start" in (provider.hosts[0].drained() or "")
        sandbox = provider.create(SandboxSpec(image=DEMO_IMAGE, labels={"pytest-swe.instance": "x"}))
        assert sandbox.sandbox_host == pool.engines[0].name
        assert sandbox.close().removed
    finally:
        provider.close()
    nobody = DockerPool(
        {"name": "docker", "hosts": hosts[:1], **FAST},
        dataclasses.replace(this_run(), run_dir=str(tmp_path / "b")),
    )
    with pytest.raises(InfraError, match="no host of the Docker pool answers") as fault:
        nobody.preflight()
    assert fault.value.kind == "provider_unavailable"
    with pytest.raises(InfraError, match="every host of the Docker pool is drained"):
        nobody.create(SandboxSpec(image=DEMO_IMAGE))
    nobody.close()


@pytest.mark.docker
def test_pool_item_sandboxes_share_one_slot_and_host(pool: Pool) -> None:
    """An item's agent and eval sandboxes go to the same host in one slot: with capacity 1 per host
    an item holding its agent sandbox never waits for itself."""
    provider = pool.provider("share", capacity=1)
    try:
        labels = {"pytest-swe.instance": "demo__calc-1", "pytest-swe.benchmark": "demo"}
        agent = provider.create(SandboxSpec(image=DEMO_IMAGE, role="agent", labels=labels, start_timeout=5))
        evaluation = provider.create(
            SandboxSpec(image=DEMO_IMAGE, role="eval", labels=labels, start_timeout=5)
        )
        host = next(h for h in provider.hosts if h.host_name == agent.sandbox_host)
        assert evaluation.sandbox_host == agent.sandbox_host and host.slots.load() == 1
        agent.close()
        assert host.slots.load() == 1  # the eval sandbox still holds it
        evaluation.close()
        assert host.slots.load() == 0
    finally:
        provider.close()


@pytest.mark.docker
def test_pool_full_pool_is_a_sandbox_start_error_after_the_start_timeout(pool: Pool) -> None:
    provider = pool.provider("full", capacity=1, engines=pool.engines[:1])
    try:
        held = provider.create(SandboxSpec(image=DEMO_IMAGE, labels={"pytest-swe.instance": "a"}))
        with pytest.raises(InfraError, match="no free slot") as fault:
            provider.create(
                SandboxSpec(image=DEMO_IMAGE, labels={"pytest-swe.instance": "b"}, start_timeout=2)
            )
        assert fault.value.kind == "sandbox_start"
        held.close()
    finally:
        provider.close()


@pytest.mark.docker
def test_pool_host_lacking_an_image_gets_it_streamed_from_a_peer(pool: Pool, tmp_path: Path) -> None:
    import docker

    source, target = pool.engines[0], pool.engines[1]
    tag = f"pytest-swe-pool/tiny:{os.getpid()}"
    rootfs = tmp_path / "rootfs.tar"
    (tmp_path / "hello.txt").write_text("streamed\n")
    subprocess.run(["tar", "-C", str(tmp_path), "-cf", str(rootfs), "hello.txt"], check=True)
    clients = [docker.DockerClient(base_url=e.socket, timeout=60) for e in (source, target)]
    try:
        clients[0].api.import_image_from_file(
            str(rootfs), repository=tag.split(":")[0], tag=tag.split(":")[1]
        )
        provider = pool.provider("images", engines=[source, target])
        try:
            host = next(h for h in provider.hosts if h.host_name == target.name)
            assert host.has_image(tag) is False
            provider.ensure_image(host, tag)
            assert host.has_image(tag) is True
        finally:
            provider.close()
        assert clients[1].images.get(tag).id == clients[0].images.get(tag).id
        # No host has it and no registry is configured: a clear image_missing error.
        provider = pool.provider("images-none", engines=[source, target])
        try:
            with pytest.raises(InfraError, match="no registry configured") as fault:
                provider.ensure_image(provider.hosts[0], "pytest-swe-pool/absent:1")
            assert fault.value.kind == "image_missing"
        finally:
            provider.close()
    finally:
        for client in clients:
            with contextlib.suppress(docker.errors.DockerException):
                client.images.remove(tag, force=True)
            client.close()


CRASH_CONFTEST = """
import os, signal, pytest

@pytest.hookimpl
def pytest_swe_verdict(item, task, verdict):
    # Kills this xdist worker while the item's eval sandbox is still up on its pool host.
    if task.instance_id == "demo__calc-1":
        os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.docker
def test_pool_crashed_worker_sandbox_is_removed_from_its_host_by_the_controller(
    swe_project: SweProject, pool: Pool
) -> None:
    swe_project.demo(extra=f"provider: {pool.settings_yaml()}\n")
    (swe_project.path / "conftest.py").write_text(CRASH_CONFTEST)
    run = swe_project.run("benchmarks/", "-n", "2", "-k", "calc or pager")
    assert run.outcomes() == {"demo__calc-1": "error", "demo__pager-1": "passed"}
    assert run.by_id["demo__calc-1"].properties["error_kind"] == "worker_crashed"
    for engine in pool.engines:
        assert pool.labelled(engine, run=run.suite["run_id"]) == [], engine.name


def test_pool_sandbox_is_closed_at_once_so_its_slot_comes_back() -> None:
    """The engine sandbox inside may defer its removal; a pooled one must not offer that (the
    runner would skip its close, and the slot would stay taken until the run's end)."""
    from types import SimpleNamespace

    from pytest_swe.api.sandbox import DeferredClose
    from pytest_swe.providers.docker.pool import PooledSandbox

    released: list[str] = []
    inner = SimpleNamespace(close_soon=lambda: None, close=lambda: "closed", alive=lambda: True)
    pool = SimpleNamespace(release=released.append)
    host = SimpleNamespace(drained=lambda: None, host_name="h1")
    sandbox = PooledSandbox(pool, inner, host=host, key="item-1")  # type: ignore[arg-type]
    assert not isinstance(sandbox, DeferredClose)
    assert sandbox.alive() is True  # other members still reach the engine sandbox
    assert sandbox.close() == "closed" and released == ["item-1"]
