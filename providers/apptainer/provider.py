"""The Apptainer provider: instances from SIF images, reaped by the run id their names carry.

SIF images are built once per image digest into ``<root>/sif/`` (``apptainer build`` from the
local Docker engine, ``docker-daemon://TAG``, from an OCI or Docker archive, or from a root
filesystem tarball unpacked to a directory) and found by tag through ``<root>/tags/``. Each
instance's labels and owner (pid, start time, ttl) are kept in ``<root>/instances/<name>.json``;
``reap`` lists the instances (``apptainer instance list --json``) and removes those of a run, a
worker, or an owner that is gone.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
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
from pytest_swe.api.sandbox import reap_takes
from pytest_swe.api.sandbox import sandbox_labels

from ..bubblewrap.images import SKOPEO_TRANSPORTS
from ..bubblewrap.images import tag_key
from ..bubblewrap.provider import connect_docker
from ..bubblewrap.provider import docker_image_id
from . import commands
from .commands import Instance
from .sandbox import ApptainerSandbox

NOT_INSTALLED = (
    "apptainer is not on PATH (it is not packaged for Debian 12: install it from the Apptainer "
    "project's packages or your cluster's modules, e.g. `module load apptainer`)"
)

Runner = Callable[..., "subprocess.CompletedProcess[bytes]"]


def default_root() -> Path:
    if os.environ.get("PYTEST_SWE_APPTAINER_ROOT"):
        return Path(os.environ["PYTEST_SWE_APPTAINER_ROOT"])
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(cache) / "pytest-swe" / "apptainer"


class ApptainerProvider:
    """Sandboxes as Apptainer instances (HPC clusters: no daemon, no root)."""

    name = "apptainer"
    capabilities = frozenset({"exec", "files", "network-off", "labels"})
    """No ``limits``: Apptainer's cgroup flags need root or a systemd user session, which a cluster
    job seldom has (provider option ``cgroups: true`` passes them anyway); no ``ttl``: an instance
    runs until stopped, so ``reap`` removes one whose ttl passed."""

    runner: Runner = staticmethod(subprocess.run)  # type: ignore[assignment]
    """Runs one apptainer command (replaced in unit tests, where apptainer is absent)."""

    def __init__(self, options: Mapping[str, Any], run: RunInfo) -> None:
        self.options = dict(options)
        self.run = run
        self.root = Path(self.options.get("root") or default_root())
        self.cgroups = bool(self.options.get("cgroups", False))
        self._lock = threading.Lock()
        self._docker_state: Any = None

    # -- running apptainer ------------------------------------------------------------------------

    def _apptainer(self, argv: list[str], what: str, kind: str = "sandbox_error", **kwargs: Any) -> str:
        try:
            done = self.runner(argv, capture_output=True, **kwargs)
        except FileNotFoundError:
            raise InfraError("provider_unavailable", NOT_INSTALLED) from None
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise InfraError(kind, f"{what}: {exc}") from None
        if done.returncode != 0:
            err = (done.stderr or b"").decode(errors="replace").strip()[-1500:]
            raise InfraError(kind, f"{what}: apptainer exited {done.returncode}: {err}")
        return (done.stdout or b"").decode(errors="replace")

    def preflight(self, timeout: float = 10.0) -> None:
        if shutil.which("apptainer") is None:
            raise InfraError("provider_unavailable", NOT_INSTALLED)
        self._apptainer(
            ["apptainer", "--version"], "apptainer --version", "provider_unavailable", timeout=timeout
        )

    def version(self) -> str:
        """The runtime and its version, as the report header shows them (``apptainer 1.3.4``)."""
        out = self._apptainer(["apptainer", "--version"], "apptainer --version", "provider_unavailable")
        return "apptainer " + commands.parse_version(out)

    def instances(self) -> list[Instance]:
        try:
            return commands.parse_instances(self._apptainer(commands.list_argv(), "instance list"))
        except (InfraError, ValueError):
            return []

    # -- images (the ImageBuilder protocol) -------------------------------------------------------

    def _docker_client(self) -> Any:
        with self._lock:
            if self._docker_state is None:
                self._docker_state = connect_docker(self.options.get("docker_host")) or False
            return self._docker_state or None

    def sif_of(self, tag: str) -> Path | None:
        try:
            digest = json.loads((self.root / "tags" / f"{tag_key(tag)}.json").read_text())["digest"]
        except (OSError, ValueError, KeyError):
            return None
        sif = self.root / "sif" / f"{digest.replace('sha256:', '')}.sif"
        return sif if sif.exists() else None

    def _build(self, tag: str, digest: str, source: str) -> Path:
        """``apptainer build`` of ``source`` into the SIF of ``digest`` (once), tagged ``tag``."""
        sif = self.root / "sif" / f"{digest.replace('sha256:', '')}.sif"
        if not sif.exists():
            sif.parent.mkdir(parents=True, exist_ok=True)
            partial = sif.with_suffix(f".{os.getpid()}.partial.sif")
            self._apptainer(commands.build_argv(str(partial), source), f"building {tag}", "image_missing")
            partial.replace(sif)
        (self.root / "tags").mkdir(parents=True, exist_ok=True)
        (self.root / "tags" / f"{tag_key(tag)}.json").write_text(json.dumps({"tag": tag, "digest": digest}))
        return sif

    def _docker_id(self, tag: str) -> str | None:
        return docker_image_id(self._docker_client(), tag)

    def image_exists(self, tag: str) -> bool:
        docker_id = None if tag.startswith(SKOPEO_TRANSPORTS) else self._docker_id(tag)
        if docker_id is not None:
            self._build(tag, docker_id, f"docker-daemon://{tag}")
            return True
        return self.sif_of(tag) is not None

    def pull_image(self, tag: str) -> None:
        if tag.startswith(SKOPEO_TRANSPORTS) and not tag.startswith("docker://"):
            path = tag.split(":", 1)[1].split(":", 1)[0]
            self._build(tag, _file_digest(Path(path)), commands.source_of(tag))
        elif (docker_id := self._docker_id(tag)) is not None:
            self._build(tag, docker_id, f"docker-daemon://{tag}")
        else:
            reference = tag if tag.startswith("docker://") else f"docker://{tag}"
            self._build(tag, "sha256:" + hashlib.sha256(reference.encode()).hexdigest(), reference)

    def build_image(self, context: bytes, tag: str, *, network: bool = False) -> None:
        client = self._docker_client()
        if client is None:
            raise InfraError(
                "image_build", f"building {tag} for Apptainer needs a Docker engine (none answers)"
            )
        from ..docker import images as docker_images

        docker_images.build_image(client, context, tag, network=network)
        self._build(tag, str(client.api.inspect_image(tag)["Id"]), f"docker-daemon://{tag}")

    def import_image(self, rootfs: Path, tag: str) -> None:
        """A root filesystem tarball, unpacked to a directory that ``apptainer build`` turns into a SIF."""
        digest = _file_digest(rootfs)
        self.root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="rootfs-", dir=self.root) as tmp:
            subprocess.run(["tar", "-x", "-C", tmp, "-f", str(rootfs)], check=True, capture_output=True)
            self._build(tag, digest, tmp)

    def _ensure(self, tag: str) -> Path:
        sif = self.sif_of(tag)
        if sif is None:
            if self.options.get("pull", "missing") == "never":
                raise InfraError("image_missing", f"image {tag} has no SIF yet (pull: never)")
            self.pull_image(tag)
            sif = self.sif_of(tag)
        if sif is None:
            raise InfraError("image_missing", f"image {tag} could not be built as a SIF")
        return sif

    # -- sandboxes ---------------------------------------------------------------------------------

    def labels(self, spec: SandboxSpec) -> dict[str, str]:
        return sandbox_labels(self.run, spec)

    def start_argv(self, spec: SandboxSpec, sif: Path, name: str) -> list[str]:
        return commands.start_argv(
            str(sif),
            name,
            workdir=spec.workdir,
            env=spec.env,
            network=spec.network,
            mounts=spec.mounts,
            memory=spec.memory if self.cgroups else None,
            pids=spec.pids if self.cgroups else None,
            cpus=spec.cpus if self.cgroups else None,
        )

    def create(self, spec: SandboxSpec) -> ApptainerSandbox:
        sif = self._ensure(spec.image)
        name = commands.instance_name(self.run.run_id, self.run.worker, spec.role, uuid.uuid4().hex[:8])
        meta_dir = self.root / "instances"
        meta_dir.mkdir(parents=True, exist_ok=True)
        (meta_dir / f"{name}.json").write_text(json.dumps({"name": name, "labels": self.labels(spec)}))
        try:
            self._apptainer(
                self.start_argv(spec, sif, name),
                f"starting {spec.image}",
                "sandbox_start",
                timeout=spec.start_timeout,
            )
        except InfraError:
            self.remove(name)
            raise
        return ApptainerSandbox(self, name, spec, spec.env)

    def remove(self, name: str) -> CleanupResult:
        """Stop an instance (SIGKILL when it will not stop) and confirm it is no longer listed."""
        errors = []
        for attempt, force in enumerate((False, True, True)):
            if not any(i.name == name for i in self.instances()):
                break
            try:
                self._apptainer(commands.stop_argv(name, force=force), f"stopping {name}", timeout=60)
            except InfraError as exc:
                errors.append(str(exc))
            time.sleep(0.2 * attempt)
        removed = not any(i.name == name for i in self.instances())
        if removed:
            with contextlib.suppress(OSError):
                (self.root / "instances" / f"{name}.json").unlink()
        return CleanupResult(removed, 1, None if removed else (errors[-1] if errors else "still listed"))

    def reap(
        self,
        *,
        run_id: str | None = None,
        worker: str | None = None,
        orphans: bool = False,
        kept: bool | None = False,
    ) -> list[str]:
        now = time.time()
        host = socket.gethostname()
        doomed = []
        for instance in self.instances():
            named = commands.name_run(instance.name)
            if named is None:
                continue  # not started by pytest-swe
            labels = self._labels_of(instance.name)
            if run_id and not commands.names_run(instance.name, run_id):
                continue
            if worker and labels.get(f"{LABEL}.worker", named[1]) != worker:
                continue
            # No labels: started with another ``root`` (its owner is unknown here), no orphan.
            orphan = bool(labels) and is_orphan(labels, now, host) if orphans else None
            if reap_takes(labels, kept=kept, orphan=orphan):
                doomed.append(instance.name)
        return [name for name in doomed if self.remove(name).removed]

    def _labels_of(self, name: str) -> dict[str, str]:
        try:
            labels: dict[str, str] = json.loads((self.root / "instances" / f"{name}.json").read_text())[
                "labels"
            ]
        except (OSError, ValueError, KeyError):
            return {}
        return labels

    def close(self) -> None:
        if self._docker_state:
            with contextlib.suppress(Exception):  # closing a client of an engine that is gone
                self._docker_state.close()
        self._docker_state = None


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return f"sha256:{digest.hexdigest()}"
