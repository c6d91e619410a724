"""Set-up of the provider conformance suite: every provider the registry knows, each given a tiny
test image through the provider's own means.

A provider needs nothing here when it implements ``ImageBuilder`` and works with its default
options: its image is imported from a busybox root filesystem tarball. Otherwise it adds one
entry to :data:`PROVIDER_SETUP` (name -> function(tmp dir) returning (options, image)).
"""

from __future__ import annotations

import functools
import io
import json
import os
import shutil
import subprocess
import tarfile
from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from pytest_swe.api.sandbox import ImageBuilder
from pytest_swe.api.sandbox import Preflight
from pytest_swe.api.sandbox import Provider
from pytest_swe.api.sandbox import ProviderFactory
from pytest_swe.api.sandbox import RunInfo
from pytest_swe.api.sandbox import SandboxSpec
from pytest_swe.api.sandbox import this_run
from pytest_swe.runner.registry import Registry
from pytest_swe.runner.registry import plugin_manager_for_tools

from conftest import IN_CI
from conftest import REPO
from conftest import run_shared_dir

REQUIRED_IN_CI = frozenset({"docker", "podman", "bubblewrap"})
"""Providers CI installs (.ci/run): when CI=true one that does not work fails its tests."""
TINY_IMAGE = "pytest-swe-conformance/tiny:1"
DISK_LIMIT = "64m"
"""The disk limit the suite gives providers that take one (provider option ``disk_limit``)."""
PREFLIGHT_SECONDS = 30.0

Setup = Callable[[Path], tuple[dict[str, Any], str]]


@functools.cache
def registry() -> Registry:
    return Registry(plugin_manager_for_tools())


def provider_names() -> list[str]:
    return sorted(registry().providers)


def factory(name: str) -> ProviderFactory:
    return registry().providers.get(name)


def unavailable(name: str, reason: str) -> None:
    """A provider that cannot work here: skipped with the reason, failed in CI for those CI installs."""
    message = f"provider {name!r} is not available here: {reason}"
    if IN_CI and name in REQUIRED_IN_CI:
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def check_available(name: str, provider: Provider) -> None:
    if isinstance(provider, Preflight):
        try:
            provider.preflight(timeout=PREFLIGHT_SECONDS)
        except Exception as exc:  # any provider plugin's failure says why it cannot work here
            unavailable(name, str(exc))


def _static_busybox() -> Path:
    """The host's statically linked busybox (Debian ``busybox-static``): a root filesystem of one file."""
    found = shutil.which("busybox")
    if found is None:
        pytest.fail("the conformance image needs busybox: apt-get install busybox-static", pytrace=False)
    ldd = subprocess.run(["ldd", found], capture_output=True, text=True, check=False)
    if ldd.returncode == 0 and "=>" in ldd.stdout:
        pytest.fail(f"{found} is linked dynamically: apt-get install busybox-static", pytrace=False)
    return Path(found)


def tiny_rootfs(dest: Path) -> Path:
    """A root filesystem tarball holding only a static busybox and its applets (about 2 MB)."""
    busybox = _static_busybox()
    archive = dest / "tiny-rootfs.tar"
    if archive.exists():
        return archive
    applets = subprocess.run(
        [str(busybox), "--list-full"], capture_output=True, text=True, check=True
    ).stdout.split()
    partial = archive.with_suffix(".partial")
    with tarfile.open(partial, "w") as tar:
        for directory, mode in [
            ("bin", 0o755),
            ("sbin", 0o755),
            ("usr", 0o755),
            ("usr/bin", 0o755),
            ("usr/sbin", 0o755),
            ("etc", 0o755),
            ("root", 0o700),
            ("proc", 0o555),
            ("sys", 0o555),
            ("dev", 0o755),
            ("tmp", 0o1777),
            ("var", 0o755),
            ("var/tmp", 0o1777),
        ]:
            info = tarfile.TarInfo(directory)
            info.type = tarfile.DIRTYPE
            info.mode = mode
            tar.addfile(info)
        tar.add(str(busybox), arcname="bin/busybox")
        for applet in applets:
            if applet == "bin/busybox":
                continue
            info = tarfile.TarInfo(applet)
            info.type = tarfile.SYMTYPE
            info.linkname = "/bin/busybox"
            tar.addfile(info)
        for name, text in [
            ("etc/passwd", "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n"),
            ("etc/group", "root:x:0:\nnogroup:x:65534:\n"),
        ]:
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    partial.rename(archive)
    return archive


def import_tiny(name: str, tmp: Path, **options: Any) -> tuple[dict[str, Any], str]:
    """Import the tiny image with the provider's ``ImageBuilder.import_image``; return (options, image)."""
    opts = {"name": name, **options}
    provider = factory(name)(opts, this_run())
    try:
        check_available(name, provider)
        if not isinstance(provider, ImageBuilder):
            pytest.skip(f"provider {name!r} cannot import images and has no PROVIDER_SETUP entry")
        provider.import_image(tiny_rootfs(tmp), TINY_IMAGE)
    finally:
        provider.close()
    return opts, TINY_IMAGE


