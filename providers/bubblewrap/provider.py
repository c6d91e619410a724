"""The bubblewrap provider: sandboxes without a daemon, their state in a directory, reaping by it.

A sandbox is a directory ``<root>/sandboxes/<id>/`` (``meta.json`` with its labels and owner,
the writable layer's mounts) plus a keep-alive ``bwrap`` and the cgroups named by its id. Nothing
else knows of it, so ``reap`` reads these directories: a sandbox whose owner is gone (pid and
start time), whose ttl passed, or whose keep-alive died is removed with its processes (cgroup
kill), its mounts and its groups, and the removal is checked.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import fcntl
import json
import os
import select
import shutil
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_swe.api.errors import InfraError
from pytest_swe.api.sandbox import LABEL
from pytest_swe.api.sandbox import CleanupResult
from pytest_swe.api.sandbox import RunInfo
from pytest_swe.api.sandbox import SandboxSpec
from pytest_swe.api.sandbox import is_orphan
from pytest_swe.api.sandbox import process_start
from pytest_swe.api.sandbox import reap_takes
from pytest_swe.api.sandbox import sandbox_labels
from pytest_swe.api.sandbox import sandbox_ttl

from ..docker.provider import parse_size
from . import cgroups
from .cgroups import SandboxGroups
from .images import SKOPEO_TRANSPORTS
from .images import Image
from .images import ImageCache
from .images import parse_dockerfile
from .layer import Layer
from .layer import pick_mode
from .sandbox import ENTER
from .sandbox import BubblewrapSandbox

DEFAULT_DISK_LIMIT = "10g"
REAP_PARALLEL = 8
DOCKER_TIMEOUT = 5.0
DOCKER_WORK_TIMEOUT = 1800.0
"""A ``docker save`` or a build may say nothing for minutes on a busy machine."""
HOSTS = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\t{name}\n"
KEEP_ALIVE = 'mkdir -p "$1" 2>/dev/null; echo ready; exec sleep "$2"'
"""The sandbox's last process: says when the sandbox is set up (bwrap's info fd comes earlier)."""
TOOLS = ("bwrap", "nsenter")


def default_root() -> Path:
    """Where images and sandboxes live: PYTEST_SWE_BWRAP_ROOT, else a system or a user directory."""
    if os.environ.get("PYTEST_SWE_BWRAP_ROOT"):
        return Path(os.environ["PYTEST_SWE_BWRAP_ROOT"])
    if os.geteuid() == 0:
        return Path("/var/lib/pytest-swe/bubblewrap")
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(cache) / "pytest-swe" / "bubblewrap"


def dev_args() -> list[str]:
    """The sandbox's /dev (and, rootless, its user: root, the user images expect). Rootless, not bwrap's ``--dev``: mounting a devpts makes bwrap nest a
    second user namespace, from which no command could enter the sandbox's other namespaces."""
    if os.geteuid() == 0:
        return ["--dev", "/dev"]
    args = [
        "--uid",
        "0",
        "--gid",
        "0",
        "--tmpfs",
        "/dev",
        "--tmpfs",
        "/dev/shm",
    ]  # root inside, as in an image
    for device in ("null", "zero", "full", "random", "urandom", "tty"):
        args += ["--dev-bind", f"/dev/{device}", f"/dev/{device}"]
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):  # fmt: skip
        args += ["--symlink", target, f"/dev/{name}"]
    return args


def connect_docker(host: str | None) -> Any:
    """A client of the Docker engine at ``host`` (else DOCKER_HOST or the local socket), or None
    when none answers: images then come from elsewhere."""
    try:
        import docker

        client = (
            docker.DockerClient(base_url=host, timeout=DOCKER_TIMEOUT)
            if host
            else docker.from_env(timeout=DOCKER_TIMEOUT)
        )
        client.ping()
    except Exception:  # no engine, a dead socket, no SDK: all mean the same here
        return None
    client.api.timeout = DOCKER_WORK_TIMEOUT  # asked quickly whether it answers; its work takes longer
    return client


def docker_image_id(client: Any, tag: str) -> str | None:
    """The engine's id (the config digest) of ``tag``, or None when the engine does not have it."""
    if client is None:
        return None
    try:
        return str(client.api.inspect_image(tag)["Id"])
    except Exception:  # NotFound or a failing engine: the engine does not offer this tag
        return None


