"""No lost results, no orphaned sandboxes: resume, retries, crashes and interrupts, on a real engine."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.tools import report

from conftest import DEMO_DIR
from conftest import DEMO_IDS
from conftest import SweProject
from conftest import labelled_containers

pytestmark = pytest.mark.docker

PREDICTIONS = str(DEMO_DIR / "predictions-wrong.jsonl")
VOLATILE = re.compile(r"^(time_|run_id$)")


def normalized(case: report.Case, run_dir: Path) -> tuple[str, str, dict[str, str]]:
    """A testcase with what legitimately differs between two runs (timings, run dir, run id) removed."""
    props = {k: v.replace(str(run_dir), "<run>") for k, v in case.properties.items() if not VOLATILE.match(k)}
    return case.outcome, case.message.replace(str(run_dir), "<run>"), props


def wait_for(predicate: Any, timeout: float, interval: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return bool(predicate())


def ledger_lines(run_dir: Path) -> list[dict[str, Any]]:
    """The complete lines of a ledger that may be written while it is read: a reader can see a
    line the run is still writing, so text after the last newline is not yet an entry."""
    path = run_dir / "ledger.jsonl"
    if not path.exists():
        return []
    complete, _, _ = path.read_text().rpartition("\n")
    return [json.loads(line) for line in complete.splitlines() if line.strip()]


def popen_pytest(project: SweProject, *args: str, background: bool = False) -> subprocess.Popen[str]:
    """pytest in a process group of its own. ``background``: started as a script's background job
    (``cmd &``), which a shell starts with SIGINT ignored."""
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args]
    if background:
        command = ["sh", "-c", '"$@" & wait $!', "sh", *command]
    return subprocess.Popen(
        command,
        cwd=project.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def test_resume_after_controller_sigkill_equals_uninterrupted_run(
    swe_project: SweProject, demo_images: list[str], docker_engine: Any, tmp_path: Path
) -> None:
    swe_project.demo("resumedemo")
    full = swe_project.run("benchmarks/", "--swe-predictions", PREDICTIONS)
    assert len(full.cases) == len(DEMO_IDS)

    run_dir = tmp_path / "interrupted"
    proc = popen_pytest(
        swe_project, "benchmarks/", "--swe-predictions", PREDICTIONS, f"--swe-run-dir={run_dir}"
    )
    assert wait_for(lambda: len(ledger_lines(run_dir)) >= 3, 120), "three items never finished"
    os.kill(proc.pid, signal.SIGKILL)  # the controller dies without any cleanup
    proc.communicate(timeout=30)
    finished = ledger_lines(run_dir)
    assert 3 <= len(finished) < len(DEMO_IDS)

    resumed_junit = tmp_path / "resumed.xml"
    result = swe_project.pytester.runpytest_subprocess(
        "benchmarks/",
        "--swe-predictions",
        PREDICTIONS,
        f"--swe-resume={run_dir}",
        f"--junitxml={resumed_junit}",
        "-p",
        "no:cacheprovider",
    )
    resumed = report.read_cases(resumed_junit)
    assert sorted(c.instance_id for c in resumed) == sorted(DEMO_IDS)
    expected = {c.instance_id: normalized(c, full.run_dir) for c in full.cases}
    got = {c.instance_id: normalized(c, run_dir) for c in resumed}
    assert got == expected, result.stdout.str()[-3000:]
    # finished items were re-emitted, not re-run: their timings are the interrupted run's
    by_id = {c.instance_id: c for c in resumed}
    for entry in finished:
        assert by_id[entry["properties"]["instance_id"]].properties == entry["properties"]
    after = ledger_lines(run_dir)
    assert len(after) == len(DEMO_IDS), "the resumed run appended only the items it ran"
    assert len({e["properties"]["run_id"] for e in after}) == 1, "a resumed run keeps its run id"
    assert not labelled_containers(docker_engine, benchmark="resumedemo")


FLAKY_CONFTEST = '''
import os, pytest
from pytest_swe.api.errors import InfraError

COUNTER = os.environ["SWE_TEST_COUNTER"]

@pytest.hookimpl
def pytest_swe_agent_finished(item, task, result):
    """Injects a transient infrastructure fault: the first attempt of every item fails."""
    path = os.path.join(COUNTER, task.instance_id)
    seen = os.path.exists(path)
    open(path, "a").close()
    if not seen:
        raise InfraError("sandbox_died", "injected transient fault")
'''


def test_retries_rerun_infra_errors_only(
    swe_project: SweProject, demo_images: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    swe_project.demo("retrydemo")
    (swe_project.path / "conftest.py").write_text(textwrap.dedent(FLAKY_CONFTEST))
    counter = tmp_path / "counter"
    counter.mkdir()
    monkeypatch.setenv("SWE_TEST_COUNTER", str(counter))
    no_retry = swe_project.run("benchmarks/", "-k", "pager or routes")
    assert set(no_retry.outcomes().values()) == {"error"}
    assert {c.properties["error_kind"] for c in no_retry.cases} == {"sandbox_died"}

    for path in counter.iterdir():
        path.unlink()
    retried = swe_project.run(
        "benchmarks/",
        "-k",
        "pager or routes",
        "--swe-retries",
        "2",
        "--swe-predictions",
        PREDICTIONS,
        "-n",
        "2",
    )
    outcomes = retried.outcomes()
    # pager's prediction does not apply and routes' breaks P2P: clean failures after one retried fault
    assert outcomes == {"demo__pager-1": "failed", "demo__routes-1": "failed"}
    for case in retried.cases:
        assert case.properties["attempts"] == "2"
        assert case.properties["retried_errors"] == "sandbox_died"
    assert len(retried.ledger()) == 2, "only final attempts reach the ledger"


def test_clean_failures_are_not_retried(swe_project: SweProject, demo_images: list[str]) -> None:
    swe_project.demo()
    run = swe_project.run(
        "benchmarks/", "-k", "routes", "--swe-retries", "3", "--swe-predictions", PREDICTIONS
    )
    (case,) = run.cases
    assert case.outcome == "failed" and "attempts" not in case.properties


CRASH_CONFTEST = '''
import os, signal, pytest

@pytest.hookimpl
def pytest_swe_verdict(item, task, verdict):
    """Kills this xdist worker while the item's sandboxes are still up (first time only)."""
    marker = os.path.join(os.environ["SWE_TEST_COUNTER"], "crashed")
    if task.instance_id == "demo__calc-1" and not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
