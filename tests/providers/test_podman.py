"""What the Podman provider does beyond the Docker provider's code: rlimits every request names,
the service it finds or starts, its messages, and ``podman run`` working under the installed config."""

from __future__ import annotations

import os
import resource
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from pytest_swe.api.errors import InfraError
from pytest_swe.api.sandbox import this_run
from pytest_swe.providers.podman import DEFAULT_SOCKET
from pytest_swe.providers.podman import PodmanProvider
from pytest_swe.providers.podman.provider import hard_limits
from pytest_swe.providers.podman.provider import peer_pid
from pytest_swe.tools.cli import main as cli

from .conftest import tiny_rootfs
from .conftest import unavailable
from conftest import SweProject
from conftest import require_docker


def test_hard_limits_are_read_from_proc() -> None:
    limits = hard_limits("self")
    assert limits["nofile"] == resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    assert limits["nproc"] == resource.getrlimit(resource.RLIMIT_NPROC)[1]
    assert hard_limits(2**22 + 17) == {}  # no such process


def test_peer_pid_names_the_process_serving_a_socket(tmp_path: Path) -> None:
    path = str(tmp_path / "s.sock")
    assert peer_pid(path) is None
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(path)
        server.listen(1)
        accepted = threading.Thread(target=lambda: server.accept()[0].close(), daemon=True)
        accepted.start()
        assert peer_pid(path) == os.getpid()
        accepted.join(5)


def test_every_request_names_fsize_nofile_and_nproc(tmp_path: Path) -> None:
    """A request naming any ulimit replaces containers.conf's defaults: so all three are named."""
    host = f"unix://{tmp_path / 'none.sock'}"
    provider = PodmanProvider({"name": "podman", "host": host, "disk_limit": "64m"}, this_run())
    named = {u["Name"]: (u["Soft"], u["Hard"]) for u in provider.ulimits()}
    own = hard_limits("self")
    assert named == {
        "fsize": (64 * 2**20, 64 * 2**20),
        "nofile": (own["nofile"], own["nofile"]),
        "nproc": (own["nproc"], own["nproc"]),
    }
    lowered = PodmanProvider({"name": "podman", "host": host, "nproc": 4096}, this_run())
    assert {u["Name"]: u["Hard"] for u in lowered.ulimits()}["nproc"] == 4096


def test_a_socket_not_its_own_is_never_started_and_the_message_says_what_to_do(tmp_path: Path) -> None:
    socket_path = tmp_path / "absent" / "podman.sock"
    provider = PodmanProvider({"name": "podman", "host": f"unix://{socket_path}"}, this_run())
    assert not provider.start_service
    assert PodmanProvider({"name": "podman"}, this_run()).host == f"unix://{DEFAULT_SOCKET}"
    with pytest.raises(InfraError) as excinfo:
        provider.preflight(timeout=5)
    assert excinfo.value.kind == "provider_unavailable"
    assert str(socket_path) in str(excinfo.value) and "install-podman.sh" in str(excinfo.value)
    assert not socket_path.parent.exists()


def test_doctor_prints_one_line_per_provider(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PYTEST_SWE_PODMAN_HOST", f"unix://{tmp_path / 'none.sock'}")
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path / 'none-docker.sock'}")
    code = cli(["doctor"])
    lines = capsys.readouterr().out.splitlines()
    by_name = {line.split(":", 1)[0]: line for line in lines}
    assert {"docker", "podman"} <= set(by_name) and len(lines) == len(by_name)
    # 1 only when nothing works: a daemonless provider (bubblewrap) works without either engine
    assert code == (0 if any(": works: " in line for line in lines) else 1)
    assert by_name["podman"].startswith("podman: unavailable: ") and "none.sock" in by_name["podman"]
    assert by_name["docker"].startswith("docker: unavailable: ")


