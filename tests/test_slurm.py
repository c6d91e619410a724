"""``pytest-swe slurm`` on a real one-machine Slurm cluster (Debian's slurm-wlm and munge).

The fixture writes a slurm.conf for this machine (state, spool, logs and munge socket in a
temporary directory, ports of its own), starts munged, slurmctld and slurmd, and stops them after.
The demo runs as 4 array tasks on the Docker provider; the merged ledger must equal a single
run's item for item, and a resubmission must finish only what a shard left unfinished.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.tools import report
from pytest_swe.tools import slurm
from pytest_swe.tools.cli import main as cli_main

from conftest import DEMO_IDS
from conftest import DEMO_JSONL
from conftest import REPO
from conftest import read_jsonl
from conftest import unavailable

pytestmark = pytest.mark.docker

DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "squeue", "sinfo", "scancel")
#: Properties that differ between two runs of the same items by nature: the clock, and where the
#: run directory is (the artifact paths are compared below their run directory instead).
RUN_SPECIFIC = {"run_id"}
RUN_SPECIFIC_PREFIXES = ("time_", "cleanup_")
"""Phase times, and whether a sandbox's removal was confirmed yet when the item ended."""
SHARDS = 4


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _node_hardware() -> dict[str, str]:
    """``slurmd -C``'s description of this machine (CPUs, RealMemory, ...)."""
    out = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, timeout=30, check=True).stdout
    return dict(word.split("=", 1) for word in out.split() if "=" in word)


@dataclass
class SlurmCluster:
    """munged, slurmctld and slurmd of one machine, configured and owned by a test session."""

    root: Path
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    node: str = field(default_factory=lambda: f"swenode{os.getpid()}")
    """Of this cluster alone: xdist workers may each run one at the same time."""

    @property
    def conf(self) -> Path:
        return self.root / "slurm.conf"

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "SLURM_CONF": str(self.conf)}

    def write_config(self) -> None:
        hardware = _node_hardware()
        munge = self.root / "munge"
        munge.mkdir(mode=0o700)
        key = munge / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o600)
        for name in ("state", "spool", "log"):
            (self.root / name).mkdir()
        # Root as SlurmUser, no cgroup plugin (this VM's cgroup v1 tree is the container engine's),
        # CPUs as consumable so that array tasks share the node.
        self.conf.write_text(
            "\n".join(
                [
                    f"ClusterName=pytest-swe-{os.getpid()}",
                    "SlurmctldHost=localhost",
                    f"SlurmctldPort={_free_port()}",
                    f"SlurmdPort={_free_port()}",
                    "SlurmUser=root",
                    "SlurmdUser=root",
                    "AuthType=auth/munge",
                    "CredType=cred/munge",
                    f"AuthInfo=socket={munge / 'munge.sock'}",
                    f"StateSaveLocation={self.root / 'state'}",
                    f"SlurmdSpoolDir={self.root / 'spool'}",
                    f"SlurmctldPidFile={self.root / 'slurmctld.pid'}",
                    f"SlurmdPidFile={self.root / 'slurmd.pid'}",
                    f"SlurmctldLogFile={self.root / 'log' / 'slurmctld.log'}",
                    f"SlurmdLogFile={self.root / 'log' / 'slurmd.log'}",
                    "ProctrackType=proctrack/linuxproc",
                    "TaskPlugin=task/none",
                    "JobAcctGatherType=jobacct_gather/none",
                    "AccountingStorageType=accounting_storage/none",
                    "SelectType=select/cons_tres",
                    "SelectTypeParameters=CR_CPU",
                    "MpiDefault=none",
                    "ReturnToService=2",
                    f"NodeName={self.node} NodeHostname={socket.gethostname()} NodeAddr=127.0.0.1 "
                    f"CPUs={hardware['CPUs']} RealMemory={hardware['RealMemory']} State=UNKNOWN",
                    f"PartitionName=swe Nodes={self.node} Default=YES MaxTime=INFINITE State=UP",
                ]
            )
            + "\n"
        )

    def _start(self, name: str, *argv: str) -> None:
        log = (self.root / "log" / f"{name}.out").open("wb")
        self.processes.append(
            subprocess.Popen(
                [name, *argv],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self.env,
                start_new_session=True,
            )
        )

    def start(self) -> None:
        self.write_config()
        munge = self.root / "munge"
        self._start(
            "munged",
            "--foreground",
            "--force",
            f"--socket={munge / 'munge.sock'}",
            f"--key-file={munge / 'munge.key'}",
            f"--pid-file={munge / 'munged.pid'}",
            f"--seed-file={munge / 'munged.seed'}",
            f"--log-file={self.root / 'log' / 'munged.log'}",
        )
        self._wait_for(lambda: (munge / "munge.sock").exists(), "munged's socket")
        self._start("slurmctld", "-D", "-f", str(self.conf))
        self._start("slurmd", "-D", "-f", str(self.conf), "-N", self.node)
        self._wait_for(self._node_idle, "the node to be idle")

    def _node_idle(self) -> bool:
        out = subprocess.run(
            ["sinfo", "-h", "-N", "-o", "%t"], capture_output=True, text=True, env=self.env, timeout=30
        )
        return out.returncode == 0 and out.stdout.strip() == "idle"

    def _wait_for(self, ready: Any, what: str, timeout: float = 60) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if ready():
                return
            dead = [p.args[0] for p in self.processes if p.poll() is not None]
            if dead:
                break
            time.sleep(0.5)
        logs = "\n".join(
            f"--- {path.name}\n{path.read_text(errors='replace')[-2000:]}"
            for path in sorted((self.root / "log").glob("*"))
        )
        raise RuntimeError(f"the test cluster did not start: waited for {what}\n{logs}")

    def queue(self) -> list[str]:
        out = subprocess.run(
            ["squeue", "-h", "-o", "%i %T"], capture_output=True, text=True, env=self.env, timeout=30
        )
        return out.stdout.split("\n") if out.stdout.strip() else []

    def stop(self) -> None:
        subprocess.run(["scancel", "--full", "-u", "root"], env=self.env, capture_output=True, timeout=30)
        end = time.monotonic() + 30
        while self.queue() and time.monotonic() < end:
            time.sleep(0.5)
        for process in reversed(self.processes):
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.fixture(scope="module")
def slurm_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SlurmCluster]:
    missing = [name for name in (*DAEMONS, *CLIENTS) if shutil.which(name) is None]
    if missing:
        unavailable(
            f"Slurm is not installed ({', '.join(missing)} missing); .ci/install-slurm.sh installs it"
        )
    if os.geteuid() != 0:
        unavailable("the test cluster runs its daemons as root (SlurmUser=root); run the tests as root")
    cluster = SlurmCluster(tmp_path_factory.mktemp("slurm"))
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


