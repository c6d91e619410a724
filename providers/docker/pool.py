"""A pool of Docker engines as one provider: ``provider: docker`` with a ``hosts:`` list.

Each host is a :class:`~.provider.DockerProvider` of its own engine (``unix://``, ``tcp://`` with
TLS client certificates, ``ssh://``) with a capacity. A sandbox goes to a healthy host with a free
slot, preferring one that has the image, then the least loaded (:mod:`.placement`). A host that
stops answering (health pings, or a failed call confirmed by a ping) is drained for the rest of
the run: no new sandbox goes there, and its in-flight sandboxes fail as ``provider_unavailable``
(masked, retryable: ``--swe-retries`` runs the item again elsewhere). Each host reaps its own
sandboxes: the run's at its end, orphans of dead runs at the first use of the next run.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import tempfile
import threading
import time
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import InfraError
from pytest_swe.api.sandbox import CleanupResult
from pytest_swe.api.sandbox import ExecResult
from pytest_swe.api.sandbox import RunInfo
from pytest_swe.api.sandbox import SandboxSpec

from . import images
from .engine import engine_errors
from .engine import sdk
from .placement import HostSlots
from .placement import HostView
from .placement import Slot
from .placement import exclusive
from .placement import rank
from .provider import DockerProvider
from .sandbox import DockerSandbox

SCHEMES = ("unix", "tcp", "ssh")
DEFAULT_CAPACITY = 4
TIMINGS = {
    "health_interval": 5.0,
    "health_timeout": 5.0,
    "request_timeout": 60.0,
    "transfer_timeout": 1800.0,
}
"""Seconds: between health pings; for a ping; for any other call to a host (a host cut off makes
calls hang, not fail: this bounds how long an in-flight item waits); for an image transfer."""
DOWN_AFTER = 2
"""Failed health pings in a row that drain a host (one failed call confirmed by a failed ping does too)."""
POOL_KEYS = ("hosts", "registry", "down_after", *TIMINGS)
TRANSFER_CHUNK = 1 << 20


@dataclass(frozen=True)
class HostConfig:
    name: str
    url: str
    capacity: int = DEFAULT_CAPACITY
    tls: tuple[str, str, str] | None = None
    """CA certificate, client certificate and client key (paths)."""
    use_ssh_client: bool = True
    """For ``ssh://``: the system's ``ssh`` (and the user's ssh config), as the docker CLI does."""


def _number(options: Mapping[str, Any], key: str, default: float) -> float:
    value = options.get(key, default)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"provider.{key}: {value!r} is not a number of seconds") from None
    if number <= 0:
        raise ConfigError(f"provider.{key}: {value!r} must be positive")
    return number


def parse_hosts(value: Any) -> list[HostConfig]:
    """The ``hosts:`` list (mappings with ``url``, optional ``name``, ``capacity``, ``tls``), checked."""
    if not isinstance(value, (list, tuple)) or not value:
        raise ConfigError("provider.hosts: expected a list of hosts, each with a url")
    hosts: list[HostConfig] = []
    for n, entry in enumerate(value):
        where = f"provider.hosts[{n}]"
        if isinstance(entry, str):
            entry = {"url": entry}
        if not isinstance(entry, Mapping) or not entry.get("url"):
            raise ConfigError(f"{where}: expected a url (unix://, tcp:// or ssh://)")
        unknown = set(entry) - {"url", "name", "capacity", "tls", "use_ssh_client"}
        if unknown:
            raise ConfigError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        url = str(entry["url"])
        parsed = urlparse(url)
        if parsed.scheme not in SCHEMES:
            raise ConfigError(f"{where}: {url!r} is not a unix://, tcp:// or ssh:// url")
        capacity = entry.get("capacity", DEFAULT_CAPACITY)
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise ConfigError(f"{where}.capacity: {capacity!r} must be a positive whole number")
        hosts.append(
            HostConfig(
                name=str(entry.get("name") or parsed.hostname or parsed.path or url),
                url=url,
                capacity=capacity,
                tls=_tls(entry.get("tls"), where, parsed.scheme),
                use_ssh_client=bool(entry.get("use_ssh_client", True)),
            )
        )
    names = [h.name for h in hosts]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ConfigError(f"provider.hosts: the name(s) {', '.join(twice)} are given twice (set name:)")
    return hosts