def test_podman_run_works_under_the_installed_config(tmp_path: Path) -> None:
    """`podman run` itself (not the API) starts a container: default_ulimits fits the machine."""
    if shutil.which("podman") is None:
        unavailable("podman", "not installed (.ci/install-podman.sh installs it)")
    tag = "localhost/pytest-swe-podman-cli-check:1"
    subprocess.run(
        ["podman", "import", "-q", str(tiny_rootfs(tmp_path)), tag], check=True, capture_output=True
    )
    try:
        ran = subprocess.run(
            ["podman", "run", "--rm", "--network", "none", tag, "/bin/sh", "-c", "ulimit -Hn"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert ran.returncode == 0, ran.stderr
        assert int(ran.stdout) <= resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    finally:
        subprocess.run(["podman", "rmi", "-f", tag], capture_output=True, check=False)


def test_the_doctor_says_podman_works_when_its_service_answers(capsys: pytest.CaptureFixture[str]) -> None:
    ok = cli(["doctor", "--provider", "podman"]) == 0
    line = capsys.readouterr().out.strip()
    if not ok:
        unavailable("podman", line)
    assert line.startswith("podman: works: Podman ")


def test_images_only_docker_has_are_copied_in_one_archive(tmp_path: Path) -> None:
    """Two images the local Docker engine has and Podman lacks arrive together, without a registry."""
    docker = require_docker()
    provider = PodmanProvider({"name": "podman"}, this_run())
    try:
        provider.preflight(timeout=30)
    except InfraError as exc:
        unavailable("podman", str(exc))
    tags = [f"pytest-swe-podman-copy/tiny:{n}" for n in (1, 2)]
    try:
        for tag in tags:
            docker.api.import_image_from_file(
                str(tiny_rootfs(tmp_path)), repository=tag.split(":")[0], tag=tag[-1]
            )
            if provider.has_image(tag):
                provider.client.api.remove_image(tag, force=True)
        provider.prefetch_images(tags)
        assert all(provider.has_image(tag) for tag in tags)
        assert provider.image_exists("pytest-swe-podman-copy/absent:1") is False
    finally:
        for tag in tags:
            docker.api.remove_image(tag, force=True)
            if provider.has_image(tag):
                provider.client.api.remove_image(tag, force=True)
        provider.close()


def test_an_imported_image_carries_the_tag_asked_for(tmp_path: Path) -> None:
    """Podman 4's compatible import tags the image ``latest`` whatever tag it is asked for; the
    provider's import gives it the asked tag, with no copy from Docker to hide the difference."""
    provider = PodmanProvider({"name": "podman", "docker_images": False}, this_run())
    try:
        provider.preflight(timeout=30)
    except InfraError as exc:
        unavailable("podman", str(exc))
    tag = f"pytest-swe-podman-import/tiny:{os.getpid()}"
    try:
        provider.import_image(tiny_rootfs(tmp_path), tag)
        assert provider.has_image(tag)
        assert provider.image_id(tag) == provider.client.images.get(tag).id
    finally:
        for name in (tag, "pytest-swe-podman-import/tiny:latest"):
            subprocess.run(["podman", "rmi", "-f", name], capture_output=True, check=False)
        provider.close()


def test_the_service_is_started_once_when_nothing_answers(tmp_path: Path) -> None:
    """With ``start_service`` the provider starts ``podman system service`` on its socket, and a
    second provider finds it answering rather than starting another."""
    if shutil.which("podman") is None:
        unavailable("podman", "not installed (.ci/install-podman.sh installs it)")
    path = tmp_path / "service" / "podman.sock"
    options = {"name": "podman", "host": f"unix://{path}", "start_service": True}
    first = PodmanProvider(options, this_run())
    try:
        first.preflight(timeout=30)
        pid = peer_pid(str(path))
        assert pid is not None
        second = PodmanProvider(options, this_run())
        assert second.version().startswith("Podman ")
        assert peer_pid(str(path)) == pid
        assert {"nofile", "nproc"} <= set(first.service_limits())
    finally:
        pid = peer_pid(str(path))
        if pid is not None:
            os.kill(pid, 15)


def test_a_service_gone_mid_run_is_not_started_again_to_say_the_engine_answers(tmp_path: Path) -> None:
    """After a failed call the provider asks whether its engine still answers: a service that went
    away says no (the item's error is then the engine's), and none is started by the asking."""
    if shutil.which("podman") is None:
        unavailable("podman", "not installed (.ci/install-podman.sh installs it)")
    path = tmp_path / "service" / "podman.sock"
    provider = PodmanProvider({"name": "podman", "host": f"unix://{path}", "start_service": True}, this_run())
    try:
        provider.preflight(timeout=30)
        pid = peer_pid(str(path))
        assert pid is not None and provider.daemon_alive()
        os.kill(pid, 15)
        for _ in range(100):
            if peer_pid(str(path)) is None:
                break
            time.sleep(0.1)
        assert not provider.daemon_alive()
        assert peer_pid(str(path)) is None
    finally:
        pid = peer_pid(str(path))
        if pid is not None:
            os.kill(pid, 15)


def test_the_header_says_when_a_providers_engine_cannot_be_asked(
    swe_project: SweProject, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PYTEST_SWE_PODMAN_HOST", f"unix://{tmp_path / 'none.sock'}")
    swe_project.demo(extra="provider: podman\n")
    run = swe_project.run("benchmarks/", "--collect-only")
    lines = [line for line in run.result.outlines if line.startswith("pytest-swe: benchmark demo:")]
    assert lines and "provider podman (unavailable)," in lines[0], run.result.outlines[:20]