'''


def test_worker_sigkill_is_an_error_and_leaves_no_sandbox(
    swe_project: SweProject,
    demo_images: list[str],
    docker_engine: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    swe_project.demo("crashdemo")
    (swe_project.path / "conftest.py").write_text(textwrap.dedent(CRASH_CONFTEST))
    counter = tmp_path / "counter"
    counter.mkdir()
    monkeypatch.setenv("SWE_TEST_COUNTER", str(counter))
    run = swe_project.run("benchmarks/", "-n", "2", "-k", "calc or pager or routes")
    outcomes = run.outcomes()
    assert outcomes["demo__calc-1"] == "error"
    assert outcomes["demo__pager-1"] == outcomes["demo__routes-1"] == "passed"
    crashed = run.by_id["demo__calc-1"]
    assert crashed.properties["error_kind"] == "worker_crashed" and crashed.properties["reward"] == "0.0"
    assert crashed.properties["masked"] == "true"
    # the console's summary says what the ledger says: an error, not a failure
    assert run.result.parseoutcomes() == {"errors": 1, "passed": 2}, run.result.stdout.str()[-2000:]
    assert any(e["properties"]["instance_id"] == "demo__calc-1" for e in run.ledger())
    assert wait_for(lambda: not labelled_containers(docker_engine, benchmark="crashdemo"), 10)

    (counter / "crashed").unlink()
    retried = swe_project.run("benchmarks/", "-n", "2", "-k", "calc", "--swe-retries", "1")
    assert retried.outcomes() == {"demo__calc-1": "passed"}
    # the crashed attempt is reported as "retried" (pytest_report_teststatus), not as an error
    assert retried.result.parseoutcomes() == {"passed": 1, "retried": 1}, retried.result.stdout.str()[-2000:]


SLOW_EVAL = ": '>>>>> Start Test Output'\nsleep 300"


@pytest.mark.parametrize("signals", [("SIGINT",), ("SIGINT", "SIGINT"), ("SIGTERM",)], ids="+".join)
def test_interrupts_leave_no_sandbox(
    swe_project: SweProject,
    demo_images: list[str],
    docker_engine: Any,
    tmp_path: Path,
    signals: tuple[str, ...],
) -> None:
    rows = [json.loads(line) for line in (DEMO_DIR / "demo.jsonl").read_text().splitlines()][:2]
    for row in rows:
        row["eval_script"] = row["eval_script"].replace(": '>>>>> Start Test Output'", SLOW_EVAL)
    dataset = tmp_path / "slow.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows))
    name = f"intr{len(signals)}{signals[0].lower()}"
    swe_project.demo(name, dataset=dataset)
    proc = popen_pytest(swe_project, "benchmarks/", "-n", "2", f"--swe-run-dir={tmp_path / 'run'}")
    assert wait_for(lambda: len(labelled_containers(docker_engine, benchmark=name, role="eval")) == 2, 90)
    for sig in signals:
        os.killpg(proc.pid, getattr(signal, sig))  # like a terminal: the whole process group
        time.sleep(0.3)
    signalled = time.monotonic()
    proc.communicate(timeout=60)
    assert wait_for(
        lambda: not labelled_containers(docker_engine, benchmark=name),
        max(1.0, 10 - (time.monotonic() - signalled)),
    )


def slow_demo(
    swe_project: SweProject, tmp_path: Path, name: str, slow: int, total: int = len(DEMO_IDS), extra: str = ""
) -> None:
    """A demo benchmark of ``total`` rows whose last ``slow`` evals hang (so an interrupt finds them running)."""
    rows = [json.loads(line) for line in (DEMO_DIR / "demo.jsonl").read_text().splitlines()][:total]
    for row in rows[total - slow :]:
        row["eval_script"] = row["eval_script"].replace(": '>>>>> Start Test Output'", SLOW_EVAL)
    dataset = tmp_path / f"{name}.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows))
    swe_project.demo(name, extra, dataset=dataset)


@pytest.mark.parametrize("target", ["group", "controller"])
def test_ctrl_c_twice_keeps_every_finished_item_in_the_junit_file(
    swe_project: SweProject, demo_images: list[str], docker_engine: Any, tmp_path: Path, target: str
) -> None:
    """A second Ctrl-C while the run is stopping must not cut the JUnit file, nor print a traceback."""
    name = f"twice{target}"
    slow_demo(swe_project, tmp_path, name, slow=2)
    run_dir, junit = tmp_path / "run", tmp_path / "rewards.xml"
    # One item per scheduling step: otherwise xdist may hand both slow items to one worker in one
    # batch, and the second never starts while the first hangs.
    proc = popen_pytest(
        swe_project,
        "benchmarks/",
        "-n",
        "2",
        "--maxschedchunk=1",
        f"--swe-run-dir={run_dir}",
        f"--junitxml={junit}",
    )
    fast = len(DEMO_IDS) - 2
    assert wait_for(
        lambda: (
            len(ledger_lines(run_dir)) == fast
            and len(labelled_containers(docker_engine, benchmark=name, role="eval")) == 2
        ),
        180,
    ), "the fast items never finished with both slow evals running"
    for _ in range(2):
        if target == "group":
            os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C reaches every process of the group
        else:
            os.kill(proc.pid, signal.SIGINT)
        time.sleep(0.3)
    output, _ = proc.communicate(timeout=90)
    assert "Traceback" not in output and "OSError" not in output, output[-4000:]
    assert junit.exists(), output[-4000:]
    cases = report.read_cases(junit)
    entries = ledger_lines(run_dir)
    finished = {e["properties"]["instance_id"] for e in entries}
    assert len(finished) == fast
    unresolved = [e for e in entries if e.get("outcome") != "passed"]
    assert {c.instance_id: c.outcome for c in cases} == dict.fromkeys(finished, "passed"), unresolved
    assert wait_for(lambda: not labelled_containers(docker_engine, benchmark=name), 10)


def burn_cpu(count: int) -> list[subprocess.Popen[bytes]]:
    """Busy processes that compete for every core (other work on the machine)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


@pytest.mark.parametrize("background", [False, True], ids=["foreground", "background"])
def test_ctrl_c_stops_promptly_under_load(
    swe_project: SweProject, demo_images: list[str], docker_engine: Any, tmp_path: Path, background: bool
) -> None:
    """Every core busy with other work; the run may also be a script's background job, whose SIGINT
    a shell ignores (a test suite run as ``make test &`` passes that on to this run)."""
    name = f"loaded{int(background)}"
    slow_demo(swe_project, tmp_path, name, slow=2, total=2)
    proc = popen_pytest(
        swe_project, "benchmarks/", "-n", "2", f"--swe-run-dir={tmp_path / 'run'}", background=background
    )
    assert wait_for(lambda: len(labelled_containers(docker_engine, benchmark=name, role="eval")) == 2, 120)
    burners = burn_cpu(4 * (os.cpu_count() or 1))
    try:
        time.sleep(1)
        os.killpg(proc.pid, signal.SIGINT)
        signalled = time.monotonic()
        try:
            output, _ = proc.communicate(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            output, _ = proc.communicate()
        stopped = time.monotonic() - signalled
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    print(f"stopped {stopped:.1f} s after Ctrl-C")
    assert stopped < 20, (stopped, output[-3000:])
    assert wait_for(lambda: not labelled_containers(docker_engine, benchmark=name), 10)


def test_a_paused_eval_is_an_eval_timeout_at_its_timeout(
    swe_project: SweProject, demo_images: list[str], docker_engine: Any, tmp_path: Path
) -> None:
    """``docker pause`` of the eval container: the harness's own timer fires, so the kind is
    ``eval_timeout`` (not ``sandbox_died``, though no helper can enter a paused container and it is
    killed), promptly after ``timeouts.eval``."""
    timeout = 8
    slow_demo(
        swe_project, tmp_path, "paused", slow=1, total=1, extra=f"timeouts: {{agent: 60, eval: {timeout}}}\n"
    )
    paused: list[str] = []

    def pause() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not paused:
            for info in labelled_containers(docker_engine, benchmark="paused", role="eval"):
                try:
                    container = docker_engine.containers.get(info["Id"])
                    running = " ".join(" ".join(p) for p in container.top().get("Processes") or [])
                    if "sleep 300" in running:
                        container.pause()
                        paused.append(info["Id"])
                except Exception:  # not started yet, or gone
                    continue
            time.sleep(0.2)

    pauser = threading.Thread(target=pause, daemon=True)
    pauser.start()
    run = swe_project.run("benchmarks/")
    pauser.join(timeout=5)
    assert paused, "the eval never reached its tests"
    (case,) = run.cases
    assert case.outcome == "error" and case.properties["error_kind"] == "eval_timeout", case.message[:2000]
    assert float(case.properties["time_eval"]) < timeout + 15, case.properties["time_eval"]
    assert wait_for(lambda: not labelled_containers(docker_engine, benchmark="paused"), 10)


INTERRUPT_IN_TEARDOWN = """
import os, signal, time, pytest

@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item, nextitem):
    if item.name.endswith("calc-1"):  # its call has passed and been reported
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)
"""


def test_an_item_interrupted_in_teardown_is_not_a_testcase(
    swe_project: SweProject, demo_images: list[str]
) -> None:
    """Half-reported (call passed, teardown cut short) is unfinished: not a pass in the JUnit file,
    as it is not in the ledger."""
    import xml.etree.ElementTree as ET

    swe_project.demo("halfdone")
    (swe_project.path / "conftest.py").write_text(INTERRUPT_IN_TEARDOWN)
    run = swe_project.run("benchmarks/", "-k", "calc or confkit", subprocess=True)  # it signals itself
    assert run.junit.exists(), run.result.stdout.str()[-3000:]
    assert "KeyboardInterrupt" in run.result.stdout.str()
    testcases = [tc.get("name") for tc in ET.parse(run.junit).getroot().iter("testcase")]
    assert testcases == [], testcases
    assert run.ledger() == []
