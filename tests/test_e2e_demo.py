"""End to end on a real Docker engine: the demo benchmark with gold, empty and predictions agents."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from gitrepo import new_file_diff

from pytest_swe.tools import report

from conftest import DEMO_DIR
from conftest import DEMO_IDS
from conftest import DEMO_JSONL
from conftest import SweProject
from conftest import labelled_containers

pytestmark = pytest.mark.docker

REQUIRED_PROPERTIES = {
    "reward",
    "resolved",
    "masked",
    "error_kind",
    "family",
    "instance_id",
    "agent",
    "provider",
    "f2p_passed",
    "f2p_total",
    "p2p_passed",
    "p2p_total",
    "patch_sha256",
    "patch_bytes",
    "time_sandbox",
    "time_agent",
    "time_eval",
    "patch_path",
    "eval_log_path",
    "verdict_path",
}


def demo_rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DEMO_JSONL.read_text().splitlines() if line.strip()]


def write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_gold_resolves_every_demo_instance(swe_project: SweProject, demo_images: list[str]) -> None:
    swe_project.demo()
    run = swe_project.run("benchmarks/", "-n", "2", "--swe-agent", "gold")
    run.result.assert_outcomes(passed=len(DEMO_IDS))
    assert sorted(run.by_id) == sorted(DEMO_IDS)
    for case in run.cases:
        assert set(case.properties) >= REQUIRED_PROPERTIES, REQUIRED_PROPERTIES - set(case.properties)
        assert case.properties["reward"] == "1.0" and case.properties["resolved"] == "true"
        assert case.properties["masked"] == "false" and case.properties["error_kind"] == ""
        assert case.properties["f2p_passed"] == case.properties["f2p_total"] != "0"
        assert case.properties["apply_in"] == "eval_command"  # every gold patch is foretold by its text
        assert Path(case.properties["eval_log_path"]).is_file()
        verdict = json.loads(Path(case.properties["verdict_path"]).read_text())
        assert verdict["resolved"] is True and verdict["resolution"] == "RESOLVED_FULL"
    for key in ("harness_version", "grader_version", "benchmark", "dataset", "split", "run_id"):
        assert run.suite.get(key), key
    assert run.suite["benchmark"] == "demo"
    assert len(run.ledger()) == len(DEMO_IDS)
    assert all(entry["outcome"] == "passed" for entry in run.ledger())

    out = subprocess.run(
        [sys.executable, "-m", "pytest_swe.tools.cli", "report", str(run.junit)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert f"resolved     {len(DEMO_IDS)}/{len(DEMO_IDS)}" in out.stdout and "100.0%" in out.stdout


def test_empty_resolves_none(swe_project: SweProject, demo_images: list[str]) -> None:
    swe_project.demo()
    run = swe_project.run("benchmarks/", "-n", "2", "--swe-agent", "empty")
    run.result.assert_outcomes(failed=len(DEMO_IDS))
    rows = {r["instance_id"]: r for r in demo_rows()}
    for case in run.cases:
        assert case.outcome == "failed"
        assert case.properties["reward"] == "0.0" and case.properties["masked"] == "false"
        assert "the patch is empty" in case.message and "apply_in" not in case.properties
        first_f2p = json.loads(rows[case.instance_id]["FAIL_TO_PASS"])[0]
        assert first_f2p in case.message  # the failure names the failing tests
    summary = subprocess.run(
        [sys.executable, "-m", "pytest_swe.tools.cli", "report", "--json", str(run.junit)],
        capture_output=True,
        text=True,
    )
    data = json.loads(summary.stdout)
    assert data["overall"]["resolved"] == 0 and data["overall"]["unresolved"] == len(DEMO_IDS)
    assert data["overall"]["resolved_rate"] == 0.0


def test_wrong_predictions_fail_with_reasons(swe_project: SweProject, demo_images: list[str]) -> None:
    swe_project.demo()
    run = swe_project.run(
        "benchmarks/", "--swe-predictions", str(DEMO_DIR / "predictions-wrong.jsonl"), "-rs"
    )
    outcomes = run.outcomes()
    assert outcomes["demo__envfile-1"] == "passed"  # a correct fix that differs from gold
    assert outcomes["demo__pager-1"] == outcomes["demo__confkit-1"] == outcomes["demo__routes-1"] == "failed"
    assert outcomes["demo__calc-1"] == "failed"
    pager = run.by_id["demo__pager-1"]
    assert pager.properties["patch_applied"] == "false" and "did not apply" in pager.message
    routes = run.by_id["demo__routes-1"]
    assert routes.properties["f2p_passed"] == routes.properties["f2p_total"]
    assert "PASS_TO_PASS failing (2 of" in routes.message
    confkit = run.by_id["demo__confkit-1"]
    assert 0 < int(confkit.properties["f2p_passed"]) < int(confkit.properties["f2p_total"])
    for skipped in ("demo__ledger-1", "demo__lru-1", "demo__slugkit-1"):
        assert outcomes[skipped] == "skipped"
        assert "no prediction for" in run.by_id[skipped].message


AGENT_TESTS = ("test_reproduce.py", "tests/test_issue_regression.py")


def with_agent_tests(patch: str) -> str:
    """The patch with two new test files, as agents add them beside a fix."""
    return patch + "".join(
        new_file_diff(path, "def test_reproduce():\n    assert True\n") for path in AGENT_TESTS
    )


def test_an_agents_own_test_files_are_put_back_in_the_eval_command(
    swe_project: SweProject, demo_images: list[str], tmp_path: Path
) -> None:
    """Each gold patch with tests of an agent's own beside it: resolved, the test files put back
    (named in ``neutralized``), and all of it in the eval command, as for the gold patch alone."""
    swe_project.demo()
    predictions = write_rows(
        tmp_path / "predictions.jsonl",
        [
            {
                "instance_id": r["instance_id"],
                "model_name_or_path": "agent",
                "model_patch": with_agent_tests(r["patch"]),
            }
            for r in demo_rows()
        ],
    )
    run = swe_project.run("benchmarks/", "-n", "2", "--swe-predictions", str(predictions))
    run.result.assert_outcomes(passed=len(DEMO_IDS))
    for case in run.cases:
        assert case.properties["resolved"] == "true" and case.properties["apply_in"] == "eval_command"
        put_back = [entry.split(" (", 1)[0] for entry in case.properties["neutralized"].split("; ")]
        assert put_back == list(AGENT_TESTS), case.properties["neutralized"]
        verdict = json.loads(Path(case.properties["verdict_path"]).read_text())
        assert [entry.split(" (", 1)[0] for entry in verdict["extra"]["neutralized"]] == list(AGENT_TESTS)


def test_setup_show_lists_the_lifecycle_fixtures(swe_project: SweProject, demo_images: list[str]) -> None:
    swe_project.demo()
    run = swe_project.run("benchmarks/", "-k", "pager", "--setup-show")
    run.result.assert_outcomes(passed=1)
    out = run.result.stdout.str()
    for fixture in ("swe_task", "swe_provider", "swe_agent_result", "swe_eval_sandbox", "swe_verdict"):
        assert f"SETUP    F {fixture}" in out, fixture


def test_eval_timeout_is_an_error_within_bounds(
    swe_project: SweProject, demo_images: list[str], tmp_path: Path, docker_engine: Any
) -> None:
    row = demo_rows()[0]
    row["eval_script"] = row["eval_script"].replace(
        ": '>>>>> Start Test Output'", ": '>>>>> Start Test Output'\nsleep 120"
    )
    dataset = write_rows(tmp_path / "slow.jsonl", [row])
    swe_project.demo("slowdemo", dataset=dataset)
    start = time.monotonic()
    run = swe_project.run("benchmarks/", "--swe-set", "timeouts.eval=2")
    elapsed = time.monotonic() - start
    run.result.assert_outcomes(errors=1)
    (case,) = run.cases
    assert case.outcome == "error"
    assert case.properties["error_kind"] == "eval_timeout" and case.properties["masked"] == "true"
    assert case.properties["reward"] == "0.0"
    assert "did not finish within 2s" in case.message
    assert elapsed < 30, elapsed
    assert not labelled_containers(docker_engine, benchmark="slowdemo")


def test_sigterm_during_eval_leaves_no_container(
    swe_project: SweProject, demo_images: list[str], tmp_path: Path, docker_engine: Any
) -> None:
    row = demo_rows()[0]
    row["eval_script"] = row["eval_script"].replace(
        ": '>>>>> Start Test Output'", ": '>>>>> Start Test Output'\nsleep 300"
    )
    dataset = write_rows(tmp_path / "slow.jsonl", [row])
    swe_project.demo("termdemo", dataset=dataset)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "benchmarks/",
            "-p",
            "no:cacheprovider",
            f"--swe-run-dir={tmp_path / 'run'}",
        ],
        cwd=swe_project.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not labelled_containers(
        docker_engine, benchmark="termdemo", role="eval"
    ):
        time.sleep(0.2)
    assert labelled_containers(docker_engine, benchmark="termdemo", role="eval"), "eval never started"
    time.sleep(1)
    proc.send_signal(signal.SIGTERM)
    killed_at = time.monotonic()
    proc.communicate(timeout=60)
    while time.monotonic() - killed_at < 10 and labelled_containers(docker_engine, benchmark="termdemo"):
        time.sleep(0.2)
    assert not labelled_containers(docker_engine, benchmark="termdemo")


def test_missing_images_are_one_error_before_any_item_runs(
    swe_project: SweProject, demo_images: list[str], tmp_path: Path
) -> None:
    rows = demo_rows()
    missing = [
        dict(rows[n], instance_id=f"demo__missing-image-{n}", image=f"pytest-swe-demo/not-built-{n}:latest")
        for n in range(2)
    ]
    dataset = write_rows(tmp_path / "mixed.jsonl", [*missing, rows[2]])
    swe_project.demo("mixed", dataset=dataset, extra="provider: {name: docker, pull: never}\n")
    run = swe_project.run("benchmarks/")
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR and not run.cases
    err = run.result.stderr.str()
    assert err.count("2 image(s) of benchmark mixed are not here and provider.pull is never") == 1, err
    assert "pytest-swe-demo/not-built-0:latest, pytest-swe-demo/not-built-1:latest" in err


def test_bad_row_is_an_error_others_pass(
    swe_project: SweProject, demo_images: list[str], tmp_path: Path
) -> None:
    rows = demo_rows()
    bad = dict(rows[1], instance_id="demo__bad-json", FAIL_TO_PASS="[oops")
    dataset = write_rows(tmp_path / "mixed.jsonl", [bad, rows[2]])
    swe_project.demo("mixed", dataset=dataset, extra="provider: {name: docker, pull: never}\n")
    run = swe_project.run("benchmarks/")
    assert run.outcomes() == {"demo__bad-json": "error", rows[2]["instance_id"]: "passed"}
    bad_case = run.by_id["demo__bad-json"]
    assert bad_case.properties["error_kind"] == "bad_row"
    assert "field 'FAIL_TO_PASS'" in bad_case.message and "row 1 (demo__bad-json)" in bad_case.message


def test_keep_leaves_sandboxes_and_says_how_to_enter(
    swe_project: SweProject, demo_images: list[str], docker_engine: Any
) -> None:
    swe_project.demo("keepdemo")
    run = swe_project.run("benchmarks/", "-k", "pager", "--swe-keep", "--swe-agent", "empty")
    try:
        run.result.stdout.fnmatch_lines(["*kept sandbox demo__pager-1: docker exec -it * bash*"])
        kept = labelled_containers(docker_engine, benchmark="keepdemo")
        assert kept and all(c["Labels"]["pytest-swe.keep"] == "1" for c in kept)
        pager = run.by_id["demo__pager-1"]
        # how to enter is in the kept sandbox's property and the summary, never in the verdict
        assert "enter the" not in pager.message
        assert pager.properties["kept_eval_sandbox"].startswith("docker exec -it ")
        verdict = json.loads(Path(pager.properties["verdict_path"]).read_text())
        assert not any("enter the" in reason for reason in verdict["reasons"])
        (eval_box,) = labelled_containers(docker_engine, benchmark="keepdemo", role="eval")
        copied = docker_engine.containers.get(eval_box["Id"]).exec_run(["cat", "/tmp/pytest-swe/eval.sh"])
        assert copied.exit_code == 0 and copied.output == Path(pager.properties["eval_sh_path"]).read_bytes()
    finally:
        for c in labelled_containers(docker_engine, benchmark="keepdemo"):
            docker_engine.api.remove_container(c["Id"], force=True)


def test_docker_daemon_unreachable_is_an_error_not_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    """Met by one item (the engine went away mid-run), it is a masked error whose message says how
    to start the engine; before a run, the same fault is one usage error (tests/test_bad_input.py)."""
    from pytest_swe.api.errors import InfraError
    from pytest_swe.api.sandbox import this_run
    from pytest_swe.providers.docker import DockerProvider

    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    provider = DockerProvider({"name": "docker"}, this_run())
    with pytest.raises(InfraError) as info:
        _ = provider.client
    assert info.value.kind == "provider_unavailable"
    assert "cannot reach the Docker daemon at unix:///nonexistent/docker.sock" in str(info.value)
    assert "README section 'Starting the Docker engine'" in str(info.value)


def test_pdb_stops_with_verdict_and_live_sandbox(
    swe_project: SweProject, demo_images: list[str], docker_engine: Any
) -> None:
    swe_project.demo("pdbdemo")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "benchmarks/",
            "-p",
            "no:cacheprovider",
            "-k",
            "routes",
            "--pdb",
            "--swe-predictions",
            str(DEMO_DIR / "predictions-wrong.jsonl"),
            "--junitxml=junit.xml",
        ],
        cwd=swe_project.path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None and proc.stdin is not None
    seen = ""
    while "(Pdb)" not in seen:
        chunk = proc.stdout.read(1)
        assert chunk, seen[-3000:]
        seen += chunk
    assert "PASS_TO_PASS failing" in seen
    # the help, printed as the debugger opens: how to enter, the copied eval script, scope, logs
    help_text = seen[seen.index("pytest-swe: ") :]
    assert "  enter the eval: docker exec -it" in help_text
    assert "  the eval script, copied into the eval sandbox: /tmp/pytest-swe/eval.sh" in help_text
    assert "  in scope: swe_task, swe_verdict, swe_eval_sandbox" in help_text
    run_dir = next((swe_project.path / "swe-runs").glob("2*"))
    assert f"  logs: {run_dir / 'pdbdemo' / 'demo__routes-1'} (" in help_text and "eval.log" in help_text
    alive = labelled_containers(docker_engine, benchmark="pdbdemo", role="eval")
    assert len(alive) == 1 and alive[0]["State"] == "running"
    commands = [
        "p swe_verdict.resolution",
        "p [r for r in swe_verdict.reasons if 'enter the' in r]",
        "p swe_eval_sandbox.exec('head -c 11 /tmp/pytest-swe/eval.sh', timeout=60).output",
        "p swe_eval_sandbox.spec.role",
        help_text.split("(e.g. ", 1)[1].split("\n", 1)[0][:-1],  # the help's example, as printed
        "c",
    ]
    out, _ = proc.communicate("".join(f"{c}\n" for c in commands), timeout=120)
    assert "'RESOLVED_NO'" in out and "[]" in out
    assert "'#!/bin/bash'" in out and "'eval'" in out and "On branch main" in out
    assert not labelled_containers(docker_engine, benchmark="pdbdemo")
    (case,) = report.read_cases(swe_project.path / "junit.xml")
    assert case.outcome == "failed" and "enter the" not in case.message
