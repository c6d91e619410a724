"""Faults inside a sandbox on a real Docker engine: each is an ``<error>`` with the right error_kind
(never a ``<failure>``), the run finishes, nothing is left behind, and pytest's memory stays flat.

Every fault is the gold patch plus code that runs when the tests import the package, so the
fault happens in the middle of the eval: the container killed from outside (or from inside, its
command's output cut first), the memory
limit, the disk limit (``provider.disk_limit``), endless output, a hang, a busy loop and a
fork bomb.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from secutil import DEMO_ROWS
from secutil import FORGER
from secutil import MeasuredRun
from secutil import append_to
from secutil import dataset
from secutil import demo_benchmark
from secutil import predictions
from secutil import row_as
from secutil import run_measured
from secutil import shared_run

from conftest import SweProject
from conftest import labelled_containers

pytestmark = pytest.mark.docker

CALC = "demo__calc-1"
EVAL_TIMEOUT = 20
DISK_LIMIT_MIB = 200
OUTPUT_LIMIT = 1_000_000

STREAM_CUT = """
import glob as _glob, os as _os, signal as _signal
for _d in _glob.glob("/proc/[0-9]*"):  # the keep-alive: its end stops the container
    try:
        _ppid = open(_d + "/stat").read().rsplit(")", 1)[1].split()[1]
        _comm = open(_d + "/comm").read().strip()
    except OSError:
        continue
    if _comm == "sleep" and _ppid == "1":
        _os.kill(int(_d[6:]), _signal.SIGKILL)
for _p in _glob.glob("/tmp/.pytest-swe/*.pid"):  # the harness's command wrappers
    try:
        _os.kill(int(open(_p).read()), _signal.SIGTERM)
    except (OSError, ValueError):
        pass
"""

FAULTS: dict[str, tuple[str, str]] = {
    # label: (code run at import, expected error_kind)
    "killed": ("import time\n\ntime.sleep(120)\n", "sandbox_died"),
    # The sandbox dies while its command's output stream is cut first (the exec ends by SIGTERM,
    # with no end mark): a dead sandbox, not an output fault.
    "stream-cut": (STREAM_CUT, "sandbox_died"),
    "oom": ("_hog = b'x' * (3 * 1024**3)\n", "oom"),
    "disk": (
        "for _i in range(10**6):\n    with open(f'/tmp/fill-{_i}', 'wb') as _f:\n        _f.write(b'\\1' * (32 << 20))\n",
        "disk_full",
    ),
    "flood": (
        FORGER.format(tests=[]) + "\nwhile True:\n    _os.write(_pipe_fd(), b'flood ' * 10000)\n",
        "eval_timeout",
    ),
    "hang": ("import time\n\ntime.sleep(3600)\n", "eval_timeout"),
    "busy-loop": ("while True:\n    pass\n", "eval_timeout"),
    "fork-bomb": (
        "import os, time\n\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        time.sleep(0.01)\n",
        "pids_limit",
    ),
}


IDS = {label: f"{CALC}.{label}" for label in FAULTS}


def kill_when_testing(docker_engine: Any, instance: str, stop: threading.Event, killed: list[str]) -> None:
    """Kill the eval container of ``instance`` from outside once its tests are running."""
    while not stop.is_set():
        for info in labelled_containers(docker_engine, instance=instance, role="eval"):
            try:
                container = docker_engine.containers.get(info["Id"])
                running = " ".join(" ".join(p) for p in container.top().get("Processes") or [])
            except Exception:
                continue
            if "pytest" in running:
                time.sleep(1)
                container.kill()
                killed.append(info["Id"][:12])
                return
        time.sleep(0.3)


def run_faults(project: SweProject, docker_engine: Any) -> MeasuredRun:
    gold = DEMO_ROWS[CALC]["patch"]
    rows = [row_as(CALC, iid) for iid in IDS.values()]
    preds = {
        IDS[label]: gold + append_to(CALC, "calc/__init__.py", "\n" + code)
        for label, (code, _) in FAULTS.items()
    }
    demo_benchmark(
        project,
        "faults",
        dataset(project.path / "faults.jsonl", rows),
        timeouts={"agent": 60, "eval": EVAL_TIMEOUT},
        limits={"memory": "1g", "cpus": 1, "pids": 256, "output_bytes": OUTPUT_LIMIT},
        provider={"name": "docker", "disk_limit": f"{DISK_LIMIT_MIB}m"},
    )
    pred_file = predictions(project.path / "preds.jsonl", preds)
    stop, killed = threading.Event(), []
    killer = threading.Thread(
        target=kill_when_testing, args=(docker_engine, IDS["killed"], stop, killed), daemon=True
    )
    killer.start()
    start = time.monotonic()
    try:
        measured = run_measured(
            project, "benchmarks/", "-n", "2", "--swe-agent", "predictions", "--swe-predictions", str(pred_file),
            timeout=600,
        )  # fmt: skip
    finally:
        stop.set()
        killer.join(timeout=5)
    measured.extra = {"elapsed": time.monotonic() - start, "killed": killed}
    return measured


@pytest.fixture(scope="module")
def fault_run(
    tmp_path_factory: pytest.TempPathFactory, demo_images: list[str], docker_engine: Any
) -> MeasuredRun:
    return shared_run(tmp_path_factory, "faults", lambda project: run_faults(project, docker_engine))[0]


@pytest.mark.parametrize("label", sorted(FAULTS))
def test_fault_is_an_error_of_its_kind(fault_run: Any, label: str) -> None:
    case = fault_run.run.by_id[IDS[label]]
    expected = FAULTS[label][1]
    assert case.outcome == "error", (label, case.outcome, case.message[:1500])
    assert case.properties["error_kind"] == expected, (
        label,
        case.properties["error_kind"],
        case.message[:1500],
    )
    assert case.properties["masked"] == "true" and case.properties["reward"] == "0.0"


def test_the_run_finishes_and_leaves_nothing(fault_run: Any, docker_engine: Any) -> None:
    run = fault_run.run
    assert len(run.cases) == len(FAULTS), run.result
    assert fault_run.extra["killed"], "the killer never saw the tests of the 'killed' row running"
    # 7 items on 2 workers, at most 4 of them waiting out the eval timeout.
    assert fault_run.extra["elapsed"] < 4 * EVAL_TIMEOUT + 120, fault_run.extra["elapsed"]
    assert not labelled_containers(docker_engine, benchmark="faults")


def test_output_is_capped_and_pytest_memory_stays_flat(fault_run: Any) -> None:
    case = fault_run.run.by_id[IDS["flood"]]
    log = Path(case.properties["eval_log_path"])
    # The cap is the eval command's; the patch's apply, its first step, took its part of the head.
    assert OUTPUT_LIMIT - 20_000 <= log.stat().st_size < OUTPUT_LIMIT + 10_000
    assert "bytes of output dropped" in log.read_text(errors="replace")
    # The flood writes gigabytes in the eval timeout; uncapped, a worker would hold them all.
    assert 0 < fault_run.max_rss_kib < 400 * 1024, fault_run.max_rss_kib


def test_disk_fill_is_stopped_near_the_limit(fault_run: Any) -> None:
    case = fault_run.run.by_id[IDS["disk"]]
    assert f"{DISK_LIMIT_MIB} MiB disk limit" in case.message
