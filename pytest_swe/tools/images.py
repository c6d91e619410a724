"""Building images locally: the base image (with or without a registry) and a local dataset's images.

The base image is Debian 12 with Python 3, pytest, git and patch. When a registry is
reachable it is built from ``debian:bookworm-slim``; otherwise from a ``debootstrap`` root
filesystem imported with ``docker import``. The Debian mirror is read from
``PYTEST_SWE_DEBIAN_MIRROR`` or the machine's apt sources; no mirror is built in.

A local dataset's images come from its benchmark file's ``build`` section: each row's
repository directory is committed deterministically (:mod:`pytest_swe.tools.gitsnap`) into the
row's workdir, so the image's HEAD is the row's ``base_commit``.

Everything here is provider-neutral: build contexts and Dockerfile text are made here, and a
provider implementing :class:`~pytest_swe.api.sandbox.ImageBuilder` only pulls, builds or imports.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import InfraError
from pytest_swe.api.errors import RowError
from pytest_swe.api.family import Family
from pytest_swe.api.sandbox import ImageBuilder
from pytest_swe.api.sandbox import ImagePrefetch
from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.api.task import Task
from pytest_swe.tools import gitsnap

BASE_IMAGE = os.environ.get("PYTEST_SWE_BASE_IMAGE", "pytest-swe/base:bookworm")
BASE_PACKAGES = ("python3", "python3-pytest", "git", "patch", "ca-certificates", "procps")
REGISTRY_BASE = "debian:bookworm-slim"

Log = Callable[[str], None]


def debian_mirror() -> str:
    """The Debian mirror: ``PYTEST_SWE_DEBIAN_MIRROR``, else the first one in the apt sources."""
    mirror = os.environ.get("PYTEST_SWE_DEBIAN_MIRROR")
    if mirror:
        return mirror
    sources = sorted(Path("/etc/apt/sources.list.d").glob("*.sources"))
    for path in sources:
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("URIs:") and "security" not in line:
                return line.split()[1]
    listing = Path("/etc/apt/sources.list")
    if listing.exists():
        for line in listing.read_text(errors="replace").splitlines():
            match = re.match(r"^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+\S+", line)
            if match and "security" not in match.group(1):
                return match.group(1)
    raise ConfigError(
        "no Debian mirror found in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list; "
        "set PYTEST_SWE_DEBIAN_MIRROR"
    )


def _dockerfile_context(dockerfile: str) -> bytes:
    """A build context holding only a Dockerfile."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        data = dockerfile.encode()
        info = tarfile.TarInfo("Dockerfile")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _build_from_registry(builder: ImageBuilder, tag: str, log: Log) -> bool:
    try:
        builder.pull_image(REGISTRY_BASE)
    except InfraError as exc:
        log(f"registry not reachable ({str(exc).splitlines()[0][:120]}); building with debootstrap")
        return False
    dockerfile = (
        f"FROM {REGISTRY_BASE}\n"
        "RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "
        f"{' '.join(BASE_PACKAGES)} && rm -rf /var/lib/apt/lists/*\n"
    )
    builder.build_image(_dockerfile_context(dockerfile), tag, network=True)
    log(f"built {tag} from {REGISTRY_BASE}")
    return True


