"""The sandbox protocol every provider implements.

A provider knows images, containers (or their equivalent), processes and files; it
knows nothing of datasets, families or grading.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Protocol
from typing import runtime_checkable

if TYPE_CHECKING:
    from concurrent.futures import Future

LABEL = "pytest-swe"
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


CAPABILITIES: Mapping[str, str] = {
    "exec": "runs commands with a real timeout kill (Sandbox.exec)",
    "files": "writes and reads files, binary-safe",
    "limits": "holds a sandbox to its memory, cpus and pids limits",
    "oom": "a command killed for exceeding the memory limit is reported (oom)",
    "pids-limit": "hitting the pids limit is counted (pids_limit)",
    "disk-limit": "writing past the disk limit is counted (disk_full)",
    "network-off": "a sandbox without network reaches nothing outside itself, loopback of the host neither",
    "labels": "sandboxes carry the run's identity: reap by run, worker, kept, and orphans of a dead owner",
    "ttl": "a sandbox ends itself after its ttl even if its owner was killed",
}
"""What a provider's ``capabilities`` may name, and what each promises (the conformance suite,
tests/providers, checks each one a provider declares; a family's ``needs`` name them too)."""


@dataclass
class SandboxSpec:
    """What to start: an image, where to work, and the limits to hold it to."""

    image: str
    workdir: str = "/"
    role: str = "eval"
    """``agent`` or ``eval``: recorded in the sandbox's labels."""
    env: dict[str, str] = field(default_factory=dict)
    network: bool = False
    memory: str | None = None
    cpus: float | None = None
    pids: int | None = None
    ttl: float = 7200
    """Seconds after which the sandbox ends itself even if nobody removes it."""
    start_timeout: float = 300
    labels: dict[str, str] = field(default_factory=dict)
    mounts: dict[str, str] = field(default_factory=dict)
    """Host path -> sandbox path (read-write bind mounts, e.g. a socket directory)."""
    keep: bool = False


@dataclass
class ExecResult:
    """One command's outcome; output is stdout and stderr combined, capped to head and tail."""

    exit_code: int | None
    output: str
    timed_out: bool = False
    duration: float = 0.0
    truncated_bytes: int = 0
    oom_killed: bool = False

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


@dataclass
class CleanupResult:
    """Whether a sandbox is really gone after removal (checked, not assumed)."""

    removed: bool
    attempts: int = 1
    error: str | None = None