def _tls(value: Any, where: str, scheme: str) -> tuple[str, str, str] | None:
    if value is None:
        return None
    if scheme != "tcp":
        raise ConfigError(f"{where}.tls: TLS client certificates are for tcp:// hosts")
    if not isinstance(value, Mapping) or set(value) != {"ca", "cert", "key"}:
        raise ConfigError(f"{where}.tls: expected ca, cert and key (paths of PEM files)")
    paths = tuple(str(Path(value[k]).expanduser()) for k in ("ca", "cert", "key"))
    for key, path in zip(("ca", "cert", "key"), paths, strict=True):
        if not Path(path).is_file():
            raise ConfigError(f"{where}.tls.{key}: {path} is not a file")
    return paths[0], paths[1], paths[2]


class PoolHost(DockerProvider):
    """One engine of the pool: a Docker provider with TLS, bounded calls, a health ping and slots."""

    def __init__(
        self,
        config: HostConfig,
        options: Mapping[str, Any],
        run: RunInfo,
        state_dir: Path,
        timings: Mapping[str, float],
    ) -> None:
        super().__init__({**options, "host": config.url}, run)
        self.config = config
        self.timings = dict(timings)
        self.slots = HostSlots(
            state_dir, config.name, config.capacity, owner=f"{run.owner_pid}@{run.owner_start}"
        )
        self.failures = 0
        self._health: Any = None
        self._health_lock = threading.Lock()
        self._images: set[str] = set()

    @property
    def host_name(self) -> str:
        return self.config.name

    def _open(self, timeout: float) -> Any:
        docker = sdk()
        if not self.config.tls:
            return docker.DockerClient(
                base_url=self.config.url, timeout=timeout, use_ssh_client=self.config.use_ssh_client
            )
        ca, cert, key = self.config.tls
        tls = docker.tls.TLSConfig(client_cert=(cert, key), ca_cert=ca, verify=True)
        client = docker.DockerClient.__new__(docker.DockerClient)
        client.api = _api_without_environment()(base_url=self.config.url, timeout=timeout, tls=tls)
        return client

    def _connect(self, timeout: float) -> Any:
        return self._open(min(timeout, self.timings["request_timeout"]))

    def transfer_client(self) -> Any:
        """A client whose calls may last as long as an image transfer."""
        return self._open(self.timings["transfer_timeout"])

    def _health_client(self) -> Any:
        with self._health_lock:
            if self._health is None:
                self._health = self._open(self.timings["health_timeout"])
            return self._health

    def _forget_health_client(self) -> None:
        with self._health_lock:
            client, self._health = self._health, None
        if client is not None:
            with contextlib.suppress(*engine_errors()):
                client.close()

    def ping(self) -> bool:
        """Whether the engine answers within the health timeout."""
        try:
            self._health_client().ping()
            return True
        except engine_errors():
            self._forget_health_client()
            return False

    def drained(self) -> str | None:
        return self.slots.drained()

    def drain(self, reason: str) -> None:
        self.slots.drain(reason)

    def daemon_alive(self) -> bool:
        """False once drained; after a failed call, a failed ping on a new connection drains the
        host (the health client's open connection still answers an engine that is shutting down)."""
        return self._answers(super().daemon_alive)

    def _answers(self, ping: Callable[[], bool]) -> bool:
        if self.drained():
            return False
        if ping():
            return True
        self.drain("stopped answering (a call failed and a ping after it too)")
        return False

    def remove(self, container_id: str, attempts: int = 4) -> CleanupResult:
        """As the engine's, but at once when the host is drained or does not answer (each attempt
        would otherwise wait for the request timeout). The health client asks: a removal is no
        fault, and a new connection to each removal would cost an SSH or TLS handshake."""
        if not self._answers(self.ping):
            return CleanupResult(False, 0, f"host {self.host_name} is drained ({self.drained()})")
        return super().remove(container_id, attempts)

    def has_image(self, image: str) -> bool | None:
        """Whether the host has ``image`` (a yes is remembered); None when it does not answer."""
        if image in self._images:
            return True
        try:
            self._health_client().images.get(image)
        except sdk().errors.ImageNotFound:
            return False
        except engine_errors():
            self._forget_health_client()
            return None
        self._images.add(image)
        return True

    def saw(self, image: str) -> None:
        self._images.add(image)

    def close(self) -> None:
        self._forget_health_client()
        super().close()


