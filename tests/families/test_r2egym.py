"""The r2e-gym family: derived ids, the gold patch from a parsed commit, R2E's parser and exact-map
reward, hidden tests, and end to end in Docker."""

from __future__ import annotations

import copy
import json
import textwrap
from typing import Any

import pytest

from pytest_swe.api.errors import RowError
from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.api.verdict import Verdict
from pytest_swe.families import r2egym

from conftest import REPO
from conftest import SweProject
from conftest import benchmark_settings
from conftest import build_local_images
from conftest import load_module
from conftest import read_jsonl

BENCHMARKS = REPO / "benchmarks"
LOCAL_YAML = BENCHMARKS / "r2e-gym-local.yaml"
LOCAL = BENCHMARKS / "r2e-gym-local"
ROWS = read_jsonl(LOCAL / "rows.jsonl")
IDS = sorted(r2egym.instance_id_of(row) or "" for row in ROWS)
STATS = next(row for row in ROWS if row["repo_name"] == "tinystats")
QUEUE = next(row for row in ROWS if row["repo_name"] == "tinyqueue")
STATS_ID, QUEUE_ID = r2egym.instance_id_of(STATS), r2egym.instance_id_of(QUEUE)
docker = pytest.mark.docker


def settings() -> BenchmarkSettings:
    return benchmark_settings("r2e-gym")


def file_diff(path: str, *lines: tuple[str, str]) -> dict[str, Any]:
    return {
        "old_file_content": "",
        "new_file_content": "",
        "header": {"file": {"path": path}, "misc_line": None},
        "index_line": {"old_commit_hash": "1111111", "new_commit_hash": "2222222", "mode": "100644"},
        "is_binary_file": False,
        "binary_line": None,
        "minus_file": {"path": f"a/{path}"},
        "plus_file": {"path": f"b/{path}"},
        "hunks": [
            {
                "descriptor": {
                    "old_range": {"start": 1, "length": None},
                    "new_range": {"start": 1, "length": None},
                    "section": "",
                },
                "line_group": {"all_lines": [{"content": text, "type": kind} for kind, text in lines]},
            }
        ],
    }


PARSED_COMMIT = {
    "file_diffs": [
        file_diff("sympy/core/add.py", ("deleted", "x = 1"), ("added", "x = 2")),
        file_diff("sympy/core/tests/test_add.py", ("added", "def test(): pass")),
        file_diff("doc/changes.rst", ("added", "fixed")),
    ],
    "old_commit_hash": "a" * 40,
    "new_commit_hash": "b" * 40,
    "commit_message": "fix",
    "commit_date": "2024-01-01T00:00:00",
}


def row(**fields: Any) -> dict[str, Any]:
    base = {
        "repo_name": "sympy",
        "docker_image": "namanjain12/sympy_final:" + "b" * 40,
        "commit_hash": "b" * 40,
        "parsed_commit_content": json.dumps(PARSED_COMMIT),
        "execution_result_content": "{}",
        "modified_files": ["sympy/core/add.py"],
        "modified_entity_summaries": [],
        "relevant_files": [],
        "num_non_test_files": 1,
        "num_non_test_func_methods": 1,
        "num_non_test_lines": 2,
        "prompt": "",
        "problem_statement": "[ISSUE]\nAdd is wrong\n[/ISSUE]",
        "expected_output_json": json.dumps({"TestAdd.test_a": "PASSED", "TestAdd.test_b": "FAILED"}),
    }
    base.update(fields)
    return base


# --- ids and rows --------------------------------------------------------------------------------


def test_ids_follow_owner_repo_commit() -> None:
    assert r2egym.instance_id_of(row()) == "sympy__sympy-" + "b" * 40
    assert r2egym.instance_id_of(row(repo_name="pandas")) == "pandas-dev__pandas-" + "b" * 40
    assert (
        r2egym.instance_id_of(row(repo_name=None, commit_hash=None)) == "sympy__sympy-" + "b" * 40
    )  # from the image
    assert r2egym.instance_id_of(row(repo_name="newrepo")) == "newrepo__newrepo-" + "b" * 40
    assert r2egym.instance_id_of({"problem_statement": "x"}) is None