@runtime_checkable
class Sandbox(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def spec(self) -> SandboxSpec: ...

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
        """Run ``command`` with bash (sh if bash is absent); kill it for real at ``timeout``.

        Over ``output_limit`` bytes, the output keeps its first and last halves: callers print
        what they must read back at the end of a command."""
        ...

    def write_file(self, path: str, data: bytes, *, mode: int = 0o644) -> None: ...

    def read_file(self, path: str) -> bytes: ...

    def end_processes(self) -> None:
        """Kill every process in the sandbox except its keep-alive."""
        ...

    def alive(self) -> bool: ...

    def enter_command(self) -> str:
        """The shell command a user runs to get a shell inside the sandbox."""
        ...

    def close(self) -> CleanupResult: ...


@runtime_checkable
class DeferredClose(Protocol):
    """A sandbox whose removal can go on while the next work starts. The provider confirms every
    pending removal before its ``close()`` returns, so none outlives the run unconfirmed."""

    def close_soon(self) -> Future[CleanupResult]:
        """Start removing the sandbox; the future holds the confirmed :class:`CleanupResult`."""
        ...


@runtime_checkable
class FileBatch(Protocol):
    """A sandbox that writes several files in one call: one round trip to its engine, not one each."""

    def write_files(self, files: Mapping[str, tuple[bytes, int]]) -> None:
        """Write each ``path: (data, mode)``, creating missing parent directories."""
        ...


def write_files(sandbox: Sandbox, files: Mapping[str, tuple[bytes, int]]) -> None:
    """Write ``path: (data, mode)`` files into ``sandbox``: in one call when it is a :class:`FileBatch`."""
    if isinstance(sandbox, FileBatch):
        sandbox.write_files(files)
        return
    for path, (data, mode) in files.items():
        sandbox.write_file(path, data, mode=mode)


@runtime_checkable
class CommandCarrier(Protocol):
    """A sandbox whose commands can carry files in their text: where every call to the engine is a
    round trip (Docker's API), files written by the command that uses them cost no call of their own."""

    @property
    def command_limit(self) -> int:
        """The bytes one command may hold (far below the kernel's limit on one argument)."""
        ...


@runtime_checkable
class LimitCounting(Protocol):
    """A sandbox whose provider counts the limits it hit, so a fault is named by its cause."""

    def limit_counters(self) -> Mapping[str, int]:
        """``oom_kills``, ``pids_limit_hits``, ``disk_exceeded`` and ``disk_limit`` (bytes); the
        counters only grow over the sandbox's life."""
        ...


@runtime_checkable
class Located(Protocol):
    """A sandbox that knows which host runs it (one engine of a pool, say): the item's
    ``sandbox_host`` property, so a run shows where each item went."""

    @property
    def sandbox_host(self) -> str: ...


@runtime_checkable
class Provider(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def capabilities(self) -> frozenset[str]: ...

    def create(self, spec: SandboxSpec) -> Sandbox: ...

    def reap(
        self,
        *,
        run_id: str | None = None,
        worker: str | None = None,
        orphans: bool = False,
        kept: bool | None = False,
    ) -> list[str]:
        """Remove sandboxes of a run, of a worker, or orphans (owner gone or past ttl); return their ids.

        ``kept``: False leaves sandboxes kept with ``--swe-keep`` alone, True removes only those,
        None removes both (``pytest-swe reap --kept`` / ``--all``).
        """
        ...

    def close(self) -> None: ...


@runtime_checkable
class Preflight(Protocol):
    """A provider that can say, before any item runs, why it cannot work here."""

    def preflight(self, timeout: float = ...) -> None:
        """Raise :class:`~pytest_swe.api.errors.SweError` naming what is missing (daemon, socket, ...)."""
        ...


@runtime_checkable
class Versioned(Protocol):
    """A provider that can name the engine it runs on and its version (the report header shows it)."""

    def version(self) -> str:
        """E.g. ``Docker Engine 20.10.24``; raise :class:`~pytest_swe.api.errors.SweError` when the engine
        cannot be asked."""
        ...


@runtime_checkable
class ImageBuilder(Protocol):
    """What a provider that can make its own images offers (``pytest-swe images``).

    The core prepares every build context (repository snapshot, Dockerfile text); the provider
    only pulls, builds or imports.
    """

    def image_exists(self, tag: str) -> bool: ...

    def pull_image(self, tag: str) -> None:
        """Fetch ``tag`` from its registry; InfraError (``image_missing``) when it cannot."""
        ...

    def build_image(self, context: bytes, tag: str, *, network: bool = False) -> None:
        """Build ``tag`` from a tar build context with a ``Dockerfile`` at its root."""
        ...

    def import_image(self, rootfs: Path, tag: str) -> None:
        """Make ``tag`` from a root filesystem tarball."""
        ...


@runtime_checkable
class SharedCapacity(Protocol):
    """A provider whose sandboxes take slots of a capacity shared by every worker (a pool of
    engines): the runner starts no sandbox ahead of its item there, as it would hold a slot that
    another item is waiting for."""

    def capacity(self) -> int:
        """How many sandboxes the provider holds at once, over all its hosts."""
        ...


@runtime_checkable
class ImagePrefetch(Protocol):
    """A provider that gets many images faster together than one by one (``pytest-swe images``
    hands it every image of a benchmark before asking for each)."""

    def prefetch_images(self, tags: Sequence[str]) -> None: ...


@runtime_checkable
class ImageIdentity(Protocol):
    """A provider that names an image by its content, so a verdict can be keyed by what the
    sandbox really ran (a tag can move; a content id cannot)."""

    def image_id(self, tag: str) -> str | None:
        """The content id of the local image ``tag`` (e.g. ``sha256:...``); None when it is absent."""
        ...


@runtime_checkable
class ImageStore(Protocol):
    """A provider whose local images can be listed by size and removed (``pytest-swe images
    check|prune``, ``--swe-image-budget``)."""

    def image_sizes(self) -> Mapping[str, int]:
        """Every local image tag and the bytes its image takes (layers counted whole, shared or not)."""
        ...

    def tag_image(self, source: str, tag: str) -> None:
        """Give the local image ``source`` the name ``tag`` as well."""
        ...

    def remove_image(self, tag: str) -> bool:
        """Remove the local tag ``tag``; True when it was there and is gone. An image a sandbox
        still uses is left alone (False)."""
        ...


class ProviderFactory(Protocol):
    """Builds a provider from its settings (the benchmark's ``provider`` section) and the run's
    identity; has the provider's ``name``. A provider class whose constructor takes them is one."""

    @property
    def name(self) -> str: ...

    @property
    def capabilities(self) -> frozenset[str]: ...

    def __call__(self, options: Mapping[str, object], run: RunInfo) -> Provider: ...


@dataclass(frozen=True)
class RunInfo:
    """Identity of the pytest run that owns sandboxes (for labels and orphan reaping)."""

    run_id: str
    owner_pid: int
    owner_host: str
    owner_start: str
    worker: str = "main"
    run_dir: str = ""
    """The run directory, which every process of the run (each xdist worker) shares: where a
    provider keeps state they must agree on (a pool's slot locks). Empty when there is none."""


def process_start(pid: int) -> str:
    """When a process started, in clock ticks since boot: with the pid, it names the process.

    Counted from boot, not the epoch, so a clock change (NTP) does not rename a live process; in
    ticks, as ``/proc/<pid>/stat`` counts them, so every pytest-swe version labels an owner alike.
    Empty when the process is gone or unreadable. Read from ``/proc`` where there is one (every
    run names its owner at start-up, and psutil costs more to import than the read), else psutil.
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except FileNotFoundError:
        if os.path.isdir("/proc/self"):
            return ""  # a /proc without this pid: the process is gone
    except OSError:
        return ""
    else:
        # The command name in parentheses may hold spaces; starttime is field 22, the 20th after it.
        fields = stat[stat.rfind(b")") + 2 :].split()
        return fields[19].decode() if len(fields) > 19 else ""
    import psutil

    try:
        seconds = psutil.Process(pid).create_time() - psutil.boot_time()
    except (psutil.Error, OSError):
        return ""
    return str(round(seconds * _CLOCK_TICKS))


def owner_alive(pid: int, start: str) -> bool:
    """True while the process with this pid and start time (:func:`process_start`) still runs here."""
    import psutil

    try:
        psutil.Process(pid)
    except psutil.NoSuchProcess:
        return False
    except psutil.AccessDenied:
        return True
    return not start or process_start(pid) == start


KEEP_TTL = 24 * 3600
"""How long a sandbox kept for debugging (``--swe-keep``) lives before a reap may take it."""


def sandbox_ttl(spec: SandboxSpec) -> int:
    """The seconds a sandbox may live: its ttl, or a day when it is kept."""
    return int(KEEP_TTL if spec.keep else spec.ttl)


def sandbox_labels(run: RunInfo, spec: SandboxSpec) -> dict[str, str]:
    """The ``pytest-swe.*`` labels every provider writes on a sandbox: the run, the owner, the ttl
    (what :func:`is_orphan` and ``reap`` read)."""
    return {
        LABEL: "1",
        f"{LABEL}.run": run.run_id,
        f"{LABEL}.owner-pid": str(run.owner_pid),
        f"{LABEL}.owner-host": run.owner_host,
        f"{LABEL}.owner-start": run.owner_start,
        f"{LABEL}.worker": run.worker,
        f"{LABEL}.created": str(int(time.time())),
        f"{LABEL}.ttl": str(sandbox_ttl(spec)),
        f"{LABEL}.role": spec.role,
        f"{LABEL}.keep": "1" if spec.keep else "0",
        **spec.labels,
    }


def is_orphan(labels: Mapping[str, str], now: float, host: str) -> bool:
    """Whether a sandbox with these ``pytest-swe.*`` labels may be reaped as an orphan: past its
    ttl, or not kept and owned by a process of this host that is gone (one rule for every provider).
    """
    try:
        created = float(labels.get(f"{LABEL}.created", "0"))
        ttl = float(labels.get(f"{LABEL}.ttl", "0"))
    except ValueError:
        return True
    if created and ttl and now > created + ttl:
        return True
    if labels.get(f"{LABEL}.keep") == "1" or labels.get(f"{LABEL}.owner-host") != host:
        return False
    try:
        pid = int(labels.get(f"{LABEL}.owner-pid", ""))
    except ValueError:
        return True
    return not owner_alive(pid, labels.get(f"{LABEL}.owner-start", ""))


def reap_takes(labels: Mapping[str, str], *, kept: bool | None, orphan: bool | None) -> bool:
    """Whether ``Provider.reap`` removes a sandbox with these labels. ``orphan``: None when the
    reap is not for orphans, else whether this one is (:func:`is_orphan`, or a provider's stricter
    rule). Otherwise ``kept`` picks the kept ones (True), the others (False) or both (None)."""
    if orphan is not None:
        return orphan
    return kept is None or (labels.get(f"{LABEL}.keep") == "1") == kept


def this_run(worker: str = "main", run_id: str | None = None, owner_pid: int | None = None) -> RunInfo:
    """The identity of this run (a new run id unless given); ``owner_pid`` defaults to this process."""
    pid = owner_pid or os.getpid()
    return RunInfo(
        run_id=run_id or uuid.uuid4().hex[:12],
        owner_pid=pid,
        owner_host=socket.gethostname(),
        owner_start=process_start(pid),
        worker=worker,
    )
