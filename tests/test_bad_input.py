"""Bad input and run-wide faults: one clear message, an honest ledger, nothing lost or invented.

Each test runs pytest-swe as a user would (a pytester subprocess, the real Docker engine, real
files and real loopback sockets) and reads the JUnit ledger back.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import DEMO_IDS
from conftest import DEMO_JSONL
from conftest import SweProject
from conftest import read_jsonl
from conftest import write_jsonl

USAGE_ERROR = 4
GOLD = {row["instance_id"]: row["patch"] for row in read_jsonl(DEMO_JSONL)}


def prediction(instance_id: str, patch: str | None = None) -> dict[str, Any]:
    return {
        "instance_id": instance_id,
        "model_name_or_path": "m",
        "model_patch": GOLD[instance_id] if patch is None else patch,
    }


def gold_predictions(path: Path, ids: list[str] = DEMO_IDS) -> Path:
    return write_jsonl(path, [prediction(i) for i in ids])


def assert_nothing_ran(run: Any) -> None:
    """A usage error before any item: exit code 4, no testcase in the JUnit file, no ledger line."""
    assert run.result.ret == USAGE_ERROR, run.result.stdout.str() + run.result.stderr.str()
    assert run.cases == []
    assert run.ledger() == []


def refused_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- the predictions file as a whole ---------------------------------------------------------------


@pytest.mark.parametrize("shape", ["non-utf8", "directory", "missing"])
def test_an_unusable_predictions_file_is_one_usage_error(
    swe_project: SweProject, demo_images: list[str], shape: str
) -> None:
    swe_project.demo()
    path = swe_project.path / "preds.jsonl"
    if shape == "non-utf8":
        gold_predictions(path)
        data = path.read_bytes().splitlines(keepends=True)
        data[1] = data[1].replace(b"demo", b"d\xffmo", 1)  # one byte on line 2
        path.write_bytes(b"".join(data))
        expected = f"predictions file {path}: not UTF-8 text: byte 0xff at line 2, column"
    elif shape == "directory":
        path.mkdir()
        expected = f"predictions file {path}: is a directory"
    else:
        expected = f"predictions file {path}: no such file"
    started = time.monotonic()
    run = swe_project.run("benchmarks/", "--swe-predictions", str(path))
    elapsed = time.monotonic() - started
    assert_nothing_ran(run)
    err = run.result.stderr.str()
    assert err.count(expected) == 1, err
    assert "no item was run" in err
    assert elapsed < 30, elapsed


def test_an_unusable_predictions_file_is_one_usage_error_under_xdist(
    swe_project: SweProject, demo_images: list[str]
) -> None:
    swe_project.demo()
    path = swe_project.path / "preds"
    path.mkdir()
    run = swe_project.run("benchmarks/", "-n", "2", "--swe-predictions", str(path))
    assert_nothing_ran(run)
    err = run.result.stderr.str() + run.result.stdout.str()
    assert err.count(f"predictions file {path}: is a directory") == 1, err


# --- one bad line ----------------------------------------------------------------------------------


def test_an_invalid_jsonl_line_errors_only_its_instance(
    swe_project: SweProject, demo_images: list[str]
) -> None:
    swe_project.demo()
    chosen = ["demo__calc-1", "demo__pager-1", "demo__routes-1"]
    lines = [json.dumps(prediction(i)) for i in chosen]
    lines[1] = lines[1][:-1] + ', "model_name_or_path": }'  # line 2: not JSON, its id still readable
    lines.append('{"model_patch": "diff --git" oops')  # line 4: not JSON, and no id in it
    path = swe_project.path / "preds.jsonl"
    path.write_text("\n".join(lines) + "\n")
    run = swe_project.run(
        "benchmarks/", "-k", "calc or pager or routes", "--swe-predictions", str(path), "-W", "default"
    )
    assert run.result.ret == 1, run.result.stdout.str()
    outcomes = run.outcomes()
    assert outcomes == {"demo__calc-1": "passed", "demo__pager-1": "error", "demo__routes-1": "passed"}
    pager = run.by_id["demo__pager-1"]
    assert pager.properties["error_kind"] == "bad_prediction" and pager.properties["masked"] == "true"
    assert (
        f"predictions file {path}, line 2: the prediction for demo__pager-1 is not valid JSON"
        in pager.message
    )
    out = run.result.stdout.str()
    assert out.count("SwePredictionsWarning: predictions file") == 1, out
    assert "1 entry without a readable instance id, ignored: line 4: not valid JSON" in out
    assert sorted(e["properties"]["instance_id"] for e in run.ledger()) == sorted(chosen)


# --- duplicate instance ids ------------------------------------------------------------------------


def duplicated(path: Path) -> Path:
    """routes: an empty patch on line 1, the gold patch on line 3."""
    rows = [prediction("demo__routes-1", ""), prediction("demo__calc-1"), prediction("demo__routes-1")]
    return write_jsonl(path, rows)


def test_duplicate_ids_are_a_usage_error_by_default(swe_project: SweProject, demo_images: list[str]) -> None:
    swe_project.demo()
    path = duplicated(swe_project.path / "preds.jsonl")
    run = swe_project.run("benchmarks/", "-k", "routes", "--swe-predictions", str(path))
    assert_nothing_ran(run)
    err = run.result.stderr.str()
    assert (
        f"predictions file {path}: 1 instance id(s) given more than once: demo__routes-1 (line 1, line 3)"
        in err
    )
    assert "--swe-predictions-duplicates first|last" in err


@pytest.mark.parametrize(
    ("how", "policy", "outcome"), [("option", "last", "passed"), ("ini", "first", "failed")]
)
def test_duplicate_policy_chooses_the_prediction(
    swe_project: SweProject, demo_images: list[str], how: str, policy: str, outcome: str
) -> None:
    swe_project.demo()
    path = duplicated(swe_project.path / "preds.jsonl")
    args = ["benchmarks/", "-k", "routes", "--swe-predictions", str(path), "-W", "default"]
    if how == "option":
        args += ["--swe-predictions-duplicates", policy]
    else:
        swe_project.pytester.makeini(f"[pytest]\nswe_predictions_duplicates = {policy}\n")
    run = swe_project.run(*args)
    assert run.outcomes() == {"demo__routes-1": outcome}, run.result.stdout.str()
    out = run.result.stdout.str()
    assert f"1 instance id(s) given more than once, the {policy} one counts" in out


def test_unknown_duplicate_policy_names_the_option(swe_project: SweProject, demo_images: list[str]) -> None:
    swe_project.demo()
    path = gold_predictions(swe_project.path / "preds.jsonl")
    run = swe_project.run(
        "benchmarks/", "--swe-predictions", str(path), "--swe-predictions-duplicates", "newest"
    )
    assert run.result.ret == USAGE_ERROR
    assert (
        "--swe-predictions-duplicates (ini: swe_predictions_duplicates) 'newest'" in run.result.stderr.str()
    )


# --- predictions for no collected row --------------------------------------------------------------


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["one-process", "xdist"])
def test_predictions_that_match_no_row_are_one_warning(
    swe_project: SweProject, demo_images: list[str], xdist: list[str]
) -> None:
    swe_project.demo()
    strays = [f"other__repo-{n:02d}" for n in range(12)]
    rows = [prediction("demo__calc-1")] + [{"instance_id": s, "model_patch": ""} for s in strays]
    path = write_jsonl(swe_project.path / "preds.jsonl", rows)
    run = swe_project.run(
        "benchmarks/", "-k", "calc", "--swe-predictions", str(path), "-W", "default", *xdist
    )
    assert run.outcomes() == {"demo__calc-1": "passed"}, run.result.stdout.str()
    out = run.result.stdout.str()
    listed = ", ".join(strays[:10]) + " and 2 more"
    assert out.count("12 prediction(s) match no row of benchmark demo") == 1, out
    assert listed in out


# --- run-wide faults -------------------------------------------------------------------------------


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["one-process", "xdist"])
def test_docker_unreachable_is_one_usage_error(
    swe_project: SweProject, monkeypatch: pytest.MonkeyPatch, xdist: list[str]
) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    swe_project.demo()
    started = time.monotonic()
    run = swe_project.run("benchmarks/", *xdist)
    elapsed = time.monotonic() - started
    assert_nothing_ran(run)
    err = run.result.stderr.str()
    assert err.count("cannot reach the Docker daemon at unix:///nonexistent/docker.sock") == 1, err
    assert "README section 'Starting the Docker engine'" in err
    assert elapsed < 60, elapsed
    collect = swe_project.run("benchmarks/", "--collect-only", "-q")  # nothing runs: no check
    assert collect.result.ret == 0, collect.result.stdout.str()


def test_the_readme_has_the_section_the_docker_message_names() -> None:
    from pytest_swe.providers.docker import README_ENGINE_SECTION

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert f"## {README_ENGINE_SECTION}\n" in readme


def test_a_refusing_model_endpoint_is_one_usage_error(
    swe_project: SweProject, demo_images: list[str]
) -> None:
    port = refused_port()
    url = f"http://127.0.0.1:{port}/v1"
    swe_project.demo(extra=f"agent: {{name: llm, model: m, base_url: '{url}', api_key_env: null}}\n")
    started = time.monotonic()
    run = swe_project.run("benchmarks/", "-k", "calc or pager")
    elapsed = time.monotonic() - started
    assert_nothing_ran(run)
    err = run.result.stderr.str()
    assert (
        err.count(f"model endpoint {url} of benchmark demo (agent llm): 127.0.0.1:{port} refuses connections")
        == 1
    )
    assert elapsed < 30, elapsed


def test_endpoint_check_passes_a_listening_server_and_fails_a_closed_port() -> None:
    from http.server import BaseHTTPRequestHandler
    from http.server import ThreadingHTTPServer
    from threading import Thread

    from pytest_swe.runner.preflight import endpoint_problem

    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        assert endpoint_problem(f"http://127.0.0.1:{server.server_address[1]}/v1") is None
    finally:
        server.shutdown()
        server.server_close()
    port = refused_port()
    assert (
        endpoint_problem(f"http://127.0.0.1:{port}/v1")
        == f"127.0.0.1:{port} refuses connections (Connection refused)"
    )


# --- local datasets --------------------------------------------------------------------------------


def test_a_missing_local_dataset_is_a_collection_error(swe_project: SweProject) -> None:
    swe_project.demo()
    bench = swe_project.benchmark("typo", "family: swe-bench\ndataset: {source: ./demo-typo.jsonl}\n")
    run = swe_project.run("benchmarks/", "--collect-only", "-q")
    assert run.result.ret == 2, run.result.stdout.str()  # pytest: interrupted by a collection error
    out = run.result.stdout.str()
    assert f"{bench}: dataset.source {bench.parent / 'demo-typo.jsonl'}: no such file" in out
    assert "typo[dataset-unavailable]" not in out


def test_an_optional_local_dataset_that_is_absent_is_one_skipped_item(swe_project: SweProject) -> None:
    swe_project.benchmark(
        "internal", "family: swe-bench\ndataset: {source: /nonexistent/x.jsonl, optional: true}\n"
    )
    run = swe_project.run("benchmarks/", "-rs", "-W", "default")
    assert run.result.ret == 0, run.result.stdout.str()
    (case,) = run.cases
    assert case.outcome == "skipped" and "dataset file not found: /nonexistent/x.jsonl" in case.message


# --- pytest-rerunfailures ------------------------------------------------------------------------


def test_rerunfailures_counts_each_instance_once_and_never_reruns_a_clean_failure(
    swe_project: SweProject, demo_images: list[str]
) -> None:
    pytest.importorskip("pytest_rerunfailures")
    swe_project.demo()
    lines = [
        json.dumps(prediction("demo__calc-1")),  # resolves
        json.dumps(prediction("demo__pager-1", "")),  # runs cleanly, unresolved: a result, never rerun
        '{"instance_id": "demo__routes-1", "model_patch": oops}',  # an error: rerun, errors again
    ]
    path = swe_project.path / "preds.jsonl"
    path.write_text("\n".join(lines) + "\n")
    run = swe_project.run(
        "benchmarks/",
        "-k",
        "calc or pager or routes",
        "--swe-predictions",
        str(path),
        "--reruns",
        "1",
        "-rR",
    )
    out = run.result.stdout.str()
    assert run.outcomes() == {
        "demo__calc-1": "passed",
        "demo__pager-1": "failed",
        "demo__routes-1": "error",
    }, out
    assert len(run.cases) == 3  # one testcase with a reward per instance
    assert run.by_id["demo__routes-1"].properties["attempts"] == "2"
    assert "attempts" not in run.by_id["demo__pager-1"].properties
    assert "RERUN benchmarks/demo.yaml::demo::demo__routes-1" in out
    assert "RERUN benchmarks/demo.yaml::demo::demo__pager-1" not in out
    run.result.stdout.re_match_lines([r"demo +swe-bench +1/2 \(50\.0%\) +1/3 \(33\.3%\) +1 +1 \(\w+ 1\) +0 "])
    ledger = sorted((e["properties"]["instance_id"], e["outcome"]) for e in run.ledger())
    assert ledger == [("demo__calc-1", "passed"), ("demo__pager-1", "failed"), ("demo__routes-1", "error")]
