"""``pytest-swe export --format swebench``: the official run report and per-instance reports.

A synthetic ledger holds one testcase for every path an item can take (resolved, unresolved,
partial, invalid log, empty patch, patch not applied, eval timeout, out of memory, sandbox
fault, model endpoint down, no prediction, whitespace-only patch), with the artifacts a run
leaves (patch, eval log, eval script, verdict). The export must equal what the official
``swebench`` 5.0.2 harness computes from the same material: ``make_run_report`` run over the
exported log tree and predictions, and ``get_eval_report`` on each exported test output.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

import pytest
from official_grader import OfficialGrader

from pytest_swe.families.logparsers import ParseContext
from pytest_swe.families.logparsers import get_parser
from pytest_swe.families.swebench import grading
from pytest_swe.tools import export

RUN_ID = "run-7"
MODEL = "org/model-x"
START = "+ : '>>>>> Start Test Output'"
END = "+ : '>>>>> End Test Output'"
PATCH = "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
F2P = ["tests/t.py::test_fix", "tests/t.py::test_param[a-b"]
P2P = ["tests/t.py::test_old", "tests/t.py::test_skip"]


def eval_log(*results: str, exit_code: int = 1, extra: str = "") -> str:
    body = "\n".join(results)
    return f"+ git apply -v -\n{START}\n{body}\n{extra}{END}\n>>>>> Test Exit Code: {exit_code}\n+ git checkout\n"


GOOD = eval_log(
    "PASSED tests/t.py::test_fix",
    "PASSED tests/t.py::test_param[a-b-c]",
    "PASSED tests/t.py::test_old",
    "SKIPPED tests/t.py::test_skip",
    exit_code=0,
)
PARTIAL = eval_log(
    "PASSED tests/t.py::test_fix",
    "FAILED tests/t.py::test_param[a-b-c] - assert 0",
    "PASSED tests/t.py::test_old",
)
BROKEN = eval_log(
    "FAILED tests/t.py::test_fix", "ERROR tests/t.py::test_old", extra="ModuleNotFoundError: no x\n"
)


@dataclass
class Item:
    """One testcase of the synthetic ledger and the artifacts its run left."""

    instance_id: str
    outcome: str
    patch: str | None = PATCH
    log: str | None = None
    applied: bool | None = True
    error_kind: str = ""
    message: str = ""
    props: dict[str, str] = field(default_factory=dict)


ITEMS = [
    Item("o__r-1", "passed", log=GOOD),
    Item("o__r-2", "failed", log=PARTIAL),
    Item("o__r-3", "failed", log=BROKEN),
    Item("o__r-4", "failed", log="+ : '>>>>> Start Test Output'\ncollected 0 items\n"),
    Item("o__r-5", "failed", log=eval_log("PASSED tests/t.py::test_fix", extra="Killed\n", exit_code=137)),
    Item("o__r-6", "failed", patch="", log=BROKEN, applied=None),
    Item("o__r-7", "failed", applied=False),
    Item(
        "o__r-8",
        "error",
        log=START + "\nrunning\n",
        error_kind="eval_timeout",
        message="the eval did not finish within 30s",
    ),
    Item("o__r-9", "error", log=START + "\n", error_kind="oom", message="killed for memory"),
    Item("o__r-10", "error", error_kind="sandbox_start", message="no sandbox"),
    Item("o__r-11", "error", patch=None, error_kind="model_endpoint", message="endpoint down"),
    Item("o__r-12", "skipped", patch=None, applied=None, message="no prediction for o__r-12"),
    Item("o__r-13", "failed", patch="\n  \n", applied=None),
    Item(
        "o__r-14", "error", patch="", error_kind="eval_timeout", message="the eval did not finish within 5s"
    ),
]

EXPECTED_BUCKETS = {
    "o__r-1": export.RESOLVED,
    "o__r-2": export.UNRESOLVED,
    "o__r-3": export.UNRESOLVED,
    "o__r-4": export.UNRESOLVED,
    "o__r-5": export.UNRESOLVED,
    "o__r-6": export.EMPTY_PATCH,
    "o__r-7": export.ERROR,
    "o__r-8": export.ERROR,
    "o__r-9": export.ERROR,
    "o__r-10": export.ERROR,
    "o__r-11": export.INCOMPLETE,
    "o__r-12": export.INCOMPLETE,
    "o__r-13": export.ERROR,
    "o__r-14": export.EMPTY_PATCH,
}


def grade(log: str) -> dict[str, Any]:
    """The verdict fields the SWE-bench family writes for this log (parse_log_pytest, pass_and_fail)."""
    parser = get_parser("parse_log_pytest")
    evaluated = grading.evaluate_log(log, lambda text: parser(text, ParseContext()))
    tests = grading.tests_report(evaluated.status_map, F2P, P2P)
    resolution = grading.resolution(tests) if evaluated.valid else "RESOLVED_NO"
    return {
        "resolved": resolution == "RESOLVED_FULL",
        "resolution": resolution,
        "log_valid": evaluated.valid,
        "tests_status": {name: group.model_dump() for name, group in tests.items()},
    }


def write_item(root: Path, item: Item, benchmark: str = "synthetic") -> str:
    """Artifacts in a run directory and the testcase element (JUnit) for one item."""
    directory = root / "run" / benchmark / item.instance_id
    directory.mkdir(parents=True)
    props: dict[str, str] = {
        "reward": "1.0" if item.outcome == "passed" else "0.0",
        "outcome": item.outcome,
        "error_kind": item.error_kind,
        "family": "swe-bench",
        "benchmark": benchmark,
        "instance_id": item.instance_id,
        "agent": "predictions",
        "run_id": RUN_ID,
    }
    if item.patch is not None:
        (directory / "patch.diff").write_text(item.patch)
        props.update(
            patch_sha256="0" * 64,
            patch_bytes=str(len(item.patch.encode())),
            patch_exists="true" if item.patch.strip() else "false",
            patch_path=str(directory / "patch.diff"),
            patch_applied="" if item.applied is None else str(item.applied).lower(),
            model=MODEL,
        )
    (directory / "eval.sh").write_text("#!/bin/bash\n")
    props["eval_sh_path"] = str(directory / "eval.sh")
    if item.log is not None:
        (directory / "eval.log").write_text(item.log)
        props["eval_log_path"] = str(directory / "eval.log")
        if item.outcome in ("passed", "failed"):
            verdict = grade(item.log)
            assert verdict["resolved"] == (item.outcome == "passed"), item
            (directory / "verdict.json").write_text(json.dumps(verdict))
            props.update(
                verdict_path=str(directory / "verdict.json"), log_valid=str(verdict["log_valid"]).lower()
            )
    props.update(item.props)
    properties = "".join(f"<property name={quoteattr(k)} value={quoteattr(v)}/>" for k, v in props.items())
    result = {
        "failed": f"<failure message={quoteattr('unresolved: ' + item.message)}/>",
        "error": f"<error message={quoteattr(item.message)}/>",
        "skipped": f"<skipped message={quoteattr(item.message)}/>",
    }.get(item.outcome, "")
    return (
        f'<testcase classname="benchmarks.{benchmark}.yaml.{benchmark}" name="{item.instance_id}" time="1.0">'
        f"<properties>{properties}</properties>{result}</testcase>"
    )


def write_ledger(path: Path, testcases: list[str], suite_props: dict[str, str] | None = None) -> Path:
    props = (
        suite_props
        if suite_props is not None
        else {"run_id": RUN_ID, "grader_version": grading.GRADER_VERSION}
    )
    properties = "".join(f"<property name={quoteattr(k)} value={quoteattr(v)}/>" for k, v in props.items())
    path.write_text(
        '<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests">'
        f'<testsuite name="pytest" errors="0" failures="0" skipped="0" tests="{len(testcases)}" time="1.0">'
        f"<properties>{properties}</properties>{''.join(testcases)}</testsuite></testsuites>"
    )
    return path


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    return write_ledger(tmp_path / "rewards.xml", [write_item(tmp_path, item) for item in ITEMS])


@pytest.fixture(scope="module")
def official() -> Iterator[OfficialGrader]:
    grader = OfficialGrader()
    yield grader
    grader.close()


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_swe.tools.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def test_every_item_path_lands_in_its_official_bucket(ledger: Path) -> None:
    data = export.build_export([ledger])
    assert {i.instance_id: i.bucket for i in data.instances} == EXPECTED_BUCKETS
    assert (data.model, data.run_id) == (MODEL, RUN_ID)


def test_run_report_matches_official(ledger: Path, tmp_path: Path, official: OfficialGrader) -> None:
    work = tmp_path / "work"
    work.mkdir()
    out = run_cli(
        "export",
        "--format",
        "swebench",
        str(ledger),
        "--logs",
        "logs",
        "--predictions",
        "preds.jsonl",
        cwd=work,
    )
    assert out.returncode == 0, out.stderr
    ours = json.loads((work / f"org__model-x.{RUN_ID}.json").read_text())
    predictions = {
        row["instance_id"]: row for row in map(json.loads, (work / "preds.jsonl").read_text().splitlines())
    }
    dataset = [{"instance_id": item.instance_id} for item in ITEMS]
    theirs = official.run_report(work, predictions, dataset, RUN_ID)
    assert ours == theirs
    assert list(ours) == list(theirs)  # same keys in the same order
    assert (
        ours["resolved_instances"] == 1
        and ours["error_instances"] == 5
        and ours["empty_patch_instances"] == 2
    )
    assert ours["failure_reasons"] == {
        "o__r-10": "container_unavailable",
        "o__r-3": "missing_module",
        "o__r-4": "no_tests_collected",
        "o__r-5": "out_of_memory",
        "o__r-8": "tests_timed_out",
        "o__r-9": "out_of_memory",
    }
    assert "Instances resolved: 1" in out.stdout


def test_instance_reports_match_official(ledger: Path, tmp_path: Path, official: OfficialGrader) -> None:
    data = export.build_export([ledger])
    written = export.write_instance_logs(data, tmp_path / "logs")
    completed = {i.instance_id for i in data.instances if i.bucket in (export.RESOLVED, export.UNRESOLVED)}
    assert {path.parent.name for path in written} == completed
    spec_base = {
        "log_parser": "parse_log_pytest",
        "eval_type": "pass_and_fail",
        "FAIL_TO_PASS": F2P,
        "PASS_TO_PASS": P2P,
    }
    with_tests_status = 0
    for path in written:
        instance_id = path.parent.name
        prediction = {
            "instance_id": instance_id,
            "model_name_or_path": MODEL,
            "model_patch": (path.parent / "patch.diff").read_text(),
        }
        theirs = official.eval_report(
            (path.parent / "test_output.txt").read_text(),
            {**spec_base, "instance_id": instance_id},
            prediction,
        )
        ours = json.loads(path.read_text())
        assert ours == theirs, instance_id
        with_tests_status += "tests_status" in ours[instance_id]
    assert with_tests_status == 3  # the two invalid logs have none, as in the official report


def test_export_joins_shards_and_settles_duplicates(tmp_path: Path) -> None:
    first = write_ledger(tmp_path / "a.xml", [write_item(tmp_path / "a", item) for item in ITEMS[:8]])
    retried = Item("o__r-8", "passed", log=GOOD)  # the timed-out instance, run again
    second = write_ledger(
        tmp_path / "b.xml",
        [write_item(tmp_path / "b", item) for item in [*ITEMS[8:], retried]],
    )
    data = export.build_export([first, second])
    buckets = {i.instance_id: i.bucket for i in data.instances}
    assert buckets == {**EXPECTED_BUCKETS, "o__r-8": export.RESOLVED}
    assert any("duplicate" in warning for warning in data.warnings)


def test_mixed_models_need_a_name(tmp_path: Path) -> None:
    items = [
        Item("o__r-1", "passed", log=GOOD),
        Item("o__r-2", "failed", log=PARTIAL, props={"model": "other"}),
    ]
    ledger = write_ledger(tmp_path / "mixed.xml", [write_item(tmp_path, item) for item in items])
    out = run_cli("export", str(ledger), cwd=tmp_path)
    assert out.returncode == 2 and "several models" in out.stderr and "--model" in out.stderr
    out = run_cli("export", str(ledger), "--model", "named", "--run-id", "r1", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads((tmp_path / "named.r1.json").read_text())["completed_instances"] == 2


def test_same_instance_in_two_benchmarks_needs_a_benchmark(tmp_path: Path) -> None:
    cases = [
        write_item(tmp_path / "x", Item("o__r-1", "passed", log=GOOD), benchmark="lite"),
        write_item(tmp_path / "y", Item("o__r-1", "failed", log=PARTIAL), benchmark="verified"),
    ]
    ledger = write_ledger(tmp_path / "two.xml", cases)
    with pytest.raises(export.ExportError, match="--benchmark"):
        export.build_export([ledger])
    only = export.build_export([ledger], benchmark="verified")
    assert [(i.instance_id, i.bucket) for i in only.instances] == [("o__r-1", export.UNRESOLVED)]


def test_unloaded_benchmarks_are_not_instances(tmp_path: Path) -> None:
    unloaded = (
        '<testcase classname="benchmarks.hf.yaml" name="hf" time="0.0"><properties>'
        '<property name="reward" value="0.0"/><property name="benchmark" value="hf"/>'
        '</properties><skipped message="dataset unavailable"/></testcase>'
    )
    ledger = write_ledger(tmp_path / "r.xml", [write_item(tmp_path, ITEMS[0]), unloaded])
    data = export.build_export([ledger])
    assert [i.instance_id for i in data.instances] == ["o__r-1"]
    assert any("hf" in warning for warning in data.warnings)
