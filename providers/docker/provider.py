"""The Docker provider: creates containers, removes them for sure, reaps orphans."""

from __future__ import annotations

import concurrent.futures
import contextlib
import socket
import threading
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_swe.api import sizes
from pytest_swe.api.errors import InfraError
from pytest_swe.api.sandbox import LABEL
from pytest_swe.api.sandbox import CleanupResult
from pytest_swe.api.sandbox import RunInfo
from pytest_swe.api.sandbox import SandboxSpec
from pytest_swe.api.sandbox import is_orphan
from pytest_swe.api.sandbox import reap_takes
from pytest_swe.api.sandbox import sandbox_labels
from pytest_swe.api.sandbox import sandbox_ttl

from . import images
from .engine import engine_errors
from .engine import sdk
from .engine import unreachable_message
from .queries import QUERY_ERRORS
from .queries import SocketQueries
from .queries import socket_of
from .sandbox import DockerSandbox

REAP_PARALLEL = 8
REMOVE_PARALLEL = 2
"""Removals in flight at once from :meth:`DockerProvider.remove_soon`."""
DEFAULT_DISK_LIMIT = "10g"
"""What a sandbox may write (provider option ``disk_limit``): overlay2 on ext4 has no quota, so
every file is capped by an ``fsize`` ulimit and the writable layer is measured while commands run."""


def parse_size(value: Any, option: str) -> int | None:
    """``512m``/``10g``/bytes as bytes (the engine's own units: b, k, m, g); None, 0, ``none`` or
    ``off``: no limit."""
    if value is None or value is False or str(value).strip().lower() in ("", "0", "none", "off"):
        return None
    return sizes.parse_size(value, f"provider.{option}")