def demo_project(root: Path) -> Path:
    """A project whose benchmarks/demo.yaml is the repository's demo (images built by demo_images)."""
    (root / "benchmarks").mkdir(parents=True, exist_ok=True)
    path = root / "benchmarks" / "demo.yaml"
    path.write_text(
        f"extends: {REPO / 'benchmarks' / 'demo.yaml'}\nname: demo\ndataset: {{source: {DEMO_JSONL}}}\n"
    )
    return root


def submit(
    cluster: SlurmCluster, project: Path, directory: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, Any]:
    """``pytest-swe slurm`` of the demo in ``SHARDS`` shards, waiting for the merge job; the last submission."""
    monkeypatch.chdir(project)
    monkeypatch.setenv("SLURM_CONF", str(cluster.conf))
    argv = ["slurm", "benchmarks/demo.yaml", "--shards", str(SHARDS), "--dir", str(directory)]
    # --time: a hung task ends (and --wait returns) instead of holding the test run.
    argv += [
        "--provider",
        "docker",
        "--sbatch-arg=--time=20",
        "--wait",
        "--",
        "-p",
        "no:hypothesispytest",
        "--swe-no-cache",
    ]
    status = cli_main(argv)
    logs = "\n".join(f"--- {p.name}\n{p.read_text()[-3000:]}" for p in sorted((directory / "logs").glob("*")))
    assert status == 0, logs
    return json.loads((directory / slurm.STATE_NAME).read_text())["submissions"][-1]


