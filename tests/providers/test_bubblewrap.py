"""The bubblewrap provider beyond the conformance suite: real bwrap, real cgroups, real mounts.

What only this provider has to get right: root filesystems unpacked once per digest from each
source (Docker's ``docker save`` with its whiteouts, an OCI archive through skopeo and umoci, a
tarball, a Dockerfile built without any engine), a run that needs no Docker daemon once they
exist, state kept between commands, host paths out of reach through symlinks, and removal that
leaves no process, mount or cgroup behind, also for an owner killed with SIGKILL.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from pytest_swe.api.errors import InfraError
from pytest_swe.api.sandbox import SandboxSpec
from pytest_swe.api.sandbox import this_run
from pytest_swe.providers.bubblewrap import BubblewrapProvider
from pytest_swe.providers.bubblewrap import BubblewrapSandbox
from pytest_swe.providers.bubblewrap.cgroups import ROOT as CGROUP_ROOT
from pytest_swe.providers.bubblewrap.images import apply_layer
from pytest_swe.providers.bubblewrap.images import parse_dockerfile
from pytest_swe.providers.bubblewrap.layer import mounts_under

from .conftest import tiny_rootfs
from .conftest import unavailable
from conftest import require_docker

TINY = "pytest-swe-bwrap-test/tiny:1"
DEAD_DOCKER = "unix:///nonexistent/pytest-swe-bwrap-test.sock"


def _tar(entries: dict[str, bytes | None]) -> bytes:
    """A tar of files (bytes) and directories (None)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name, data in entries.items():
            info = tarfile.TarInfo(name)
            if data is None:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                info.size, info.mode = len(data), 0o644
                tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> str:
    provider = BubblewrapProvider({}, this_run())
    try:
        provider.preflight()
    except InfraError as exc:
        unavailable("bubblewrap", str(exc))
    provider.import_image(tiny_rootfs(tmp_path_factory.mktemp("tiny")), TINY)
    return TINY


@pytest.fixture
def provider(tiny: str) -> Iterator[BubblewrapProvider]:
    built = BubblewrapProvider({"disk_limit": "64m"}, this_run(run_id=f"bwt-{os.urandom(4).hex()}"))
    yield built
    built.reap(run_id=built.run.run_id, kept=None)
    built.close()


@pytest.fixture
def sandbox(provider: BubblewrapProvider, tiny: str) -> Iterator[BubblewrapSandbox]:
    sb = provider.create(SandboxSpec(image=tiny, workdir="/work", memory="256m", pids=64))
    yield sb
    sb.close()


def leftovers(provider: BubblewrapProvider, sandbox_id: str) -> list[str]:
    """What of a sandbox is still on the host: processes naming it, mounts, its directory, cgroups."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        if any(sandbox_id in part for part in process.info["cmdline"] or []):
            found.append(f"process {process.pid}: {' '.join(process.info['cmdline'])[:120]}")
    base = provider.sandboxes / sandbox_id
    found += [f"mount {m}" for m in mounts_under(base)]
    if base.exists():
        found.append(f"directory {base}")
    found += [f"cgroup {p}" for p in CGROUP_ROOT.glob(f"*/pytest-swe-bwrap/{sandbox_id}")]
    return found


# -- state, isolation --------------------------------------------------------------------------------


def test_a_sandbox_keeps_its_state_between_commands(sandbox: BubblewrapSandbox) -> None:
    """One set of namespaces for the sandbox's life: a server one command starts answers the next
    on the sandbox's loopback, and files and the working directory persist."""
    assert sandbox.exec("pwd; echo kept > state.txt", timeout=30).output == "/work\n"
    sandbox.exec("(nc -l -p 7001 -e echo served >/dev/null 2>&1 &) ; sleep 0.5", timeout=30)
    answered = sandbox.exec("nc -w 3 127.0.0.1 7001 </dev/null; cat /work/state.txt", timeout=30)
    assert answered.output.split() == ["served", "kept"], answered.output