def test_published_row() -> None:
    task = r2egym.FAMILY.normalize(row(), settings())
    assert task.instance_id == "sympy__sympy-" + "b" * 40 and task.repo == "sympy/sympy"
    assert task.image == row()["docker_image"] and task.workdir == "/testbed"
    assert task.problem_statement == "\nAdd is wrong\n"
    assert task.expected_status_map == {"TestAdd.test_a": "PASSED", "TestAdd.test_b": "FAILED"}
    assert task.fail_to_pass == [] and task.test_patch is None
    assert task.hidden_paths == ["/r2e_tests", "/testbed/run_tests.sh", "/testbed/r2e_tests"]
    # The gold patch is the commit's non-test Python files, as R2E's get_patch writes it.
    assert task.gold_patch == (
        "diff --git a/sympy/core/add.py b/sympy/core/add.py\nindex 1111111..2222222 100644\n"
        "--- a/sympy/core/add.py\n+++ b/sympy/core/add.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    )


def test_expected_map_as_a_mapping_is_accepted() -> None:
    task = r2egym.FAMILY.normalize(row(expected_output_json={"T.t": "ERROR"}), settings())
    assert task.expected_status_map == {"T.t": "ERROR"}


@pytest.mark.parametrize(
    ("data", "field"),
    [
        (row(docker_image=None), "docker_image"),
        (row(expected_output_json="{oops"), "expected_output_json"),
        (row(expected_output_json="{}"), "expected_output_json"),
        (row(expected_output_json='{"T.t": "GREEN"}'), "expected_output_json"),
        (row(parsed_commit_content="not json"), "parsed_commit_content"),
        (row(parsed_commit_content='{"file_diffs": [{"oops": 1}]}'), "parsed_commit_content"),
    ],
)
def test_malformed_rows_name_the_field(data: dict[str, Any], field: str) -> None:
    with pytest.raises(RowError) as info:
        r2egym.FAMILY.normalize(data, settings())
    assert info.value.field == field
    assert info.value.row == "sympy__sympy-" + "b" * 40


# --- parsing and the reward ------------------------------------------------------------------------

LOG = """\
r2e_tests/test_1.py::TestAdd::test_a PASSED in the progress part, ignored
============================= short test summary info ==============================
PASSED r2e_tests/test_1.py::TestAdd::test_a
\x1b[31mFAILED\x1b[0m r2e_tests/test_1.py::TestAdd::test_b - AssertionError: 1 - 2
SKIPPED [1] r2e_tests/test_1.py:9: no reason
ERROR r2e_tests/test_1.py::TestAdd::test_c - fixture 'clock' not found
========================= 1 failed, 1 passed, 1 error in 0.05s =========================
"""


def test_parser_reads_only_the_summary_and_drops_the_file() -> None:
    assert r2egym.parse_log_pytest(r2egym.clean_output(LOG)) == {
        "TestAdd.test_a": "PASSED",
        "TestAdd.test_b": "FAILED",
        "TestAdd.test_c": "ERROR",
    }
    assert r2egym.parse_log_pytest("PASSED r2e_tests/test_1.py::TestAdd::test_a\n") == {}


def grade(log: str, expected: dict[str, str], *, patch: bool = True) -> Verdict:
    return r2egym.grade_log(expected, log, Verdict(resolved=False, patch_exists=patch))


def test_exact_map_with_expected_failures_resolves() -> None:
    expected = {"TestAdd.test_a": "PASSED", "TestAdd.test_b": "FAILED", "TestAdd.test_c": "ERROR"}
    assert grade(LOG, expected).resolved
    assert not grade(LOG, expected, patch=False).resolved


def test_an_expected_failure_that_passes_is_a_mismatch() -> None:
    verdict = grade(
        LOG.replace("\x1b[31mFAILED\x1b[0m", "PASSED"),
        {"TestAdd.test_a": "PASSED", "TestAdd.test_b": "FAILED", "TestAdd.test_c": "ERROR"},
    )
    assert not verdict.resolved
    assert verdict.group(r2egym.EXPECTED_STATUS).failure == ["TestAdd.test_b"]
    assert "TestAdd.test_b: expected FAILED, got PASSED" in verdict.reasons[-1]


def test_missing_and_extra_tests_are_mismatches() -> None:
    missing = grade(
        LOG,
        {
            "TestAdd.test_a": "PASSED",
            "TestAdd.test_b": "FAILED",
            "TestAdd.test_c": "ERROR",
            "TestAdd.test_d": "PASSED",
        },
    )
    assert not missing.resolved and "TestAdd.test_d: expected PASSED, got nothing" in missing.reasons[-1]
    extra = grade(LOG, {"TestAdd.test_a": "PASSED", "TestAdd.test_b": "FAILED"})
    assert not extra.resolved and extra.group(r2egym.UNEXPECTED_TESTS).failure == ["TestAdd.test_c"]


def test_keys_compare_decoloured_and_cut_at_dash() -> None:
    parsed = {"TestX.test_a - flaky": "PASSED", "\x1b[1mTestX.test_b\x1b[0m": "FAILED"}
    assert r2egym.status_map_matches(parsed, {"TestX.test_a": "PASSED", "TestX.test_b": "FAILED"})


def test_a_log_without_results_never_resolves() -> None:
    verdict = grade("collected 0 items\n", {"T.t": "PASSED"})
    assert not verdict.resolved and not verdict.log_valid


# --- the local dataset --------------------------------------------------------------------------------


def test_local_rows_use_the_published_schema() -> None:
    assert (
        sorted(p.name for p in (LOCAL / "instances").iterdir()) == IDS
    )  # the image builder finds them by id
    for data in ROWS:
        assert tuple(data) == load_module(LOCAL / "make_rows.py").COLUMNS
        for name in ("parsed_commit_content", "execution_result_content", "expected_output_json"):
            assert isinstance(data[name], str) and json.loads(data[name])
        assert isinstance(data["modified_files"], list) and isinstance(data["num_non_test_lines"], int)
    # The commit touches a test file and a document; neither is part of the gold patch.
    assert {"CHANGES.md", "tests/test_central.py"} <= set(STATS["modified_files"])
    gold = r2egym.FAMILY.normalize(STATS, settings()).gold_patch
    assert gold.count("diff --git") == 1 and "tinystats/central.py" in gold


# --- end to end -----------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def r2e_images(docker_engine: Any, base_image: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    build_local_images(docker_engine, tmp_path_factory, LOCAL_YAML, force=True)


@docker
def test_gold_resolves_every_local_row(swe_project: SweProject, r2e_images: None) -> None:
    run = swe_project.run(str(LOCAL_YAML), "--swe-agent", "gold")
    assert run.outcomes() == dict.fromkeys(IDS, "passed"), run.result.stdout.str()
    for case in run.cases:
        assert case.properties["expected_status_passed"] == case.properties["expected_status_total"]


@docker
def test_empty_patch_resolves_none(swe_project: SweProject, r2e_images: None) -> None:
    run = swe_project.run(str(LOCAL_YAML), "--swe-agent", "empty")
    assert run.outcomes() == dict.fromkeys(IDS, "failed"), run.result.stdout.str()
    assert "TestMedian.test_even_count: expected PASSED, got FAILED" in run.by_id[STATS_ID].message
    assert "TestPriorityQueue.test_equal_priorities_keep_order (FAILED)" in run.by_id[QUEUE_ID].message


@docker
def test_fixing_an_expected_failure_is_a_wrong_patch(swe_project: SweProject, r2e_images: None) -> None:
    run = swe_project.run(str(LOCAL_YAML), "--swe-predictions", str(LOCAL / "predictions-wrong.jsonl"))
    case = run.by_id[STATS_ID]
    assert case.outcome == "failed" and case.properties["reward"] == "0.0"
    assert "TestMode.test_all_modes_on_tie: expected FAILED, got PASSED" in case.message
    assert "EXPECTED_STATUS failing (1 of 7)" in case.message
    assert run.by_id[QUEUE_ID].outcome == "skipped"


@docker
def test_malformed_rows_error_and_the_others_run(swe_project: SweProject, r2e_images: None) -> None:
    no_image = dict(copy.deepcopy(STATS), commit_hash="c" * 40, docker_image=None)
    bad_map = dict(copy.deepcopy(STATS), commit_hash="d" * 40, docker_image="pytest-swe-r2e/x:" + "d" * 40)
    bad_map["expected_output_json"] = '{"TestMedian.test_odd_count": "PASSED",'
    swe_project.variant(LOCAL_YAML, "r2e-malformed", [no_image, QUEUE, bad_map])
    run = swe_project.run("benchmarks/")
    no_image_id, bad_map_id = "tinystats__tinystats-" + "c" * 40, "tinystats__tinystats-" + "d" * 40
    assert run.outcomes() == {no_image_id: "error", QUEUE_ID: "passed", bad_map_id: "error"}
    run.assert_bad_rows(
        {
            no_image_id: (f"row 1 ({no_image_id})", "field 'docker_image'"),
            bad_map_id: (f"row 3 ({bad_map_id})", "field 'expected_output_json'"),
        }
    )


@docker
def test_hidden_tests_are_absent_for_the_agent_and_present_for_the_eval(
    swe_project: SweProject, r2e_images: None
) -> None:
    swe_project.pytester.makepyfile(
        test_hidden=textwrap.dedent(
            f"""
            import pytest

            def exists(sandbox, path):
                return sandbox.exec(f"test -e {{path}}", timeout=60).exit_code == 0

            @pytest.mark.swe_task({str(LOCAL_YAML)!r}, {STATS_ID!r})
            def test_hidden(swe_agent_sandbox, swe_eval_sandbox):
                for path in ("/r2e_tests", "/testbed/run_tests.sh", "/testbed/r2e_tests"):
                    assert not exists(swe_agent_sandbox, path), path
                assert exists(swe_eval_sandbox, "/r2e_tests/test_1.py")
                assert exists(swe_eval_sandbox, "/testbed/run_tests.sh")
                # Nothing the image brings along shows up as a change the agent made.
                status = swe_agent_sandbox.exec("git status --porcelain", timeout=60, workdir="/testbed")
                assert status.exit_code == 0 and status.output.strip() == "", status.output
            """
        )
    )
    run = swe_project.run("test_hidden.py")
    run.result.assert_outcomes(passed=1)
