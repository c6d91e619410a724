"""The Apptainer provider where Apptainer cannot be installed (Debian 12 does not package it): the
command lines it builds and its parsing of ``apptainer`` output, against outputs in Apptainer's
documented formats, with a recording stand-in for the ``apptainer`` command. The conformance suite
runs it for real when ``apptainer`` is on PATH, and otherwise skips it saying so."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.api.errors import InfraError
from pytest_swe.api.sandbox import SandboxSpec
from pytest_swe.api.sandbox import this_run
from pytest_swe.providers.apptainer import ApptainerProvider
from pytest_swe.providers.apptainer import commands

# `apptainer instance list --json` as Apptainer 1.x prints it (tab-indented, every field present).
LIST_JSON = """{
\t"instances": [
\t\t{
\t\t\t"instance": "pswe-run1-gw0-eval-0a1b2c3d",
\t\t\t"pid": 4242,
\t\t\t"img": "/home/u/.cache/pytest-swe/apptainer/sif/ab12.sif",
\t\t\t"ip": "",
\t\t\t"logErrPath": "/home/u/.apptainer/instances/logs/node17/u/pswe-run1-gw0-eval-0a1b2c3d.err",
\t\t\t"logOutPath": "/home/u/.apptainer/instances/logs/node17/u/pswe-run1-gw0-eval-0a1b2c3d.out"
\t\t},
\t\t{
\t\t\t"instance": "jupyter",
\t\t\t"pid": 4300,
\t\t\t"img": "/home/u/jupyter.sif",
\t\t\t"ip": "",
\t\t\t"logErrPath": "/home/u/.apptainer/instances/logs/node17/u/jupyter.err",
\t\t\t"logOutPath": "/home/u/.apptainer/instances/logs/node17/u/jupyter.out"
\t\t}
\t]
}
"""
LIST_TABLE = """INSTANCE NAME                  PID      IP    IMAGE
pswe-run1-gw0-eval-0a1b2c3d    4242           /home/u/.cache/pytest-swe/apptainer/sif/ab12.sif
jupyter                        4300           /home/u/jupyter.sif
"""
EMPTY_JSON = '{\n\t"instances": []\n}\n'


def test_instance_list_is_parsed_as_json_and_as_a_table() -> None:
    expected = [
        commands.Instance(
            "pswe-run1-gw0-eval-0a1b2c3d", 4242, "/home/u/.cache/pytest-swe/apptainer/sif/ab12.sif"
        ),
        commands.Instance("jupyter", 4300, "/home/u/jupyter.sif"),
    ]
    assert commands.parse_instances(LIST_JSON) == expected
    assert commands.parse_instances(LIST_TABLE) == expected
    assert commands.parse_instances(EMPTY_JSON) == []
    assert commands.parse_instances("") == []


def test_version_is_parsed(fake: FakeApptainer, tmp_path: Path) -> None:
    assert ApptainerProvider({"root": str(tmp_path)}, this_run()).version() == "apptainer 1.3.4"
    assert commands.parse_version("apptainer version 1.3.4\n") == "1.3.4"
    assert commands.parse_version("apptainer version 1.2.5-1.el8\n") == "1.2.5-1.el8"


def test_instance_names_carry_the_run_and_the_worker() -> None:
    name = commands.instance_name("conf-12-ab", "gw0", "eval", "0a1b2c3d")
    assert name == "pswe-conf_12_ab-gw0-eval-0a1b2c3d"
    assert commands.name_run(name) == ("conf_12_ab", "gw0")
    assert commands.names_run(name, "conf-12-ab") and not commands.names_run(name, "conf-12")
    assert commands.name_run("jupyter") is None and commands.name_run("pswe-a-b") is None


def test_start_runs_contained_without_home_network_or_host_env() -> None:
    argv = commands.start_argv(
        "/c/x.sif",
        "pswe-r-w-eval-1",
        workdir="/testbed",
        env={"A": "1 2"},
        network=False,
        mounts={"/h": "/in"},
    )
    assert argv[:3] == ["apptainer", "instance", "start"]
    for flag in ("--containall", "--no-home", "--writable-tmpfs", "--cleanenv"):
        assert flag in argv
    assert argv[argv.index("--network") - 1 : argv.index("--network") + 2] == ["--net", "--network", "none"]
    assert argv[argv.index("--pwd") + 1] == "/testbed" and argv[argv.index("--env") + 1] == "A=1 2"
    assert argv[argv.index("--bind") + 1] == "/h:/in"
    assert argv[-2:] == ["/c/x.sif", "pswe-r-w-eval-1"]
    assert "--memory" not in argv
    networked = commands.start_argv(
        "/c/x.sif", "n", workdir="/", env={}, network=True, mounts={}, memory="1g", pids=64
    )
    assert "--net" not in networked
    assert (
        networked[networked.index("--memory") + 1] == "1g"
        and networked[networked.index("--pids-limit") + 1] == "64"
    )


def test_exec_enters_the_instance() -> None:
    argv = commands.exec_argv("pswe-r-w-eval-1", ["/bin/sh", "-c", "true"], workdir="/w", env={"K": "v"})
    assert argv == ["apptainer", "exec", "--cleanenv", "--pwd", "/w", "--env", "K=v", "instance://pswe-r-w-eval-1",
                    "/bin/sh", "-c", "true"]  # fmt: skip


def test_build_sources_are_named_as_apptainer_names_them() -> None:
    assert commands.build_argv("/s.sif", "docker-daemon://img:1") == [
        "apptainer",
        "build",
        "--force",
        "/s.sif",
        "docker-daemon://img:1",
    ]
    assert commands.source_of("oci-archive:/a/x.tar") == "oci-archive:/a/x.tar"
    assert commands.source_of("docker://debian:12") == "docker://debian:12"


class FakeApptainer:
    """Records the apptainer commands run and answers them as Apptainer would."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.running: dict[str, int] = {}
        self.stubborn: set[str] = set()
        """Instances a plain ``instance stop`` does not end (only ``--force --signal SIGKILL``)."""

    def __call__(self, argv: list[str], **_: Any) -> subprocess.CompletedProcess[bytes]:
        self.calls.append(argv)
        out = b""
        if argv[1:3] == ["instance", "list"]:
            rows = [{"instance": n, "pid": p, "img": "/x.sif", "ip": "", "logErrPath": "", "logOutPath": ""}
                    for n, p in self.running.items()]  # fmt: skip
            out = json.dumps({"instances": rows}, indent="\t").encode()
        elif argv[1:3] == ["instance", "start"]:
            self.running[argv[-1]] = 1000 + len(self.running)
        elif argv[1:3] == ["instance", "stop"]:
            if argv[-1] not in self.stubborn or "--force" in argv:
                self.running.pop(argv[-1], None)
        elif argv[1] == "build":
            Path(argv[3]).write_bytes(b"SIF")
        elif argv[1] == "--version":
            out = b"apptainer version 1.3.4\n"
        return subprocess.CompletedProcess(argv, 0, out, b"")

    def made(self, verb: str) -> list[list[str]]:
        return [c for c in self.calls if c[1:3] == ["instance", verb] or c[1] == verb]


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeApptainer:
    stand_in = FakeApptainer()
    monkeypatch.setattr(ApptainerProvider, "runner", staticmethod(stand_in))
    return stand_in