def test_a_symlink_inside_cannot_reach_host_files(sandbox: BubblewrapSandbox, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("host only")
    sandbox.exec(f"ln -s {secret} /tmp/link; ln -s {tmp_path} /tmp/dirlink; mkdir -p {tmp_path}", timeout=30)
    with pytest.raises(FileNotFoundError):
        sandbox.read_file("/tmp/link")
    sandbox.write_file("/tmp/dirlink/secret.txt", b"inside")
    assert secret.read_text() == "host only"
    assert sandbox.exec(f"cat {secret}", timeout=30).output == "inside"  # created in the sandbox's own tree


def test_a_timeout_kills_processes_that_left_the_session(sandbox: BubblewrapSandbox) -> None:
    """setsid and a double fork leave the process tree, not the command's cgroup."""
    result = sandbox.exec("setsid sh -c 'sleep 401 & sleep 402' & (sleep 403 &) ; sleep 404", timeout=2)
    assert result.timed_out
    left = sandbox.exec("cat /proc/[0-9]*/cmdline | tr '\\0' ' '", timeout=30).output
    assert not [s for s in ("sleep 401", "sleep 402", "sleep 403", "sleep 404") if s in left], left


def test_limits_are_cgroups_and_counted(sandbox: BubblewrapSandbox) -> None:
    groups = [CGROUP_ROOT / c / "pytest-swe-bwrap" / sandbox.id for c in ("memory", "pids")]
    assert (groups[0] / "memory.limit_in_bytes").read_text().strip() == str(256 * 2**20)
    assert (groups[1] / "pids.max").read_text().strip() == "64"
    before = sandbox.limit_counters()
    sandbox.exec("i=0; while [ $i -lt 100 ]; do sleep 5 & i=$((i+1)); done; wait", timeout=60)
    sandbox.end_processes()
    assert sandbox.limit_counters()["pids_limit_hits"] > before["pids_limit_hits"]
    result = sandbox.exec("dd if=/dev/zero of=/dev/null bs=300M count=1", timeout=60)
    assert result.oom_killed and sandbox.limit_counters()["oom_kills"] == before["oom_kills"] + 1
    full = sandbox.exec("dd if=/dev/zero of=/tmp/fill bs=1M count=100", timeout=60)
    assert full.exit_code != 0 and sandbox.limit_counters()["disk_exceeded"]
    freed = sandbox.exec("rm /tmp/fill; sleep 2.5; echo on", timeout=60)  # room again: not stopped
    assert freed.output == "on\n" and sandbox.limit_counters()["disk_exceeded"]  # the count stays
    assert sandbox.alive()


def test_a_sandbox_stays_alive_and_removable_when_the_boot_time_moves(
    provider: BubblewrapProvider, tiny: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kernel's boot time in epoch seconds (``btime``) shifts as the clock is set (NTP); a
    process's start in ticks since boot does not. The clock itself cannot be set here, so psutil's
    reading of ``btime`` is moved instead."""
    from psutil import _pslinux

    sb = provider.create(SandboxSpec(image=tiny, pids=16))
    try:
        moved = _pslinux.boot_time() + 1.0
        monkeypatch.setattr(_pslinux, "boot_time", lambda: moved)
        assert sb.alive()
        assert sb.exec("echo on", timeout=30).output == "on\n"
    finally:
        assert sb.close().removed
    assert leftovers(provider, sb.id) == []
    assert not psutil.pid_exists(sb.init_pid) or psutil.Process(sb.init_pid).status() == psutil.STATUS_ZOMBIE


# -- removal ---------------------------------------------------------------------------------------------


def test_close_leaves_no_process_mount_or_cgroup(provider: BubblewrapProvider, tiny: str) -> None:
    sb = provider.create(SandboxSpec(image=tiny, memory="128m", pids=32))
    sb.exec("sleep 600 >/dev/null 2>&1 &", timeout=30)
    assert leftovers(provider, sb.id)  # the keep-alive, the mounts, the groups
    assert sb.close().removed
    assert leftovers(provider, sb.id) == []
    assert not psutil.pid_exists(sb.init_pid) or psutil.Process(sb.init_pid).status() == psutil.STATUS_ZOMBIE


ORPHAN = textwrap.dedent(
    """\
    import json, os, signal, sys
    from pytest_swe.api.sandbox import SandboxSpec, this_run
    from pytest_swe.providers.bubblewrap import BubblewrapProvider
    image, run_id = sys.argv[1:]
    sandbox = BubblewrapProvider({}, this_run(run_id=run_id)).create(SandboxSpec(image=image, pids=16))
    sandbox.exec("sleep 700 >/dev/null 2>&1 &", timeout=30)
    print(sandbox.id, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def test_reap_after_the_owner_is_killed_leaves_nothing(tiny: str) -> None:
    run_id = f"bwt-orphan-{os.urandom(4).hex()}"
    made = subprocess.run(
        [sys.executable, "-c", ORPHAN, tiny, run_id], capture_output=True, text=True, timeout=120
    )
    assert made.returncode == -signal.SIGKILL, made.stderr
    orphan = made.stdout.strip()
    reaper = BubblewrapProvider({}, this_run())
    assert leftovers(reaper, orphan)  # the owner's death alone removes nothing: the state directory knows it
    assert orphan in reaper.reap(orphans=True)
    assert leftovers(reaper, orphan) == []


def test_a_live_owner_s_sandbox_is_no_orphan(
    provider: BubblewrapProvider, sandbox: BubblewrapSandbox
) -> None:
    assert sandbox.id not in BubblewrapProvider({}, this_run()).reap(orphans=True)
    assert sandbox.alive()


# -- images ----------------------------------------------------------------------------------------------


def test_a_run_needs_no_docker_daemon_once_the_rootfs_exists(
    tiny: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCKER_HOST", DEAD_DOCKER)
    provider = BubblewrapProvider({"pull": "missing"}, this_run())
    rootfs = provider.cache.lookup(tiny)
    assert rootfs is not None
    assert provider.image_exists(tiny)
    sb = provider.create(SandboxSpec(image=tiny))
    try:
        assert sb.exec("echo ok", timeout=30).output == "ok\n"
    finally:
        assert sb.close().removed
    with pytest.raises(InfraError) as missing:
        provider.create(SandboxSpec(image="pytest-swe-bwrap-test/never-made:1"))
    assert missing.value.kind == "image_missing"


def test_the_same_tarball_is_unpacked_once(tiny: str, tmp_path: Path) -> None:
    provider = BubblewrapProvider({}, this_run())
    first = provider.cache.lookup(tiny)
    assert first is not None
    marker = first.rootfs / ".unpacked-once"
    marker.touch()
    try:
        provider.import_image(tiny_rootfs(tmp_path), "pytest-swe-bwrap-test/tiny-again:1")
        again = provider.cache.lookup("pytest-swe-bwrap-test/tiny-again:1")
        assert (
            again is not None and again.digest == first.digest and (again.rootfs / ".unpacked-once").exists()
        )
    finally:
        marker.unlink()


def test_layers_apply_whiteouts_and_opaque_directories(tmp_path: Path) -> None:
    rootfs = tmp_path / "rootfs"
    rootfs.mkdir()
    layers = [
        {"etc/": None, "etc/a": b"1", "etc/b": b"2", "d/": None, "d/old": b"x"},
        {"etc/.wh.a": b"", "d/.wh..wh..opq": b"", "d/new": b"y"},
    ]
    for number, entries in enumerate(layers):
        path = tmp_path / f"layer{number}.tar"
        path.write_bytes(_tar(entries))
        apply_layer(path, rootfs)
    assert sorted(p.name for p in (rootfs / "etc").iterdir()) == ["b"]
    assert sorted(p.name for p in (rootfs / "d").iterdir()) == ["new"]


def test_docker_images_are_unpacked_by_digest_with_their_config(tiny: str, tmp_path: Path) -> None:
    client = require_docker()
    provider = BubblewrapProvider({}, this_run())
    tag = "pytest-swe-bwrap-test/layered:1"
    base = "pytest-swe-bwrap-test/tiny-docker:1"
    client.api.import_image_from_file(str(tiny_rootfs(tmp_path)), repository=base.split(":")[0], tag="1")
    dockerfile = (
        f"FROM {base}\nENV GREETING=layered\nWORKDIR /srv\n"
        "RUN rm /etc/group && mkdir /d && touch /d/old\nRUN rm -rf /d && mkdir /d && touch /d/new\n"
    )
    try:
        provider.build_image(_tar({"Dockerfile": dockerfile.encode()}), tag)
        image = provider.cache.lookup(tag)
        assert image is not None and image.digest == client.images.get(tag).id
        assert image.env["GREETING"] == "layered" and image.workdir == "/srv"
        assert not (image.rootfs / "etc" / "group").exists()
        assert [p.name for p in (image.rootfs / "d").iterdir()] == ["new"]
    finally:
        for name in (tag, base):
            client.images.remove(name, force=True)


def test_images_on_one_base_share_its_files_on_disk(
    tiny: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Images built on one base link its files: on disk once, and no image's layer reaches
    another's files (the second image overwrites and deletes files the first one shares)."""
    client = require_docker()
    monkeypatch.setenv("PYTEST_SWE_BWRAP_ROOT", str(tmp_path / "cache"))
    provider = BubblewrapProvider({}, this_run())
    base = "pytest-swe-bwrap-test/shared-base:1"
    client.api.import_image_from_file(str(tiny_rootfs(tmp_path)), repository=base.split(":")[0], tag="1")
    dockerfiles = {
        "pytest-swe-bwrap-test/sibling-a:1": "RUN echo a > /etc/only-a",
        "pytest-swe-bwrap-test/sibling-b:1": "RUN rm /etc/group && echo changed-by-b > /etc/passwd",
        "pytest-swe-bwrap-test/sibling-c:1": "ENV ONLY_CONFIG=1",  # no layer of its own
    }
    try:
        images = {}
        for tag, line in dockerfiles.items():
            provider.build_image(_tar({"Dockerfile": f"FROM {base}\n{line}\n".encode()}), tag)
            found = provider.cache.lookup(tag)
            assert found is not None and found.digest == client.images.get(tag).id
            images[tag.split("/")[1][:9]] = found.rootfs
        a, b, c = images["sibling-a"], images["sibling-b"], images["sibling-c"]
        assert len({(root / "bin" / "busybox").stat().st_ino for root in (a, b, c)}) == 1
        original = (a / "etc" / "passwd").read_text()
        assert original.startswith("root:x:0:0:") and (a / "etc" / "group").exists()
        assert (b / "etc" / "passwd").read_text() == "changed-by-b\n" and not (b / "etc" / "group").exists()
        assert (c / "etc" / "passwd").read_text() == original and (c / "etc" / "group").exists()
        assert (a / "etc" / "only-a").exists() and not (b / "etc" / "only-a").exists()
        assert provider.cache.lookup("pytest-swe-bwrap-test/sibling-c:1").env["ONLY_CONFIG"] == "1"  # type: ignore[union-attr]
        sandbox = provider.create(SandboxSpec(image="pytest-swe-bwrap-test/sibling-c:1", workdir="/"))
        try:
            wrote = sandbox.exec("echo from-a-sandbox > /etc/passwd && cat /etc/passwd", timeout=30)
            assert wrote.output == "from-a-sandbox\n"
        finally:
            sandbox.close()
        assert (a / "etc" / "passwd").read_text() == original == (c / "etc" / "passwd").read_text()
    finally:
        provider.close()
        for name in (*dockerfiles, base):
            client.images.remove(name, force=True)


def test_an_oci_archive_is_unpacked_with_skopeo_and_umoci(tiny: str, tmp_path: Path) -> None:
    """Made and read without any daemon: umoci builds the archive's layout, skopeo packs it."""
    for tool in ("skopeo", "umoci"):
        if shutil.which(tool) is None:
            unavailable("bubblewrap", f"{tool} is missing (.ci/install-bwrap.sh installs it)")
    layout, bundle, archive = tmp_path / "layout", tmp_path / "bundle", tmp_path / "tiny-oci.tar"
    for argv in (
        ["umoci", "init", "--layout", str(layout)],
        ["umoci", "new", "--image", f"{layout}:t"],
        ["umoci", "unpack", "--image", f"{layout}:t", str(bundle)],
        ["tar", "-x", "-C", str(bundle / "rootfs"), "-f", str(tiny_rootfs(tmp_path))],
        ["umoci", "repack", "--image", f"{layout}:t", str(bundle)],
        [
            "umoci",
            "config",
            "--image",
            f"{layout}:t",
            "--config.env",
            "FROM_OCI=yes",
            "--config.workingdir",
            "/",
        ],
        ["skopeo", "copy", "-q", f"oci:{layout}:t", f"oci-archive:{archive}"],
    ):
        subprocess.run(argv, check=True, capture_output=True)
    provider = BubblewrapProvider({}, this_run(run_id=f"bwt-{os.urandom(4).hex()}"))
    sb = provider.create(SandboxSpec(image=f"oci-archive:{archive}"))
    try:
        assert sb.exec('echo "$FROM_OCI"; cat /etc/passwd | head -1', timeout=30).output.split("\n")[:2] == [
            "yes",
            "root:x:0:0:root:/root:/bin/sh",
        ]
    finally:
        sb.close()


def test_a_dockerfile_is_built_without_any_engine(
    tiny: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCKER_HOST", DEAD_DOCKER)
    provider = BubblewrapProvider({}, this_run(run_id=f"bwt-{os.urandom(4).hex()}"))
    tag = f"pytest-swe-bwrap-test/built:{os.urandom(3).hex()}"
    dockerfile = (
        f"FROM {tiny}\nCOPY testbed /testbed\nWORKDIR /testbed\nENV MODE=built\n"
        'RUN echo "$MODE in $(pwd)" > made.txt && ! wget -q -T 2 -O- http://127.0.0.1:1/ 2>/dev/null\n'
    )
    context = _tar({"Dockerfile": dockerfile.encode(), "testbed/": None, "testbed/app.py": b"print(1)\n"})
    provider.build_image(context, tag)
    sb = provider.create(SandboxSpec(image=tag, workdir="/testbed"))
    try:
        assert (
            sb.exec("cat made.txt app.py; echo $MODE", timeout=30).output
            == "built in /testbed\nprint(1)\nbuilt\n"
        )
    finally:
        sb.close()
    with pytest.raises(InfraError) as failed:
        provider.build_image(_tar({"Dockerfile": f"FROM {tiny}\nRUN exit 7\n".encode()}), tag + "-bad")
    assert failed.value.kind == "image_build"


def test_the_dockerfile_subset_is_parsed() -> None:
    steps = parse_dockerfile("# c\nFROM base:1\nRUN a && \\\n    b\n\nenv K=v\n")
    assert steps == [("FROM", "base:1"), ("RUN", "a &&      b"), ("ENV", "K=v")]
    with pytest.raises(InfraError):
        parse_dockerfile("RUN x\n")


def test_meta_records_labels_and_the_owner(sandbox: BubblewrapSandbox, provider: BubblewrapProvider) -> None:
    meta = json.loads((provider.sandboxes / sandbox.id / "meta.json").read_text())
    labels = meta["labels"]
    assert labels["pytest-swe.run"] == provider.run.run_id
    assert labels["pytest-swe.owner-pid"] == str(os.getpid())
    assert labels["pytest-swe.owner-start"] == provider.run.owner_start
    assert int(labels["pytest-swe.ttl"]) == 7200 and meta["init_pid"] == sandbox.init_pid
    assert time.time() - int(labels["pytest-swe.created"]) < 300


def test_without_cgroups_or_overlay_a_timeout_and_close_still_end_everything(tiny: str) -> None:
    """What a rootless user gets (no writable cgroups, no overlay mount, no loop device): the
    writable layer is a copy, and a command's tree is found through the host's /proc."""
    options = {"cgroups": False, "overlay": "copy", "disk_limit": "none"}
    provider = BubblewrapProvider(options, this_run(run_id=f"bwt-{os.urandom(4).hex()}"))
    unenforced = {"limits", "oom", "pids-limit", "disk-limit"}
    assert provider.capabilities == BubblewrapProvider.capabilities - unenforced  # said, so suites skip them
    sb = provider.create(SandboxSpec(image=tiny, workdir="/w"))
    try:
        assert sb.exec("echo kept > f; cat f", timeout=30).output == "kept\n"
        assert sb.exec("sh -c 'sleep 411' & sleep 412", timeout=2).timed_out
        sb.exec("sleep 413 >/dev/null 2>&1 &", timeout=30)
        sb.end_processes()
        left = sb.exec("cat /proc/[0-9]*/cmdline | tr '\\0' ' '", timeout=30).output
        assert not [s for s in ("sleep 411", "sleep 412", "sleep 413") if s in left], left
        assert sb.limit_counters()["disk_limit"] is None
    finally:
        assert sb.close().removed
    assert leftovers(provider, sb.id) == []


@pytest.mark.skipif(not os.access("/proc/sys/kernel/ns_last_pid", os.W_OK), reason="needs root")
def test_end_processes_spares_the_keep_alive_when_pids_have_wrapped_around(tiny: str) -> None:
    """After the host's pids wrap around, an orphan left by a command may get a lower pid than
    the keep-alive; ending processes must still tell them apart (seen on a long CI run)."""
    options = {"cgroups": False, "overlay": "copy", "disk_limit": "none"}
    provider = BubblewrapProvider(options, this_run(run_id=f"bwt-{os.urandom(4).hex()}"))
    sb = provider.create(SandboxSpec(image=tiny, workdir="/w"))
    try:
        keep_alive = min(psutil.Process(sb.init_pid).children(), key=lambda p: p.pid).pid
        low = 301
        for _ in range(50):  # the next host pids start low: as if the counter had wrapped
            Path("/proc/sys/kernel/ns_last_pid").write_text(str(low))
            sb.exec("sleep 414 >/dev/null 2>&1 &", timeout=30)
            orphans = [p.pid for p in psutil.Process(sb.init_pid).children() if p.pid != keep_alive]
            if orphans and min(orphans) < keep_alive:
                break
            low += 200
        else:
            pytest.skip("could not get an orphan a pid below the keep-alive's")
        sb.end_processes()
        assert sb.alive()
        left = sb.exec("cat /proc/[0-9]*/cmdline | tr '\\0' ' '", timeout=30).output
        assert "sleep 414" not in left and "keep-alive" in left, left
        assert keep_alive in [p.pid for p in psutil.Process(sb.init_pid).children()]
    finally:
        assert sb.close().removed
    assert leftovers(provider, sb.id) == []


def test_a_sandbox_whose_keep_alive_died_is_sandbox_died_and_still_removed(
    provider: BubblewrapProvider, tiny: str
) -> None:
    sb = provider.create(SandboxSpec(image=tiny))
    os.kill(sb.init_pid, signal.SIGKILL)  # the sandbox's pid 1: its namespaces end with it
    deadline = time.monotonic() + 10
    while sb.alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    with pytest.raises(InfraError) as died:
        sb.exec("true", timeout=30)
    assert died.value.kind == "sandbox_died"
    with pytest.raises(InfraError):
        sb.write_file("/tmp/x", b"x")
    assert sb.id in BubblewrapProvider({}, this_run()).reap(orphans=True)  # dead: an orphan whoever owns it
    assert leftovers(provider, sb.id) == []


ROOTLESS = textwrap.dedent(
    """\
    import sys
    from pathlib import Path
    from pytest_swe.api.sandbox import SandboxSpec, this_run
    from pytest_swe.providers.bubblewrap import BubblewrapProvider
    root, tarball = sys.argv[1:]
    provider = BubblewrapProvider({"root": root}, this_run(run_id="bwt-rootless"))
    provider.preflight()
    provider.import_image(Path(tarball), "tiny:1")
    sandbox = provider.create(SandboxSpec(image="tiny:1", workdir="/w"))
    print(sandbox.exec("id -u; pwd; echo kept > f; cat f", timeout=30).output, end="")
    print("timed out:", sandbox.exec("sh -c 'sleep 421' & sleep 422", timeout=2).timed_out)
    sandbox.write_file("/tmp/blob", bytes(range(256)))
    print("files:", sandbox.read_file("/tmp/blob") == bytes(range(256)))
    print("left:", "sleep 42" in sandbox.exec("cat /proc/[0-9]*/cmdline | tr '\\\\0' ' '", timeout=30).output)
    print("removed:", sandbox.close().removed, list(provider.sandboxes.iterdir()))
    """
)


def test_rootless_as_an_unprivileged_user(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """As ``nobody``: no cgroups, no loop device, no overlay mount (a copy); root inside, commands,
    files, a timeout that ends the tree and a removal that leaves nothing."""
    python = os.environ.get("PYTEST_SWE_ROOTLESS_PYTHON", sys.executable)
    if os.geteuid() != 0 or shutil.which("su") is None:
        pytest.skip("needs root to become an unprivileged user (su nobody)")
    work = Path(tempfile.mkdtemp(prefix="pytest-swe-rootless-"))  # pytest's own tmp is root's only
    request.addfinalizer(lambda: shutil.rmtree(work, ignore_errors=True))
    shutil.copy(tiny_rootfs(tmp_path), work / "tiny.tar")
    (work / "script.py").write_text(ROOTLESS)
    for path in (work, *work.iterdir()):
        path.chmod(0o777 if path.is_dir() else 0o644)
    as_nobody = ["su", "nobody", "-s", "/bin/sh", "-c"]
    usable = subprocess.run(
        [*as_nobody, f"{python} -c 'import pytest_swe.providers.bubblewrap'"], capture_output=True
    )
    if usable.returncode != 0:
        pytest.skip(
            f"{python} cannot import pytest-swe as nobody (set PYTEST_SWE_ROOTLESS_PYTHON to one that can)"
        )
    command = f"cd {work} && HOME={work} {python} script.py {work / 'root'} {work / 'tiny.tar'}"
    done = subprocess.run([*as_nobody, command], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["0", "/w", "kept", "timed out: True", "files: True", "left: False",
                                        "removed: True []"]  # fmt: skip