def kubernetes_cluster(tmp: Path) -> tuple[dict[str, Any], str]:
    """The cluster of the kubeconfig context ``PYTEST_SWE_K8S_CONTEXT`` (no API server can run on the
    machines this project is tested on): namespace ``PYTEST_SWE_K8S_NAMESPACE``, and an image with sh,
    tar and nc that the cluster pulls itself, ``PYTEST_SWE_K8S_IMAGE`` (default busybox:1.36)."""
    context = os.environ.get("PYTEST_SWE_K8S_CONTEXT")
    if not context:
        pytest.skip(
            "provider 'kubernetes': no cluster here; set PYTEST_SWE_K8S_CONTEXT to a kubeconfig context "
            "(and PYTEST_SWE_K8S_NAMESPACE, PYTEST_SWE_K8S_IMAGE) to run the suite on one"
        )
    namespace = os.environ.get("PYTEST_SWE_K8S_NAMESPACE", "default")
    options = {"name": "kubernetes", "context": context, "namespace": namespace, "disk_limit": DISK_LIMIT}
    check_available("kubernetes", factory("kubernetes")(options, this_run()))
    return options, os.environ.get("PYTEST_SWE_K8S_IMAGE", "busybox:1.36")


PROVIDER_SETUP: dict[str, Setup] = {
    "docker": lambda tmp: import_tiny("docker", tmp, pull="never", disk_limit=DISK_LIMIT),
    "podman": lambda tmp: import_tiny("podman", tmp, pull="never", disk_limit=DISK_LIMIT),
    "bubblewrap": lambda tmp: import_tiny("bubblewrap", tmp, pull="never", disk_limit=DISK_LIMIT),
    "kubernetes": kubernetes_cluster,
}
"""How each provider gets the suite's image: name -> function(tmp dir) returning (options, image).
A provider without an entry is imported with :func:`import_tiny` and its default options."""


@dataclass
class Target:
    """One provider under test: its name, the options it is built with, the image it starts."""

    name: str
    options: dict[str, Any]
    image: str
    shared: Path

    def build(self, run: RunInfo) -> Provider:
        return factory(self.name)(self.options, run)

    def spec(self, **fields: Any) -> SandboxSpec:
        defaults: dict[str, Any] = {"workdir": "/tmp", "memory": "256m", "pids": 64, "cpus": 1.0}
        return SandboxSpec(image=self.image, **{**defaults, **fields})


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "target" in metafunc.fixturenames:
        names = provider_names()
        metafunc.parametrize("target", names, indirect=True, scope="session", ids=names)


@pytest.fixture(scope="session")
def target(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Target:
    """The provider, checked to work here, with the suite's image (set up once per test run)."""
    name: str = request.param
    shared = run_shared_dir(tmp_path_factory) / f"conformance-{name}"
    shared.mkdir(parents=True, exist_ok=True)
    setup = PROVIDER_SETUP.get(name) or functools.partial(import_tiny, name)
    done = shared / "setup.json"
    with FileLock(str(shared / "setup.lock")):
        if done.exists():
            options, image = json.loads(done.read_text())
            check_available(name, factory(name)(options, this_run()))
        else:
            options, image = setup(shared)
            done.write_text(json.dumps([options, image]))
    return Target(name, options, image, shared)


@pytest.fixture
def run() -> RunInfo:
    return this_run(worker="conformance", run_id=f"conf-{os.getpid()}-{os.urandom(4).hex()}")


@pytest.fixture
def provider(target: Target, run: RunInfo) -> Iterator[Provider]:
    built = target.build(run)
    yield built
    built.reap(run_id=run.run_id, kept=None)
    built.close()


def require(provider: Provider, capability: str) -> None:
    """Skip unless the provider declares ``capability`` (the reason names what it does declare)."""
    if capability not in provider.capabilities:
        pytest.skip(
            f"provider {provider.name!r} does not offer {capability!r} "
            f"(its capabilities: {', '.join(sorted(provider.capabilities)) or 'none'})"
        )


def prepare_images(target: Target, benchmarks: list[Path]) -> None:
    """Make the benchmarks' images (and the base image) available to the provider, once per test
    run, as ``pytest-swe images BENCHMARKS --provider NAME`` does."""
    from pytest_swe.tools.cli import main

    marker = target.shared / ("images-" + "-".join(sorted(p.stem for p in benchmarks)))
    with FileLock(str(target.shared / "images.lock")):
        if marker.exists():
            return
        builder = target.build(this_run())
        builds = isinstance(builder, ImageBuilder)
        builder.close()
        if not builds:
            pytest.skip(f"provider {target.name!r} cannot make images (no ImageBuilder)")
        status = main(["images", *map(str, benchmarks), "--provider", target.name])
        assert status == 0, f"pytest-swe images ... --provider {target.name} exited {status}"
        marker.touch()


DEMO_YAML = REPO / "benchmarks" / "demo.yaml"


def local_per_family() -> list[Path]:
    """The first local benchmark (``benchmarks/*-local.yaml``) of each family."""
    from pytest_swe.runner.config import load_benchmark

    chosen: dict[str, Path] = {}
    for path in sorted((REPO / "benchmarks").glob("*-local.yaml")):
        chosen.setdefault(load_benchmark(path).family, path)
    return sorted(chosen.values())


LOCAL_YAMLS = local_per_family()