@pytest.fixture
def make(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., ApptainerProvider]:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/pytest-swe-apptainer-test.sock")

    def build(run_id: str = "run1", worker: str = "gw0", owner_pid: int | None = None) -> ApptainerProvider:
        return ApptainerProvider({"root": str(tmp_path)}, this_run(worker, run_id, owner_pid))

    return build


def test_an_image_is_built_once_per_digest_and_started_as_an_instance(
    fake: FakeApptainer, make: Callable[..., ApptainerProvider], tmp_path: Path
) -> None:
    provider = make()
    rootfs = tmp_path / "rootfs.tar"
    subprocess.run(["tar", "-cf", str(rootfs), "-C", str(tmp_path), "."], check=True, capture_output=True)
    provider.import_image(rootfs, "tiny:1")
    provider.import_image(rootfs, "tiny-again:1")
    assert len(fake.made("build")) == 1  # the same digest: one SIF
    sandbox = provider.create(SandboxSpec(image="tiny:1", workdir="/w", env={"K": "v"}))
    assert sandbox.id.startswith("pswe-run1-gw0-eval-") and sandbox.alive()
    start = fake.made("start")[0]
    assert start[-2].endswith(".sif") and start[-1] == sandbox.id
    meta = json.loads((tmp_path / "instances" / f"{sandbox.id}.json").read_text())
    assert meta["labels"]["pytest-swe.run"] == "run1" and meta["labels"]["pytest-swe.owner-pid"] == str(
        os.getpid()
    )
    assert sandbox.close().removed and not sandbox.alive()
    assert not (tmp_path / "instances" / f"{sandbox.id}.json").exists()