def read_meta(base: Path) -> dict[str, Any] | None:
    try:
        meta: dict[str, Any] = json.loads((base / "meta.json").read_text())
    except (OSError, ValueError):
        return None
    return meta


def _write_meta(base: Path, meta: Mapping[str, Any]) -> None:
    tmp = base / "meta.json.tmp"
    tmp.write_text(json.dumps(meta, indent=1))
    tmp.replace(base / "meta.json")


def _process_alive(pid: int | None, start: str | None) -> bool:
    """True while ``pid`` runs and, given ``start`` (:func:`process_start`), is still that process."""
    import psutil  # imported here: every run registers this provider, few use it

    if not pid:
        return False
    try:
        if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
            return False
    except psutil.Error:
        return False
    return start is None or process_start(pid) == str(start)


class BubblewrapProvider:
    """Rootless-capable, daemonless sandboxes with bubblewrap; knows nothing of datasets or grading."""

    name = "bubblewrap"
    capabilities = frozenset(
        {"exec", "files", "limits", "oom", "pids-limit", "disk-limit", "network-off", "labels", "ttl"}
    )
    """All of them where cgroups and loop mounts are at hand (root), as a run's family check reads
    them; a provider built where they are not says so in its own ``capabilities``."""

    def __init__(self, options: Mapping[str, Any], run: RunInfo) -> None:
        self.options = dict(options)
        self.run = run
        self.root = Path(self.options.get("root") or default_root())
        self.cache = ImageCache(self.root)
        self.pull = self.options.get("pull", "missing")
        self.overlay = pick_mode(str(self.options.get("overlay", "auto")))
        self.disk_limit = parse_size(self.options.get("disk_limit", DEFAULT_DISK_LIMIT), "disk_limit")
        if os.geteuid() != 0:
            self.disk_limit = None  # the size-limited filesystem is a loop mount: root only
        self.controllers = cgroups.available() if self.options.get("cgroups", True) else []
        self.capabilities = self._capabilities_here()
        self._docker: Any = None
        self._children: dict[str, subprocess.Popen[bytes]] = {}
        self._lock = threading.Lock()

    def _capabilities_here(self) -> frozenset[str]:
        missing = set()
        if not {"memory", "pids"} <= set(self.controllers):
            missing |= {"limits"}
        if "memory" not in self.controllers:
            missing |= {"oom"}
        if "pids" not in self.controllers:
            missing |= {"pids-limit"}
        if not self.disk_limit:
            missing |= {"disk-limit"}
        return type(self).capabilities - missing

    @property
    def sandboxes(self) -> Path:
        return self.root / "sandboxes"

    # -- checks ----------------------------------------------------------------------------------

    def preflight(self, timeout: float = 10.0) -> None:
        """Raise InfraError (``provider_unavailable``) unless bwrap can start a sandbox here."""
        missing = [tool for tool in TOOLS if shutil.which(tool) is None]
        if missing:
            raise InfraError(
                "provider_unavailable",
                f"bubblewrap provider: {', '.join(missing)} not found (apt-get install bubblewrap util-linux)",
            )
        try:
            self.sandboxes.mkdir(parents=True, exist_ok=True)
            proc = subprocess.run(
                ["bwrap", "--ro-bind", "/", "/", "--unshare-all", "true"],
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise InfraError("provider_unavailable", f"bubblewrap provider: {exc}") from None
        if proc.returncode != 0:
            raise InfraError(
                "provider_unavailable",
                f"bwrap cannot create namespaces here ({proc.stderr.strip()}); unprivileged user "
                "namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1)",
            )

    def version(self) -> str:
        """The runtime and its version, as the report header shows them (``bubblewrap 0.8.0``)."""
        try:
            out = subprocess.run(["bwrap", "--version"], capture_output=True, text=True, check=False).stdout
        except OSError as exc:
            raise InfraError(
                "provider_unavailable", f"bubblewrap provider: bwrap cannot run: {exc}"
            ) from None
        return out.strip() or "bubblewrap"

    # -- images (the ImageBuilder protocol) ------------------------------------------------------

    def _docker_client(self) -> Any:
        """A client of the local Docker engine, or None when none answers (asked once)."""
        with self._lock:
            if self._docker is None:
                self._docker = connect_docker(self.options.get("docker_host")) or False
            return self._docker or None

    def _docker_id(self, tag: str) -> str | None:
        return docker_image_id(self._docker_client(), tag)

    def image_exists(self, tag: str) -> bool:
        """Whether ``tag``'s root filesystem is ready; one the Docker engine has (or has anew) is
        unpacked now, so ``pytest-swe images`` leaves every tag ready for a run without the engine."""
        cached = self.cache.lookup(tag)
        docker_id = None if tag.startswith(SKOPEO_TRANSPORTS) else self._docker_id(tag)
        if docker_id is not None and (cached is None or cached.digest != docker_id):
            self.cache.from_docker(self._docker_client(), tag)
            return True
        return cached is not None

    def pull_image(self, tag: str) -> None:
        if tag.startswith(SKOPEO_TRANSPORTS):
            self.cache.from_skopeo(tag)
        elif self._docker_id(tag) is not None:
            self.cache.from_docker(self._docker_client(), tag)
        else:
            self.cache.from_skopeo(f"docker://{tag}", tag)

    def build_image(self, context: bytes, tag: str, *, network: bool = False) -> None:
        """By the Docker engine when one answers (then unpacked), else by the Dockerfile subset here."""
        client = self._docker_client()
        if client is not None:
            from ..docker import images as docker_images

            docker_images.build_image(client, context, tag, network=network)
            self.cache.from_docker(client, tag)
            return
        import io
        import tarfile

        with tarfile.open(fileobj=io.BytesIO(context)) as tar:
            member = tar.extractfile("Dockerfile")
            dockerfile = member.read().decode() if member else ""
        base = self.ensure_image(parse_dockerfile(dockerfile)[0][1].split()[0])
        self.cache.build(context, tag, base, self._build_step(network))

    def import_image(self, rootfs: Path, tag: str) -> None:
        self.cache.from_tarball(rootfs, tag)

    def ensure_image(self, tag: str) -> Image:
        """The root filesystem of ``tag`` under the pull policy (``missing``, ``always``, ``never``)."""
        if self.pull == "always":
            self.pull_image(tag)
        image = self.cache.lookup(tag)
        if image is not None:
            return image
        if self.pull == "never":
            raise InfraError(
                "image_missing",
                f"image {tag} has no root filesystem yet (pull: never): run "
                "`pytest-swe images BENCHMARK --provider bubblewrap` with the Docker engine up",
            )
        self.pull_image(tag)
        image = self.cache.lookup(tag)
        if image is None:
            raise InfraError("image_missing", f"image {tag} could not be unpacked")
        return image

    def _build_step(self, network: bool) -> Callable[[Path, str, Mapping[str, str], str], None]:
        def run(rootfs: Path, command: str, env: Mapping[str, str], workdir: str) -> None:
            argv = ["bwrap", "--bind", str(rootfs), "/", "--proc", "/proc", "--dev", "/dev", "--unshare-all"]
            argv += ["--share-net"] if network else []
            argv += ["--chdir", workdir, "--clearenv"]
            for key, value in env.items():
                argv += ["--setenv", key, value]
            proc = subprocess.run(
                [*argv, "/bin/sh", "-c", command], capture_output=True, text=True, check=False
            )
            if proc.returncode != 0:
                raise InfraError(
                    "image_build",
                    f"RUN {command!r} exited {proc.returncode}: {(proc.stdout + proc.stderr)[-2000:]}",
                )

        return run

    # -- sandboxes -------------------------------------------------------------------------------

    def labels(self, spec: SandboxSpec) -> dict[str, str]:
        return sandbox_labels(self.run, spec)

    def create(self, spec: SandboxSpec) -> BubblewrapSandbox:

        image = self.ensure_image(spec.image)
        sandbox_id = f"bw-{uuid.uuid4().hex[:12]}"
        base = self.sandboxes / sandbox_id
        base.mkdir(parents=True)
        meta: dict[str, Any] = {
            "id": sandbox_id,
            "image": spec.image,
            "digest": image.digest,
            "labels": self.labels(spec),
            "mode": self.overlay,
            "controllers": self.controllers,
        }
        _write_meta(base, meta)  # first: a sandbox cut short from here on is still found and reaped
        groups = SandboxGroups(sandbox_id, self.controllers)
        layer = Layer(base, self.overlay)
        try:
            groups.create(memory=parse_size(spec.memory, "memory"), pids=spec.pids, cpus=spec.cpus)
            layer.create(image.rootfs, self.disk_limit)
            init_pid, bwrap = self._start(sandbox_id, spec, base, layer, groups)
        except (OSError, InfraError) as exc:
            self.remove(sandbox_id)
            raise InfraError("sandbox_start", f"cannot start a sandbox from {spec.image}: {exc}") from None
        self._children[sandbox_id] = bwrap
        meta.update(
            init_pid=init_pid,
            init_start=process_start(init_pid),
            bwrap_pid=bwrap.pid,
            workdir=spec.workdir,
        )
        _write_meta(base, meta)
        env = {**image.env, "HOSTNAME": sandbox_id, **spec.env}
        env.setdefault("HOME", "/root")
        return BubblewrapSandbox(
            self, sandbox_id, spec, layer=layer, groups=groups, init_pid=init_pid, env=env
        )

    def _start(
        self, sandbox_id: str, spec: SandboxSpec, base: Path, layer: Layer, groups: SandboxGroups
    ) -> tuple[int, subprocess.Popen[bytes]]:
        """Start the keep-alive; return the host pid of the sandbox's pid 1 (from bwrap's info fd)."""
        (base / "hosts").write_text(HOSTS.format(name=sandbox_id))
        argv = ["bwrap", "--bind", str(layer.root), "/", "--proc", "/proc", *dev_args(), "--unshare-all"]
        if spec.network:
            argv.append("--share-net")
        argv += ["--hostname", sandbox_id, "--ro-bind", str(base / "hosts"), "/etc/hosts"]
        for host, inside in spec.mounts.items():
            argv += ["--bind", host, inside]
        ttl = sandbox_ttl(spec)
        read_end, write_end = os.pipe()
        joins = groups.procs_files("keep") if groups.controllers else []
        argv += [
            "--info-fd",
            str(write_end),
            "/bin/sh",
            "-c",
            KEEP_ALIVE,
            "keep-alive",
            spec.workdir,
            str(ttl),
        ]
        try:
            with open(base / "bwrap.log", "wb") as log:
                bwrap = subprocess.Popen(
                    ["/bin/sh", "-c", ENTER, "enter", *joins, "--", *argv],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    pass_fds=(write_end,),
                    start_new_session=True,  # the owner's Ctrl-C is not the sandbox's
                )
        finally:
            os.close(write_end)
        assert bwrap.stdout is not None
        try:
            info = self._read_info(read_end, bwrap, spec.start_timeout)
            ready = info is not None and self._read_ready(bwrap.stdout.fileno(), bwrap, spec.start_timeout)
        finally:
            os.close(read_end)
            bwrap.stdout.close()
        if info is None or not ready:
            with contextlib.suppress(OSError):
                bwrap.kill()
            bwrap.wait(5)
            log_text = (base / "bwrap.log").read_text(errors="replace").strip()[-1000:]
            raise InfraError("sandbox_start", f"bwrap did not start: {log_text or 'no output'}")
        return int(info["child-pid"]), bwrap

    @staticmethod
    def _read_info(fd: int, bwrap: subprocess.Popen[bytes], timeout: float) -> dict[str, Any] | None:
        data = b""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                data += chunk
                with contextlib.suppress(ValueError):
                    info: dict[str, Any] = json.loads(data)
                    return info
            elif bwrap.poll() is not None:
                break
        try:
            found: dict[str, Any] = json.loads(data)
            return found if "child-pid" in found else None
        except ValueError:
            return None

    @staticmethod
    def _read_ready(fd: int, bwrap: subprocess.Popen[bytes], timeout: float) -> bool:
        data = b""
        end = time.monotonic() + timeout
        while b"ready" not in data and time.monotonic() < end:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                chunk = os.read(fd, 256)
                if not chunk:
                    return False
                data += chunk
            elif bwrap.poll() is not None:
                return False
        return b"ready" in data

    def lookup_user(self, sandbox: BubblewrapSandbox, user: str | None) -> tuple[int, int] | None:
        """(uid, gid) of ``user`` in the sandbox's /etc/passwd; None for root or the default."""
        if not user or user in ("root", "0", "0:0"):
            return None
        name, _, group = user.partition(":")
        if name.isdigit():
            return int(name), int(group) if group.isdigit() else int(name)
        with contextlib.suppress(OSError):
            for line in (sandbox.layer.root / "etc" / "passwd").read_text().splitlines():
                fields = line.split(":")
                if len(fields) > 3 and fields[0] == name:
                    return int(fields[2]), int(fields[3])
        raise InfraError("sandbox_error", f"no user {user!r} in sandbox {sandbox.id}")

    # -- removal ---------------------------------------------------------------------------------

    def remove(self, sandbox_id: str) -> CleanupResult:
        """Kill a sandbox's processes, unmount and delete its layer, remove its cgroups; confirm it."""
        base = self.sandboxes / sandbox_id
        self.sandboxes.mkdir(parents=True, exist_ok=True)
        lock_path = self.sandboxes / f".{sandbox_id}.lock"
        with open(lock_path, "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # one remover at a time; a second finds it gone
            try:
                if not base.exists():
                    return CleanupResult(True)
                return self._remove_locked(sandbox_id, base)
            finally:
                with contextlib.suppress(OSError):
                    lock_path.unlink()

    def _remove_locked(self, sandbox_id: str, base: Path) -> CleanupResult:
        import psutil

        meta = read_meta(base) or {}
        groups = SandboxGroups(sandbox_id, meta.get("controllers", self.controllers))
        errors = []
        if groups.controllers and not groups.kill():
            errors.append("processes survived the cgroup kill")
        for pid_key, start_key in (("init_pid", "init_start"), ("bwrap_pid", None)):
            pid = meta.get(pid_key)
            if _process_alive(pid, meta.get(start_key) if start_key else None):
                with contextlib.suppress(psutil.Error):
                    psutil.Process(pid).kill()
        child = self._children.pop(sandbox_id, None)
        if child is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(5)
        layer = Layer(base, meta.get("mode", self.overlay))
        if not layer.remove():
            errors.append(f"mounts left under {base}")
        if not groups.remove():
            errors.append("cgroups left")
        removed = not base.exists() and not errors
        return CleanupResult(removed, 1, "; ".join(errors) or None)

    def reap(
        self,
        *,
        run_id: str | None = None,
        worker: str | None = None,
        orphans: bool = False,
        kept: bool | None = False,
    ) -> list[str]:
        """Remove sandboxes of a run (or of every run), of a worker, or orphans; return their ids."""
        try:
            found = sorted(p for p in self.sandboxes.iterdir() if p.is_dir())
        except OSError:
            return []
        now = time.time()
        host = socket.gethostname()
        doomed = []
        for base in found:
            meta = read_meta(base)
            labels = (meta or {}).get("labels") or {}
            if meta is None:
                # No meta (cut short while written): old enough, it belongs to nobody.
                with contextlib.suppress(OSError):
                    if orphans and now - base.stat().st_mtime > 60:
                        doomed.append(base.name)
                continue
            if run_id and labels.get(f"{LABEL}.run") != run_id:
                continue
            if worker and labels.get(f"{LABEL}.worker") != worker:
                continue
            if reap_takes(
                labels, kept=kept, orphan=self._is_orphan(meta, labels, now, host) if orphans else None
            ):
                doomed.append(base.name)
        if not doomed:
            return []
        with concurrent.futures.ThreadPoolExecutor(max_workers=min(REAP_PARALLEL, len(doomed))) as pool:
            results = list(pool.map(self.remove, doomed))
        return [sid for sid, result in zip(doomed, results, strict=True) if result.removed]

    @staticmethod
    def _is_orphan(meta: Mapping[str, Any], labels: Mapping[str, str], now: float, host: str) -> bool:
        if is_orphan(labels, now, host):
            return True
        started = meta.get("init_pid") is not None
        return (
            started
            and labels.get(f"{LABEL}.owner-host") == host
            and not _process_alive(meta.get("init_pid"), meta.get("init_start"))
        )

    def close(self) -> None:
        if self._docker:
            with contextlib.suppress(Exception):  # closing a client of an engine that is gone
                self._docker.close()
        self._docker = None
