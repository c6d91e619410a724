"""Podman through its Docker-compatible API: the Docker provider, configured for what Podman does
differently.

- **The service.** ``podman system service`` on a socket of its own (:data:`DEFAULT_SOCKET`;
  option ``host`` or ``PYTEST_SWE_PODMAN_HOST`` for another), started here when it does not answer
  and ``podman`` is installed (option ``start_service``, on for the default socket);
  ``.ci/install-podman.sh`` starts it the same way.
- **rlimits.** Rootful Podman gives every container ``nofile`` and ``nproc`` of 1048576 unless told
  otherwise; where the hard limits are lower and no process may raise them (no CAP_SYS_RESOURCE),
  runc fails with "error setting rlimits ... operation not permitted". containers.conf's
  ``default_ulimits`` fixes the command line (the install script writes it), but a request naming
  any ulimit (the disk limit's ``fsize``) replaces those defaults, so every request here names
  ``nofile`` and ``nproc`` too: the service's own hard limits (read through the socket's peer pid),
  which its container processes inherit and cannot exceed.
- **Images.** An image Podman lacks but the local Docker engine has is copied in (``docker save |
  podman load`` through the two APIs, no registry), option ``docker_images`` (default on).
- **cgroups.** Podman's cgroupfs manager puts a container in ``libpod_parent/libpod-<id>``, the
  systemd manager in ``machine.slice/libpod-<id>.scope``: the limit counters read those.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import socket
import struct
import subprocess
import time
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from pytest_swe.api.errors import InfraError
from pytest_swe.api.sandbox import RunInfo

from ..docker.engine import engine_errors
from ..docker.engine import sdk
from ..docker.provider import DockerProvider
from ..docker.sandbox import DockerSandbox

DEFAULT_SOCKET = "/run/pytest-swe-podman/podman.sock"
SERVICE_START_SECONDS = 20.0
_LIMIT_ROWS = {"nofile": "Max open files", "nproc": "Max processes"}
README_SECTION = "Providers"


class PodmanSandbox(DockerSandbox):
    """A Podman container: the Docker sandbox, with Podman's cgroup paths."""

    CGROUP_V1 = "/sys/fs/cgroup/{controller}/libpod_parent/libpod-{id}/{file}"
    CGROUP_V2 = "/sys/fs/cgroup/machine.slice/libpod-{id}.scope/{file}"


def socket_path(host: str) -> str | None:
    return host.removeprefix("unix://") if host.startswith("unix://") else None