@pytest.fixture(scope="module")
def sharded_run(
    slurm_cluster: SlurmCluster, demo_images: list[str], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """The demo run as 4 Slurm array tasks and merged; its directory."""
    project = demo_project(tmp_path_factory.mktemp("slurm-project"))
    with pytest.MonkeyPatch.context() as monkeypatch:
        submit(slurm_cluster, project, project / "sharded", monkeypatch)
    return project / "sharded"


def relative_artifact(value: str) -> str:
    """An artifact path below its run directory (``demo/<instance>/eval.log``)."""
    parts = Path(value).parts
    return str(Path(*parts[-3:])) if value else ""


def comparable(case: report.Case) -> dict[str, Any]:
    props = {
        k: v
        for k, v in case.properties.items()
        if k not in RUN_SPECIFIC and not k.startswith(RUN_SPECIFIC_PREFIXES)
    }
    for key, value in props.items():
        if key.endswith("_path"):
            props[key] = relative_artifact(value)
    return {"outcome": case.outcome, "message": case.message, "properties": props}


def test_slurm_array_of_four_shards_merges_to_the_single_run(sharded_run: Path, tmp_path: Path) -> None:
    merged = report.read_cases(sharded_run / slurm.MERGED_NAME)
    assert sorted(c.instance_id for c in merged) == sorted(DEMO_IDS)
    assert all(c.outcome == "passed" and c.properties["reward"] == "1.0" for c in merged)
    submission = json.loads((sharded_run / slurm.STATE_NAME).read_text())["submissions"][-1]
    assert submission["shards"] == [1, 2, 3, 4] and submission["array_job"] and submission["merge_job"]
    # Each shard ran its own items into its own run directory and JUnit file.
    seen: list[str] = []
    for shard in range(1, SHARDS + 1):
        assert (sharded_run / f"shard-{shard}" / slurm.EXIT_NAME).read_text().strip() in ("0", "5")
        junit = sharded_run / "junit" / f"shard-{shard}.xml"
        ids = [c.instance_id for c in report.read_cases(junit)]
        seen += ids
        for instance_id in ids:
            artifact = next(c for c in merged if c.instance_id == instance_id).properties["eval_log_path"]
            assert Path(artifact).is_relative_to(sharded_run / f"shard-{shard}")
            assert Path(artifact).is_file()
    assert sorted(seen) == sorted(DEMO_IDS)

    # Both runs evaluate for real: neither replays the other's verdicts from the cache.
    argv = ["benchmarks/demo.yaml", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "--swe-no-cache"]
    argv += [f"--junitxml={tmp_path / 'single.xml'}", f"--swe-run-dir={tmp_path / 'single'}"]
    single = subprocess.run(
        [sys.executable, "-m", "pytest", *argv],
        cwd=sharded_run.parent,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert single.returncode == 0, single.stdout[-3000:]
    alone = {c.instance_id: comparable(c) for c in report.read_cases(tmp_path / "single.xml")}
    sharded = {c.instance_id: comparable(c) for c in merged}
    assert sharded == alone


def test_slurm_resubmission_resumes_a_partly_finished_shard(
    sharded_run: Path, slurm_cluster: SlurmCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = tmp_path / "sharded"
    shutil.copytree(sharded_run, directory, symlinks=True)
    plan_dir = {shard: directory / f"shard-{shard}" for shard in range(1, SHARDS + 1)}
    sizes = {
        shard: len(read_jsonl(run / "ledger.jsonl"))
        for shard, run in plan_dir.items()
        if (run / "ledger.jsonl").exists()
    }
    shard = max(sizes, key=lambda s: sizes[s])
    assert sizes[shard] >= 2
    # The shard's task was killed after its first item: a partial ledger, no JUnit file, no exit status.
    ledger = plan_dir[shard] / "ledger.jsonl"
    kept = ledger.read_text().splitlines(keepends=True)[:1]
    ledger.write_text("".join(kept))
    (plan_dir[shard] / slurm.EXIT_NAME).unlink()
    (directory / "junit" / f"shard-{shard}.xml").unlink()
    (directory / slurm.MERGED_NAME).unlink()
    others = {
        s: (run / "ledger.jsonl").read_bytes() for s, run in plan_dir.items() if s != shard and s in sizes
    }

    submission = submit(slurm_cluster, sharded_run.parent, directory, monkeypatch)

    assert submission["shards"] == [shard]  # the finished shards were not submitted again
    entries = read_jsonl(ledger)
    assert len(entries) == sizes[shard]  # the finished item was replayed, not run again
    assert entries[0] == json.loads(kept[0])
    assert all(e["properties"]["run_id"] == entries[0]["properties"]["run_id"] for e in entries)
    for s, data in others.items():
        assert (plan_dir[s] / "ledger.jsonl").read_bytes() == data
    merged = report.read_cases(directory / slurm.MERGED_NAME)
    assert sorted(c.instance_id for c in merged) == sorted(DEMO_IDS)
    assert all(c.outcome == "passed" for c in merged)