def _build_with_debootstrap(builder: ImageBuilder, tag: str, log: Log) -> None:
    if shutil.which("debootstrap") is None:
        raise ConfigError(
            "building the base image without a registry needs debootstrap: apt-get install debootstrap"
        )
    mirror = debian_mirror()
    with tempfile.TemporaryDirectory(prefix="pytest-swe-rootfs-") as tmp:
        rootfs = Path(tmp) / "rootfs"
        log(f"debootstrap bookworm from {mirror} (about a minute)")
        proc = subprocess.run(
            [
                "debootstrap",
                "--variant=minbase",
                f"--include={','.join(BASE_PACKAGES)}",
                "bookworm",
                str(rootfs),
                mirror,
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise ConfigError(
                f"debootstrap failed ({proc.returncode}): {proc.stderr[-2000:] or proc.stdout[-2000:]}"
            )
        archive = Path(tmp) / "rootfs.tar"
        subprocess.run(["tar", "-C", str(rootfs), "-cf", str(archive), "."], check=True)
        builder.import_image(archive, tag)
    log(f"imported {tag} from a debootstrap root filesystem")


def build_base(
    builder: ImageBuilder, tag: str = BASE_IMAGE, *, force: bool = False, log: Log = print
) -> bool:
    """Build the base image unless it exists; return True when something was built."""
    if not force and builder.image_exists(tag):
        log(f"{tag} exists")
        return False
    if not _build_from_registry(builder, tag, log):
        _build_with_debootstrap(builder, tag, log)
    return True


# --- a local dataset's images -----------------------------------------------------------------


def _add_tree(tar: tarfile.TarFile, source: Path, arcname: str) -> None:
    tar.add(str(source), arcname=arcname, recursive=True)


def build_context(
    repo_dir: Path,
    base: str,
    workdir: str,
    files: dict[str, Path],
    dockerfile_lines: list[str],
    scratch: Path,
) -> tuple[bytes, str]:
    """A Docker build context (tar bytes) holding the committed repository; returns it and the commit id."""
    snapshot = scratch / "testbed"
    commit = gitsnap.snapshot(repo_dir, snapshot)
    lines = [f"FROM {base}", f"COPY testbed {workdir}"]
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        _add_tree(tar, snapshot, "testbed")
        for number, (inside, host) in enumerate(sorted(files.items())):
            if not host.exists():
                raise ConfigError(f"build.files: {host} does not exist")
            _add_tree(tar, host, f"extra/{number}")
            lines.append(f"COPY extra/{number} {inside}")
        lines += [f"WORKDIR {workdir}", *dockerfile_lines]
        dockerfile = ("\n".join(lines) + "\n").encode()
        info = tarfile.TarInfo("Dockerfile")
        info.size = len(dockerfile)
        tar.addfile(info, io.BytesIO(dockerfile))
    return buffer.getvalue(), commit


def build_benchmark_images(
    builder: ImageBuilder,
    settings: BenchmarkSettings,
    family: Family,
    rows: list[dict[str, Any]],
    *,
    force: bool = False,
    log: Log = print,
) -> list[str]:
    """Build the image of every row of a local benchmark (one per distinct image); return the built tags."""
    if settings.build is None:
        raise ConfigError(f"{settings.file}: no 'build' section: its images cannot be built locally")
    build = settings.build
    base = build.base or BASE_IMAGE
    built: list[str] = []
    done: set[str] = set()
    tasks: list[Task] = []
    for position, row in enumerate(rows, 1):
        try:
            tasks.append(family.normalize(row, settings))
        except RowError as exc:
            log(f"skipping row {position}: {exc}")
    if isinstance(builder, ImagePrefetch) and not force:
        builder.prefetch_images([base, *(task.image for task in tasks)])
    for task in tasks:
        if task.image in done:
            continue
        done.add(task.image)
        if not force and builder.image_exists(task.image):
            continue
        repo_dir = Path(build.repo.replace("{instance_id}", task.instance_id))
        files = {k: Path(v.replace("{instance_id}", task.instance_id)) for k, v in build.files.items()}
        with tempfile.TemporaryDirectory(prefix="pytest-swe-build-") as tmp:
            context, commit = build_context(repo_dir, base, task.workdir, files, build.dockerfile, Path(tmp))
        if task.base_commit and commit != task.base_commit:
            raise ConfigError(
                f"{settings.file}: row {task.instance_id}: base_commit {task.base_commit} does not match the "
                f"commit {commit} of {repo_dir}; regenerate the dataset"
            )
        builder.build_image(context, task.image, network=False)
        built.append(task.image)
        log(f"built {task.image}")
    return built


# --- a run's selection of images (pytest-swe images pull|check|prune) ---------------------------


class _Selection:
    """A pytest plugin that records, at the end of collection, the image of every selected item."""

    def __init__(self) -> None:
        self.groups: dict[str, tuple[BenchmarkSettings, dict[str, str]]] = {}
        """provider settings (as text) -> (one benchmark's settings, item node id -> image)."""
        self.items = 0

    def pytest_collection_finish(self, session: Any) -> None:
        from pytest_swe.runner import images as runimages
        from pytest_swe.runner.collect import SweItem
        from pytest_swe.runner.session import get_session

        swe = get_session(session.config)
        by_benchmark: dict[str, list[SweItem]] = {}
        for item in session.items:
            if isinstance(item, SweItem):
                by_benchmark.setdefault(item.settings.name, []).append(item)
                self.items += 1
        for group in by_benchmark.values():
            settings = group[0].settings
            found = runimages.images_of(swe, settings, [item.instance_id for item in group])
            key = repr(sorted(settings.provider.model_dump().items()))
            _, needs = self.groups.setdefault(key, (settings, {}))
            needs.update(
                {item.nodeid: found[item.instance_id] for item in group if item.instance_id in found}
            )


def select_images(args: list[str]) -> _Selection:
    """The images the items of a run with these pytest arguments need (benchmark files, ``-k``,
    ``-m``, ``--swe-set``, ...), found by collecting the run as pytest would, without running it."""
    import contextlib

    import pytest

    selection = _Selection()
    quiet = io.StringIO()
    with contextlib.redirect_stdout(quiet):
        code = pytest.main([*args, "--collect-only", "-q", "-p", "no:cacheprovider"], plugins=[selection])
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        raise ConfigError(f"collecting {' '.join(args)} failed ({code}):\n{quiet.getvalue()[-3000:]}")
    return selection
