"""Docker-free checks of the demo benchmark's data (``benchmarks/demo/``).

The demo benchmark is the one a new user runs first and the one the harness's own
end-to-end tests lean on, so each row must grade the way its metadata claims. These
tests run every row's own ``eval_script`` on the host, in a deterministic git snapshot
of the instance repository (the same commit the image builder makes), with the host's
pytest standing in for the image's, and read the ``-rA`` summary like the SWE-bench
``parse_log_pytest`` parser does.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_swe.tools import gitsnap

from conftest import SWEBENCH_CLASSIC_COLUMNS
from conftest import load_module
from conftest import read_jsonl

DEMO = Path(__file__).resolve().parents[1] / "benchmarks" / "demo"
INSTANCES = DEMO / "instances"

# The v5 row schema, in the column order of the published SWE-bench Verified parquet.
V5_COLUMNS = (
    *SWEBENCH_CLASSIC_COLUMNS,
    "difficulty",
    "eval_script",
    "log_parser",
    "eval_type",
    "image",
)
START, END = ">>>>> Start Test Output", ">>>>> End Test Output"
SUMMARY_LINE = re.compile(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S+)")


ROWS = {row["instance_id"]: row for row in read_jsonl(DEMO / "demo.jsonl")}
PREDICTIONS = {rec["instance_id"]: rec for rec in read_jsonl(DEMO / "predictions-wrong.jsonl")}
# (instance_id, label, expectation) for every prediction kept beside an instance.
PREDICTION_SPECS = sorted(
    (spec.parents[1].name, spec.stem, yaml.safe_load(spec.read_text(encoding="utf-8"))["expect"])
    for spec in INSTANCES.glob("*/predictions/*.yaml")
)


def read_statuses(log: str) -> dict[str, str]:
    """Test id -> status from the ``-rA`` summary lines between the eval markers."""
    start, end = log.find(START), log.find(END)
    assert 0 <= start < end, "the eval log lacks the test output markers"
    statuses = {}
    for line in log[start:end].splitlines():
        match = SUMMARY_LINE.match(line)
        if match:
            statuses[match[2]] = match[1]
    return statuses


def _f2p_p2p(row: dict[str, Any]) -> tuple[list[str], list[str]]:
    return json.loads(row["FAIL_TO_PASS"]), json.loads(row["PASS_TO_PASS"])


def _checkout(instance_id: str, dest: Path) -> Path:
    """A git snapshot of the instance repository; its HEAD must be the row's base commit."""
    commit = gitsnap.snapshot(INSTANCES / instance_id / "repo", dest)
    assert commit == ROWS[instance_id]["base_commit"]
    return dest


def _patch_applies(testbed: Path, patch: str) -> bool:
    proc = subprocess.run(
        ["git", "apply", "--check", "-"],
        cwd=testbed,
        input=patch,
        text=True,
        capture_output=True,
        check=False,
    )
    return proc.returncode == 0