@functools.cache
def _api_without_environment() -> type:
    """The SDK's API client, deaf to the environment: requests would otherwise let REQUESTS_CA_BUNDLE
    or CURL_CA_BUNDLE replace the host's own CA (the TLS check then fails) and send the engine's
    traffic through an HTTPS_PROXY."""
    docker = sdk()

    class APIClient(docker.APIClient):  # type: ignore[misc, name-defined]
        trust_env = property(lambda self: False, lambda self, value: None)

    return APIClient


class PooledSandbox:
    """A sandbox on one host of the pool: knows its host (``sandbox_host``), holds its slot until closed."""

    def __init__(self, pool: DockerPool, inner: DockerSandbox, host: PoolHost, key: str) -> None:
        self._pool = pool
        self._inner = inner
        self._host = host
        self._key = key
        self._result: CleanupResult | None = None
        self._close_lock = threading.Lock()

    @property
    def id(self) -> str:
        return str(self._inner.id)

    @property
    def spec(self) -> SandboxSpec:
        return self._inner.spec

    @property
    def sandbox_host(self) -> str:
        return self._host.host_name

    def exec(
        self,
        command: str,
        *,
        timeout: float,
        workdir: str | None = None,
        env: Mapping[str, str] | None = None,
        user: str | None = None,
        output_limit: int | None = None,
    ) -> ExecResult:
        return self._inner.exec(
            command, timeout=timeout, workdir=workdir, env=env, user=user, output_limit=output_limit
        )

    def write_file(self, path: str, data: bytes, *, mode: int = 0o644) -> None:
        self._inner.write_file(path, data, mode=mode)

    def read_file(self, path: str) -> bytes:
        return self._inner.read_file(path)

    def end_processes(self) -> None:
        self._inner.end_processes()

    def limit_counters(self) -> dict[str, Any]:
        return self._inner.limit_counters()

    def alive(self) -> bool:
        return not self._host.drained() and self._inner.alive()

    def enter_command(self) -> str:
        flags = f"-H {self._host.config.url}"
        if self._host.config.tls:
            ca, cert, key = self._host.config.tls
            flags = f"--tlsverify --tlscacert {ca} --tlscert {cert} --tlskey {key} {flags}"
        return self._inner.enter_command().replace("docker ", f"docker {flags} ", 1)

    def close(self) -> CleanupResult:
        """Remove the container (unless its host is gone: then it ends at its ttl, or is reaped
        there by the next run) and give the slot back; idempotent (the item's watchdog may close too)."""
        with self._close_lock:
            if self._result is None:
                self._result = self._inner.close()  # at once on a drained host: see PoolHost.remove
                self._pool.release(self._key)
            return self._result

    def __getattr__(self, name: str) -> Any:
        if name == "close_soon":
            # Not the engine sandbox's deferred removal: that would skip close(), and the slot
            # would stay taken until the run's end (every later item waiting for one).
            raise AttributeError(name)
        return getattr(self._inner, name)


@dataclass
class _Held:
    host: PoolHost
    slot: Slot
    refs: int = 1