def test_a_docker_image_is_built_from_the_daemon(
    fake: FakeApptainer, make: Callable[..., ApptainerProvider], monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = make()
    monkeypatch.setattr(provider, "_docker_id", lambda tag: "sha256:" + "ab" * 32)
    assert provider.image_exists("pytest-swe-demo/x:latest")
    assert fake.made("build")[0][-1] == "docker-daemon://pytest-swe-demo/x:latest"
    assert provider.sif_of("pytest-swe-demo/x:latest") is not None


def test_a_missing_image_under_pull_never_is_image_missing(fake: FakeApptainer, tmp_path: Path) -> None:
    provider = ApptainerProvider({"root": str(tmp_path), "pull": "never"}, this_run())
    with pytest.raises(InfraError) as missing:
        provider.create(SandboxSpec(image="nowhere:1"))
    assert missing.value.kind == "image_missing" and not fake.made("start")


def test_reap_removes_a_run_s_instances_and_orphans_only(
    fake: FakeApptainer, make: Callable[..., ApptainerProvider], tmp_path: Path
) -> None:
    mine = make()
    (tmp_path / "sif").mkdir()
    (tmp_path / "sif" / "d.sif").write_bytes(b"SIF")
    (tmp_path / "tags").mkdir()
    from pytest_swe.providers.bubblewrap.images import tag_key

    (tmp_path / "tags" / f"{tag_key('img:1')}.json").write_text(json.dumps({"digest": "sha256:d"}))
    first = mine.create(SandboxSpec(image="img:1"))
    other_run = make(run_id="run2").create(SandboxSpec(image="img:1"))
    dead = subprocess.Popen(["true"])
    dead.wait()
    orphan = make(run_id="run3", owner_pid=dead.pid).create(SandboxSpec(image="img:1"))
    fake.running["jupyter"] = 4300  # somebody else's instance
    fake.running["pswe-run4-gw0-eval-11111111"] = 4400  # a run with another root: its owner is unknown here
    assert mine.reap(run_id="run1") == [first.id]
    assert mine.reap(orphans=True) == [orphan.id]
    assert set(fake.running) == {other_run.id, "jupyter", "pswe-run4-gw0-eval-11111111"}


def test_an_instance_that_will_not_stop_is_killed(
    fake: FakeApptainer, make: Callable[..., ApptainerProvider]
) -> None:
    provider = make()
    fake.running["pswe-run1-gw0-eval-00000000"] = 7
    fake.stubborn.add("pswe-run1-gw0-eval-00000000")
    assert provider.remove("pswe-run1-gw0-eval-00000000").removed
    assert fake.made("stop")[-1] == ["apptainer", "instance", "stop", "--force", "--signal", "SIGKILL",
                                     "pswe-run1-gw0-eval-00000000"]  # fmt: skip


@pytest.mark.skipif(shutil.which("apptainer") is not None, reason="apptainer is installed here")
def test_without_apptainer_the_provider_says_why(tmp_path: Path) -> None:
    provider = ApptainerProvider({"root": str(tmp_path)}, this_run())
    with pytest.raises(InfraError) as absent:
        provider.preflight()
    assert absent.value.kind == "provider_unavailable" and "not packaged for Debian 12" in str(absent.value)
    with pytest.raises(InfraError, match="not packaged for Debian 12"):
        provider.version()