def run_eval(instance_id: str, patch: str | None, tmp_path: Path) -> dict[str, str]:
    """Apply ``patch`` (if any) to a fresh checkout, run the row's eval script, return test statuses.

    ``/testbed`` becomes a temporary directory, ``python3`` the interpreter running these tests
    (with plugin autoloading off so this project's own pytest plugins stay out), and git's global
    config a scratch file, so the script touches nothing outside ``tmp_path``.
    """
    testbed = _checkout(instance_id, tmp_path / "testbed")
    if patch:
        gitsnap.git(["apply", "-"], testbed, input=patch)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    python3 = bindir / "python3"
    python3.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python3.chmod(python3.stat().st_mode | stat.S_IXUSR)
    script = tmp_path / "eval.sh"
    script.write_text(ROWS[instance_id]["eval_script"].replace("/testbed", str(testbed)))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "GIT_", "PYTHON"))}
    env.update(
        PATH=f"{bindir}{os.pathsep}{env.get('PATH', '')}",
        HOME=str(tmp_path),
        GIT_CONFIG_GLOBAL=str(tmp_path / "gitconfig"),
        GIT_CONFIG_NOSYSTEM="1",
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
        PYTHONDONTWRITEBYTECODE="1",
    )
    proc = subprocess.run(
        ["bash", str(script)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
        check=False,
    )
    statuses = read_statuses(proc.stdout)
    assert statuses, f"no test statuses in the eval log:\n{proc.stdout[-3000:]}"
    return statuses


def _failing(ids: list[str], statuses: dict[str, str]) -> list[str]:
    """The ids that did not pass (a missing id counts as not passed, as in SWE-bench grading)."""
    return [t for t in ids if statuses.get(t) != "PASSED"]


def test_read_statuses_takes_the_summary_between_markers() -> None:
    log = "\n".join(
        [
            "PASSED tests/test_a.py::outside_the_markers",
            "+ : '>>>>> Start Test Output'",
            "tests/test_a.py ..F  [100%]",
            "PASSED tests/test_a.py::test_one",
            "PASSED tests/test_a.py::test_p[1+2-3]",
            "FAILED tests/test_a.py::TestX::test_two - AssertionError: assert 1 == 2",
            "ERROR tests/test_a.py::test_three - TypeError: boom",
            "+ : '>>>>> End Test Output'",
        ]
    )
    assert read_statuses(log) == {
        "tests/test_a.py::test_one": "PASSED",
        "tests/test_a.py::test_p[1+2-3]": "PASSED",
        "tests/test_a.py::TestX::test_two": "FAILED",
        "tests/test_a.py::test_three": "ERROR",
    }


def test_dataset_is_up_to_date(tmp_path: Path) -> None:
    """demo.jsonl and predictions-wrong.jsonl are exactly what make_rows.py builds from the sources."""
    make_rows = load_module(DEMO / "make_rows.py")
    written_files = make_rows.write(tmp_path)
    assert sorted(p.name for p in written_files) == ["demo.jsonl", "predictions-wrong.jsonl"]
    for written in written_files:
        committed = DEMO / written.name
        assert written.read_bytes() == committed.read_bytes(), (
            f"{committed} is stale: run python benchmarks/demo/make_rows.py"
        )


def test_rows_follow_the_v5_schema() -> None:
    assert len(ROWS) >= 7
    for instance_id, row in ROWS.items():
        assert tuple(row) == V5_COLUMNS, instance_id
        assert all(isinstance(v, str) for v in row.values()), instance_id
        assert re.fullmatch(r"demo__[a-z][a-z0-9_]*-[0-9]+", instance_id)
        assert row["repo"] == "demo/" + instance_id.removeprefix("demo__").rsplit("-", 1)[0]
        assert re.fullmatch(r"[0-9a-f]{40}", row["base_commit"])
        assert row["environment_setup_commit"] == row["base_commit"]
        assert row["log_parser"] == "parse_log_pytest"
        assert row["eval_type"] == "pass_and_fail"
        assert (
            row["image"]
            == ("pytest-swe-demo/sweb.eval.x86_64." + instance_id.replace("__", "_1776_") + ":latest").lower()
        )
        for key in ("FAIL_TO_PASS", "PASS_TO_PASS"):
            ids = json.loads(row[key])
            assert isinstance(ids, list) and all(isinstance(t, str) and " " not in t for t in ids), key
        f2p, p2p = _f2p_p2p(row)
        assert f2p and not set(f2p) & set(p2p), instance_id
        assert row["patch"].startswith("diff --git ") and row["test_patch"].startswith("diff --git ")
        script = row["eval_script"]
        assert script.startswith("#!/bin/bash\nset -uxo pipefail\ncd /testbed\n")
        assert f"git apply -v - <<'EOF_114329324912'\n{row['test_patch']}\nEOF_114329324912\n" in script
        assert f": '{START}'\npython3 -m pytest -rA " in script and f": '{END}'" in script
        for problem_field in ("problem_statement", "created_at", "version", "difficulty"):
            assert row[problem_field].strip(), (instance_id, problem_field)


def test_predictions_file_is_in_the_swebench_format() -> None:
    lines = read_jsonl(DEMO / "predictions-wrong.jsonl")
    assert len(lines) == len(PREDICTIONS) == len(PREDICTION_SPECS) >= 4
    for record in lines:
        assert set(record) == {"instance_id", "model_name_or_path", "model_patch"}
        assert all(isinstance(v, str) and v for v in record.values())
        assert record["instance_id"] in ROWS
    expectations = {expect for _, _, expect in PREDICTION_SPECS}
    assert {"partial", "breaks-pass-to-pass", "does-not-apply", "resolves"} <= expectations


def test_demo_covers_the_kinds_of_task() -> None:
    """Guard the variety the demo exists for, so a later edit cannot quietly lose a kind."""
    rows = list(ROWS.values())

    def changed_lines(patch: str) -> int:
        return sum(1 for line in patch.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---"))

    all_ids = [t for row in rows for ids in _f2p_p2p(row) for t in ids]
    assert any(changed_lines(r["patch"]) == 2 for r in rows), "a one-line fix"
    assert any(r["patch"].count("diff --git ") >= 2 for r in rows), "a multi-file fix"
    assert any("new file mode" in r["patch"] for r in rows), "a fix that adds a source file"
    assert any("deleted file mode" in r["patch"] for r in rows), "a fix that deletes a source file"
    assert any("new file mode" in r["test_patch"] for r in rows), "a test patch that adds a test file"
    assert any("[" in t for t in all_ids), "a parametrized test id"
    assert any("::Test" in t for t in all_ids), "a class-based test id"
    assert any(re.search(r"^diff --git a/[^/\s]+/[^/\s]+/\S+ ", r["patch"], re.M) for r in rows), (
        "a fix in a subpackage"
    )


@pytest.mark.parametrize("instance_id", sorted(ROWS))
def test_test_patch_alone_fails_f2p_and_keeps_p2p(instance_id: str, tmp_path: Path) -> None:
    statuses = run_eval(instance_id, None, tmp_path)
    f2p, p2p = _f2p_p2p(ROWS[instance_id])
    assert {t: statuses.get(t) for t in f2p if statuses.get(t) not in ("FAILED", "ERROR")} == {}
    assert {t: statuses.get(t) for t in _failing(p2p, statuses)} == {}


@pytest.mark.parametrize("instance_id", sorted(ROWS))
def test_gold_patch_resolves(instance_id: str, tmp_path: Path) -> None:
    statuses = run_eval(instance_id, ROWS[instance_id]["patch"], tmp_path)
    f2p, p2p = _f2p_p2p(ROWS[instance_id])
    assert {t: statuses.get(t) for t in _failing(f2p + p2p, statuses)} == {}
    # Every test the eval script runs is listed, so no test is silently left ungraded.
    assert sorted(statuses) == sorted(f2p + p2p)


@pytest.mark.parametrize(("instance_id", "label", "expect"), PREDICTION_SPECS)
def test_prediction_grades_as_described(instance_id: str, label: str, expect: str, tmp_path: Path) -> None:
    patch = PREDICTIONS[instance_id]["model_patch"]
    if expect == "does-not-apply":
        testbed = _checkout(instance_id, tmp_path / "testbed")
        assert not _patch_applies(testbed, patch)
        if shutil.which("patch"):  # the official harness's last fallback must fail too
            fuzzy = subprocess.run(
                ["patch", "--batch", "--fuzz=5", "-p1", "--dry-run"],
                cwd=testbed,
                input=patch,
                text=True,
                capture_output=True,
                check=False,
            )
            assert fuzzy.returncode != 0, fuzzy.stdout
        return
    statuses = run_eval(instance_id, patch, tmp_path)
    f2p, p2p = _f2p_p2p(ROWS[instance_id])
    f2p_failing, p2p_failing = _failing(f2p, statuses), _failing(p2p, statuses)
    if expect == "resolves":
        assert f2p_failing == [] and p2p_failing == []
    elif expect == "partial":  # SWE-bench's PARTIAL: some F2P pass, all P2P pass
        assert 0 < len(f2p_failing) < len(f2p) and p2p_failing == []
    elif expect == "breaks-pass-to-pass":
        assert p2p_failing
    elif expect == "fails-fail-to-pass":
        assert f2p_failing == f2p and p2p_failing == []
    else:
        pytest.fail(f"unknown expectation {expect!r} for {instance_id}/{label}")