def peer_pid(path: str, timeout: float = 2.0) -> int | None:
    """The pid of the process serving the Unix socket ``path`` (SO_PEERCRED), None when none does."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect(path)
            creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        except OSError:
            return None
    pid = struct.unpack("3i", creds)[0]
    return pid or None


def hard_limits(pid: int | str) -> dict[str, int]:
    """``nofile`` and ``nproc`` hard limits of a process (``self`` for this one); unlimited ones left out."""
    found: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/limits") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return found
    for name, row in _LIMIT_ROWS.items():
        for line in lines:
            if line.startswith(row):
                hard = line[len(row) :].split()[1]
                if hard.isdigit():
                    found[name] = int(hard)
    return found


class PodmanProvider(DockerProvider):
    """Creates Podman containers through ``podman system service``; the rest is the Docker provider's."""

    name = "podman"
    # Every Docker capability holds: memory kills and pids-limit hits are read from Podman's
    # cgroups, the disk limit from the container's upper directory, as for Docker.
    capabilities = DockerProvider.capabilities
    cli = "podman"
    engine = "Podman service"
    product = "Podman"
    sandbox_class = PodmanSandbox

    def __init__(self, options: Mapping[str, Any], run: RunInfo) -> None:
        merged = dict(options)
        merged["host"] = (
            merged.get("host") or os.environ.get("PYTEST_SWE_PODMAN_HOST") or f"unix://{DEFAULT_SOCKET}"
        )
        super().__init__(merged, run)
        self.host: str = merged["host"]
        # Started here only on the provider's own socket unless asked: another socket is someone else's.
        self.start_service = bool(self.options.get("start_service", self.host == f"unix://{DEFAULT_SOCKET}"))
        self.docker_images = bool(self.options.get("docker_images", True))
        self._limits: dict[str, int] | None = None

    # -- the service -----------------------------------------------------------------------------

    def _ready(self) -> None:
        self.ensure_service()

    def ensure_service(self) -> None:
        """Start ``podman system service`` on the socket unless something answers there already."""
        path = socket_path(self.host)
        if path is None or not self.start_service or peer_pid(path) is not None:
            return
        podman = shutil.which("podman")
        if podman is None:
            return  # the ping then says the service is missing, and how to install it
        directory = os.path.dirname(path)
        os.makedirs(directory, exist_ok=True)
        # One starter at a time (xdist workers start together); the others find it answering.
        with open(os.path.join(directory, "service.lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if peer_pid(path) is not None:
                return
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)  # a socket left by a service that died
            with open(os.path.join(directory, "service.log"), "ab") as log:
                subprocess.Popen(
                    [podman, "system", "service", "--time=0", f"unix://{path}"],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    start_new_session=True,  # outlives this run: later runs reuse it
                    cwd=directory,  # conmon writes a file named oom into its working directory
                )
            deadline = time.monotonic() + SERVICE_START_SECONDS
            while peer_pid(path) is None and time.monotonic() < deadline:
                time.sleep(0.1)

    def unreachable(self, exc: BaseException) -> str:
        installed = "podman is installed" if shutil.which("podman") else "podman is not installed"
        return (
            f"cannot reach the Podman service at {self.host} ({exc}; {installed}); "
            "bash .ci/install-podman.sh installs Podman and starts `podman system service` "
            f"(README section '{README_SECTION}')"
        )

    # -- limits ----------------------------------------------------------------------------------

    def service_limits(self) -> dict[str, int]:
        """The hard ``nofile``/``nproc`` limits a container may have: the service's (its children
        inherit them), else this process's; options ``nofile`` and ``nproc`` override."""
        if self._limits is None:
            path = socket_path(self.host)
            pid = peer_pid(path) if path else None
            limits = hard_limits(pid) if pid else {}
            limits = limits or hard_limits("self")
            for name in _LIMIT_ROWS:
                if self.options.get(name):
                    limits[name] = int(self.options[name])
            self._limits = limits
        return self._limits

    def ulimits(self) -> list[Any]:
        ulimit = sdk().types.Ulimit
        named = [
            ulimit(name=name, soft=value, hard=value) for name, value in sorted(self.service_limits().items())
        ]
        return [*super().ulimits(), *named]

    # -- images ----------------------------------------------------------------------------------

    def has_image(self, tag: str) -> bool:
        """Whether Podman itself has ``tag`` (nothing copied)."""
        return super().image_exists(tag)

    def image_exists(self, tag: str) -> bool:
        """Whether Podman has ``tag``, copying it in from the local Docker engine when only that has it."""
        return self.has_image(tag) or (self.docker_images and self.copy_from_docker(tag))

    def ensure_image(self, image: str) -> None:
        if self.pull != "always" and self.docker_images and not self.has_image(image):
            self.copy_from_docker(image)
        super().ensure_image(image)

    def prefetch_images(self, tags: Sequence[str]) -> None:
        """Copy every tag Podman lacks and the local Docker engine has, in one archive (their
        shared layers, the base image's, travel once)."""
        missing = [tag for tag in dict.fromkeys(tags) if not self.has_image(tag)]
        if missing and self.docker_images:
            self.copy_from_docker(*missing)

    def copy_from_docker(self, *tags: str) -> bool:
        """``docker save TAG... | podman load``; False when the local Docker engine has none of them."""
        docker = sdk()
        try:
            source = docker.from_env(timeout=600)
        except docker.errors.DockerException:
            return False  # no Docker engine configured here
        try:
            present = [tag for tag in tags if _has_image(source, tag)]
            if not present:
                return False
            try:
                # The SDK's public get_image saves one image; the API's /images/get takes several
                # (as `docker save A B` does), so their common layers are read and loaded once.
                api = source.api
                response = api._get(api._url("/images/get"), params={"names": present}, stream=True)
                api._raise_for_status(response)
                for _ in self.client.api.load_image(api._stream_raw_result(response, 2**21, False)):
                    pass
            except engine_errors() as exc:
                raise InfraError(
                    "image_missing", f"copying {', '.join(present)} from Docker into Podman failed: {exc}"
                ) from None
        finally:
            source.close()
        return all(self.has_image(tag) for tag in present)


def _has_image(client: Any, tag: str) -> bool:
    try:
        client.images.get(tag)
    except engine_errors():
        return False
    return True