class DockerPool:
    """Several Docker engines as one provider; see the module's docstring."""

    name = "docker"
    capabilities = DockerProvider.capabilities

    def __init__(self, options: Mapping[str, Any], run: RunInfo) -> None:
        self.options = dict(options)
        self.run = run
        self.registry = bool(self.options.get("registry", False))
        self.pull = self.options.get("pull", "missing")
        self.timings = {key: _number(self.options, key, default) for key, default in TIMINGS.items()}
        self.down_after = int(_number(self.options, "down_after", DOWN_AFTER))
        run_dir = getattr(run, "run_dir", "")
        self.state_dir = (
            Path(run_dir, "pool") if run_dir else Path(tempfile.gettempdir(), f"pytest-swe-pool-{run.run_id}")
        )
        host_options = {k: v for k, v in self.options.items() if k not in POOL_KEYS}
        self.hosts = [
            PoolHost(config, host_options, run, self.state_dir, self.timings)
            for config in parse_hosts(self.options.get("hosts"))
        ]
        self._held: dict[str, _Held] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._monitors: list[threading.Thread] = []

    # -- health -----------------------------------------------------------------------------------

    def _start_monitor(self) -> None:
        with self._lock:
            if self._monitors:
                return
            for host in self.hosts:
                thread = threading.Thread(
                    target=self._watch, args=(host,), daemon=True, name=f"pool-health-{host.host_name}"
                )
                thread.start()
                self._monitors.append(thread)

    def _watch(self, host: PoolHost) -> None:
        while not self._stop.wait(self.timings["health_interval"]):
            if host.drained():
                return
            if host.ping():
                host.failures = 0
                continue
            host.failures += 1
            if host.failures >= self.down_after:
                host.drain(f"{host.failures} health pings in a row went unanswered")
                return

    def preflight(self, timeout: float = 10.0) -> None:
        """Drain the hosts that do not answer now; InfraError (``provider_unavailable``) when none does."""
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(self.hosts)) as workers:
            answers = list(workers.map(lambda h: h.ping(), self.hosts))
        for host, ok in zip(self.hosts, answers, strict=True):
            if not ok:
                host.drain("did not answer at the start of the run")
        if not any(answers):
            raise InfraError(
                "provider_unavailable", f"no host of the Docker pool answers ({self._describe()})"
            )

    def daemon_alive(self) -> bool:
        return any(not h.drained() and h.ping() for h in self.hosts)

    def _describe(self) -> str:
        return "; ".join(f"{h.host_name} {h.config.url}: {h.drained() or 'up'}" for h in self.hosts)

    # -- placement ----------------------------------------------------------------------------------

    def _place(self, image: str, deadline: float) -> tuple[PoolHost, Slot]:
        by_name = {h.host_name: h for h in self.hosts}
        while True:
            views = []
            for host in self.hosts:
                if host.drained():
                    continue
                has = host.has_image(image)
                if has is not None:
                    views.append(
                        HostView(
                            host.host_name, host.config.capacity, host.slots.load(), has, host.slots.placed()
                        )
                    )
            if not views and all(h.drained() for h in self.hosts):
                raise InfraError(
                    "provider_unavailable", f"every host of the Docker pool is drained ({self._describe()})"
                )
            for view in rank(views):
                host = by_name[view.name]
                slot = host.slots.acquire()
                if slot is not None:
                    return host, slot
            if time.monotonic() >= deadline:
                if not views:
                    raise InfraError(
                        "provider_unavailable",
                        f"no host of the Docker pool answered in time ({self._describe()})",
                    )
                total = sum(h.config.capacity for h in self.hosts if not h.drained())
                raise InfraError(
                    "sandbox_start",
                    f"no free slot on the Docker pool in time (capacity {total}; {self._describe()})",
                )
            time.sleep(0.5)

    def _join(self, key: str) -> PoolHost | None:
        """An item's next sandbox goes where its first one is, in the same slot."""
        with self._lock:
            held = self._held.get(key) if key else None
            if held is None:
                return None
            held.refs += 1
            return held.host

    def release(self, key: str) -> None:
        with self._lock:
            held = self._held.get(key)
            if held is None:
                return
            held.refs -= 1
            if held.refs <= 0:
                del self._held[key]
                held.slot.release()

    def capacity(self) -> int:
        return sum(host.config.capacity for host in self.hosts)

    def create(self, spec: SandboxSpec) -> PooledSandbox:
        self._start_monitor()
        deadline = time.monotonic() + spec.start_timeout
        labels = spec.labels
        item = labels.get("pytest-swe.instance")
        key = f"{labels.get('pytest-swe.benchmark', '')}::{item}" if item else f"sandbox::{id(spec)}"
        while True:
            host = self._join(key)
            joined = host is not None
            if host is None:
                host, slot = self._place(spec.image, deadline)
                with self._lock:
                    self._held[key] = _Held(host, slot)
            elif host.drained():
                self.release(key)
                raise InfraError(
                    "provider_unavailable",
                    f"host {host.host_name} of this item's sandbox is drained ({host.drained()})",
                )
            try:
                self.ensure_image(host, spec.image, deadline)
                inner = host.create(spec)
            except InfraError as exc:
                self.release(key)
                # A failed call: the host is lost if it does not answer a ping either (that drains it).
                lost = exc.kind == "provider_unavailable" or not host.daemon_alive()
                if lost and not joined and time.monotonic() < deadline:
                    continue  # nothing ran there yet: place the sandbox on another host
                kind = "provider_unavailable" if lost else exc.kind
                raise InfraError(kind, f"host {host.host_name}: {exc.args[0]}") from None
            return PooledSandbox(self, inner, host, key)

    # -- images -------------------------------------------------------------------------------------

    def ensure_image(self, host: PoolHost, image: str, deadline: float | None = None) -> None:
        """Bring ``image`` to ``host`` when it lacks it: from its registry when ``registry`` is set
        (and the pull policy allows), else ``docker save | docker load`` streamed from a host that has it."""
        if host.has_image(image):
            return
        wait = max((deadline or time.monotonic() + self.timings["transfer_timeout"]) - time.monotonic(), 1.0)
        try:
            with exclusive(host.slots.image_lock(image), wait):  # one transfer per host and image in the run
                if host.has_image(image):
                    return
                problems = self._bring(host, image)
        except TimeoutError as exc:
            raise InfraError(
                "image_missing", f"image {image} did not reach host {host.host_name}: {exc}"
            ) from None
        if problems is not None:
            raise InfraError(
                "image_missing",
                f"host {host.host_name} lacks image {image} and could not get it: {'; '.join(problems)}",
            )

    def _bring(self, host: PoolHost, image: str) -> list[str] | None:
        problems: list[str] = []
        if self.registry and self.pull != "never":
            client = host.transfer_client()
            try:
                images.pull_image(client, image)
                host.saw(image)
                return None
            except InfraError as exc:
                problems.append(f"pull: {exc.args[0]}")
            finally:
                client.close()
        peers = [h for h in self.hosts if h is not host and not h.drained() and h.has_image(image)]
        for peer in peers:
            try:
                stream_image(peer, host, image)
                host.saw(image)
                return None
            except engine_errors(InfraError) as exc:
                problems.append(f"from {peer.host_name}: {exc}")
        if not peers:
            problems.append(
                "no other host of the pool has it" + ("" if self.registry else " (no registry configured)")
            )
        return problems

    # -- cleanup ------------------------------------------------------------------------------------

    def reap(
        self,
        *,
        run_id: str | None = None,
        worker: str | None = None,
        orphans: bool = False,
        kept: bool | None = False,
    ) -> list[str]:
        """Each host that answers reaps its own (a drained host's sandboxes go at the next run's reap there)."""

        def one(host: PoolHost) -> list[str]:
            if host.drained() or not host.ping():
                return []
            return host.reap(run_id=run_id, worker=worker, orphans=orphans, kept=kept)

        with concurrent.futures.ThreadPoolExecutor(max_workers=len(self.hosts)) as workers:
            return [cid for ids in workers.map(one, self.hosts) for cid in ids]

    def close(self) -> None:
        self._stop.set()
        for host in self.hosts:
            host.close()


def stream_image(source: PoolHost, target: PoolHost, image: str) -> None:
    """``docker save`` on ``source`` piped into ``docker load`` on ``target``, chunk by chunk (no file)."""
    reader, writer = source.transfer_client(), target.transfer_client()
    try:
        chunks = reader.api.get_image(image, chunk_size=TRANSFER_CHUNK)
        for entry in writer.api.load_image(chunks):
            if isinstance(entry, Mapping) and entry.get("error"):
                raise InfraError("image_missing", f"loading {image} on {target.host_name}: {entry['error']}")
    finally:
        reader.close()
        writer.close()
    if not target.has_image(image):
        raise InfraError("image_missing", f"{image} was streamed to {target.host_name} but is not there")