class DockerProvider:
    """Creates containers with the docker SDK; knows nothing of datasets or grading."""

    name = "docker"
    capabilities = frozenset(
        {"exec", "files", "limits", "oom", "pids-limit", "disk-limit", "network-off", "labels", "ttl"}
    )

    cli = "docker"
    """The command line tool a user enters a sandbox with."""
    engine = "Docker daemon"
    """The engine's name in messages."""
    sandbox_class = DockerSandbox

    def __init__(self, options: Mapping[str, Any], run: RunInfo) -> None:
        self.options = dict(options)
        self.run = run
        self.pull = self.options.get("pull", "missing")
        self.network = self.options.get("network_name")  # network used when a sandbox needs one
        self.disk_limit = parse_size(self.options.get("disk_limit", DEFAULT_DISK_LIMIT), "disk_limit")
        self._client: Any = None
        self._lock = threading.Lock()
        self._removals: concurrent.futures.ThreadPoolExecutor | None = None
        self._removing: dict[str, concurrent.futures.Future[CleanupResult]] = {}
        """Removals :meth:`remove_soon` started and not finished, by container id."""

    def _ready(self) -> None:
        """What must hold before the engine is asked anything: nothing for Docker (Podman starts
        its service here)."""

    def _queries(self, timeout: float) -> SocketQueries | None:
        """Read-only questions without the SDK, for an engine on a Unix socket (None: any other)."""
        path = socket_of(self.options.get("host"))
        if path is None:
            return None
        self._ready()
        return SocketQueries(path, timeout)

    def _connect(self, timeout: float) -> Any:
        """A client of the engine at option ``host``, else of DOCKER_HOST or the local socket."""
        self._ready()
        docker = sdk()
        base_url = self.options.get("host")
        return (
            docker.DockerClient(base_url=base_url, timeout=timeout)
            if base_url
            else docker.from_env(timeout=timeout)
        )

    @property
    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                try:
                    self._client = self._connect(timeout=120)
                    self._client.ping()
                except engine_errors() as exc:
                    self._client = None
                    raise InfraError("provider_unavailable", self.unreachable(exc)) from None
            return self._client

    def preflight(self, timeout: float = 10.0) -> None:
        """Raise InfraError (``provider_unavailable``) unless the engine answers a ping within ``timeout``."""
        self._ready()
        self._ping_anew(timeout)

    def _ping_anew(self, timeout: float) -> None:
        """As :meth:`preflight`, on a connection of its own, and starting nothing: Podman's service
        is started on a Unix socket only, and that is asked here without ``_ready``."""
        path = socket_of(self.options.get("host"))
        if path is not None:
            try:
                SocketQueries(path, timeout).ping()
            except QUERY_ERRORS as exc:
                raise InfraError("provider_unavailable", self.unreachable(exc)) from None
            return
        try:
            client = self._connect(timeout=timeout)
            try:
                client.ping()
            finally:
                client.close()
        except engine_errors() as exc:
            raise InfraError("provider_unavailable", self.unreachable(exc)) from None

    def unreachable(self, exc: BaseException) -> str:
        """Why the engine does not answer, and what to do about it."""
        return unreachable_message(exc, self.options.get("host"))

    product = "Docker Engine"

    def version(self, timeout: float = 10.0) -> str:
        """The engine's name and version, as the report header shows them (asked within ``timeout``)."""
        queries = self._queries(timeout)
        if queries is not None:
            try:
                return f"{self.product} {queries.version().get('Version', '?')}"
            except QUERY_ERRORS as exc:
                raise InfraError("provider_unavailable", self.unreachable(exc)) from None
        try:
            client = self._connect(timeout=timeout)
            try:
                info = client.version()
            finally:
                client.close()
        except engine_errors() as exc:
            raise InfraError("provider_unavailable", self.unreachable(exc)) from None
        return f"{self.product} {info.get('Version', '?')}"

    def daemon_alive(self) -> bool:
        """Whether the engine answers a new connection. The client's pooled connection cannot
        tell: an engine that is shutting down closes its socket at once but goes on serving the
        connections already open (pings, inspections) while it stops its containers, 10 s and more.
        Nothing is started to answer (Podman's service is, before a run): asked after a failed
        call, a service that went away is the engine's fault, not the sandbox's."""
        try:
            self._ping_anew(timeout=5.0)
        except InfraError:
            return False
        return True

    def labels(self, spec: SandboxSpec) -> dict[str, str]:
        return sandbox_labels(self.run, spec)

    # -- images (the ImageBuilder protocol) ---------------------------------------------------

    def image_exists(self, tag: str) -> bool:
        return self._inspect_image(tag) is not None

    def _inspect_image(self, tag: str) -> dict[str, Any] | None:
        """The engine's inspection of the local image ``tag``; None when it has none."""
        queries = self._queries(timeout=120)
        if queries is None:
            return images.image_info(self.client, tag)
        try:
            return queries.inspect_image(tag)
        except OSError as exc:  # no engine at the socket: as the SDK's client says it
            raise InfraError("provider_unavailable", self.unreachable(exc)) from None
        except QUERY_ERRORS as exc:
            raise InfraError("provider_unavailable", f"cannot inspect image {tag}: {exc}") from None

    def pull_image(self, tag: str) -> None:
        images.pull_image(self.client, tag)

    def build_image(self, context: bytes, tag: str, *, network: bool = False) -> None:
        images.build_image(self.client, context, tag, network=network)

    def import_image(self, rootfs: Path, tag: str) -> None:
        images.import_image(self.client, rootfs, tag)

    # -- images (the ImageIdentity and ImageStore protocols) -------------------------------------

    def image_id(self, tag: str) -> str | None:
        info = self._inspect_image(tag)
        return str(info["Id"]) if info else None

    def image_sizes(self) -> dict[str, int]:
        return images.image_sizes(self.client)

    def tag_image(self, source: str, tag: str) -> None:
        images.tag_image(self.client, source, tag)

    def remove_image(self, tag: str) -> bool:
        return images.remove_image(self.client, tag)

    # -- sandboxes ------------------------------------------------------------------------------

    def ensure_image(self, image: str) -> None:
        """Make ``image`` available under the pull policy before a sandbox starts from it."""
        images.ensure_image(self.client, image, self.pull)

    def ulimits(self) -> list[Any]:
        """The rlimits every container gets: ``fsize`` holds each file to the disk limit."""
        if not self.disk_limit:
            return []
        return [sdk().types.Ulimit(name="fsize", soft=self.disk_limit, hard=self.disk_limit)]

    def create(self, spec: SandboxSpec) -> DockerSandbox:
        self.ensure_image(spec.image)
        ttl = sandbox_ttl(spec)
        kwargs: dict[str, Any] = {
            "image": spec.image,
            "entrypoint": ["sleep"],
            "command": [str(ttl)],
            "init": True,
            "detach": True,
            "labels": self.labels(spec),
            "working_dir": spec.workdir,
            "environment": dict(spec.env),
            "auto_remove": not spec.keep,
            "name": f"pytest-swe-{spec.role}-{uuid.uuid4().hex[:10]}",
        }
        if spec.network:
            if self.network:
                kwargs["network"] = self.network
        else:
            kwargs["network_mode"] = "none"
        if spec.memory:
            kwargs["mem_limit"] = spec.memory
            kwargs["memswap_limit"] = spec.memory
        if spec.cpus:
            kwargs["nano_cpus"] = int(spec.cpus * 1e9)
        ulimits = self.ulimits()
        if ulimits:
            kwargs["ulimits"] = ulimits
        if spec.pids:
            kwargs["pids_limit"] = spec.pids
        if spec.mounts:
            kwargs["volumes"] = {host: {"bind": inside, "mode": "rw"} for host, inside in spec.mounts.items()}
        try:
            container = self.client.containers.create(**kwargs)
        except engine_errors() as exc:
            raise InfraError(
                self._start_fault(), f"cannot create a container from {spec.image}: {exc}"
            ) from None
        try:
            container.start()
        except engine_errors() as exc:
            # The engine may have gone away between the create and the start: asked before the
            # removal, which retries against an engine that does not answer.
            kind = self._start_fault()
            self.remove(container.id)
            raise InfraError(kind, f"cannot start a container from {spec.image}: {exc}") from None
        return self.sandbox_class(self, container, spec)

    def _start_fault(self) -> str:
        """The kind of a failed create or start: the sandbox's, or the engine's when it no longer
        answers (a stopped daemon is reported once as such, not as a bad image or spec)."""
        return "sandbox_start" if self.daemon_alive() else "provider_unavailable"

    def remove(self, container_id: str, attempts: int = 4) -> CleanupResult:
        """Remove a container and confirm it is gone, retrying; never raises."""
        import tenacity  # imported here: it costs 50 ms at every pytest start

        not_found = sdk().errors.NotFound
        failures = engine_errors(InfraError)
        errors: list[str] = []

        def gone() -> bool:
            try:
                self.client.api.remove_container(container_id, force=True)
            except not_found:
                return True
            except failures as exc:  # e.g. "removal already in progress" from auto-remove
                errors.append(str(exc))
            try:
                self.client.api.inspect_container(container_id)
            except not_found:
                return True
            except failures as exc:
                errors.append(str(exc))
            return False

        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(attempts),
            wait=tenacity.wait_incrementing(start=0.25, increment=0.25),
            retry=tenacity.retry_if_result(lambda removed: not removed),
            retry_error_callback=lambda state: False,
        )
        if retrying(gone):
            return CleanupResult(True, retrying.statistics["attempt_number"])
        return CleanupResult(False, attempts, errors[-1] if errors else None)

    def remove_soon(self, container_id: str) -> concurrent.futures.Future[CleanupResult]:
        """:meth:`remove` on a background thread, so the caller goes on while the engine removes;
        :meth:`close` waits for every removal started here."""
        with self._lock:
            if self._removals is None:
                self._removals = concurrent.futures.ThreadPoolExecutor(
                    max_workers=REMOVE_PARALLEL, thread_name_prefix="pytest-swe-remove"
                )
            future = self._removals.submit(self.remove, container_id)
            self._removing[container_id] = future
        future.add_done_callback(lambda done: self._removed(container_id, done))
        return future

    def _removed(self, container_id: str, done: concurrent.futures.Future[CleanupResult]) -> None:
        with self._lock:
            if self._removing.get(container_id) is done:
                del self._removing[container_id]

    def _removed_already(self, container_ids: list[str]) -> set[str]:
        """Those of ``container_ids`` a removal of :meth:`remove_soon` took away, waited for: a second
        request for a container being removed meets "removal already in progress" and waits out a
        retry's back-off (a quarter of a second at the end of every run)."""
        with self._lock:
            started = {cid: self._removing[cid] for cid in container_ids if cid in self._removing}
        gone = set()
        for cid, future in started.items():
            try:
                if future.result().removed:
                    gone.add(cid)
            except Exception:  # cancelled or broken: the reap removes it itself
                continue
        return gone

    def reap(
        self,
        *,
        run_id: str | None = None,
        worker: str | None = None,
        orphans: bool = False,
        kept: bool | None = False,
    ) -> list[str]:
        """Remove sandboxes of a run (or of every run), of a worker, or orphans; return their ids.

        ``kept``: False leaves sandboxes kept with ``--swe-keep`` alone, True removes only those,
        None removes both.
        """
        filters = [LABEL]
        if run_id:
            filters.append(f"{LABEL}.run={run_id}")
        if worker:
            filters.append(f"{LABEL}.worker={worker}")
        try:
            queries = self._queries(timeout=120)
            if queries is not None:
                containers = queries.containers(filters)
            else:
                containers = self.client.api.containers(all=True, filters={"label": filters})
        except QUERY_ERRORS:
            return []
        except engine_errors(InfraError):
            return []
        now = time.time()
        host = socket.gethostname()
        doomed = []
        for info in containers:
            labels = info.get("Labels") or {}
            if reap_takes(labels, kept=kept, orphan=is_orphan(labels, now, host) if orphans else None):
                doomed.append(info["Id"])
        if not doomed:
            return []
        gone = self._removed_already(doomed)
        rest = [cid for cid in doomed if cid not in gone]
        results = []
        if rest:
            # In parallel: after a Ctrl-C every sandbox of the run goes at once, not one after the other.
            with concurrent.futures.ThreadPoolExecutor(max_workers=min(REAP_PARALLEL, len(rest))) as pool:
                results = list(pool.map(self.remove, rest))
        removed = gone | {cid for cid, result in zip(rest, results, strict=True) if result.removed}
        return [cid[:12] for cid in doomed if cid in removed]

    def close(self) -> None:
        with self._lock:
            removals, self._removals = self._removals, None
        if removals is not None:
            removals.shutdown(wait=True)  # every removal started by remove_soon is confirmed first
        if self._client is not None:
            with contextlib.suppress(*engine_errors()):
                self._client.close()
            self._client = None
