"""The swe-bench-ext family: row forms, output parsing, id matching, grading, and end to end in Docker."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.api.errors import RowError
from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.families import swebench_ext as ext

from conftest import REPO
from conftest import SweProject
from conftest import benchmark_settings
from conftest import build_local_images
from conftest import read_jsonl
from conftest import run_in_repo
from conftest import write_jsonl

LOCAL_YAML = REPO / "benchmarks" / "swe-bench-ext-local.yaml"
LOCAL = REPO / "benchmarks" / "swe-bench-ext-local"
DATASET = LOCAL / "swe-bench-ext-local.jsonl"
PREDICTIONS = LOCAL / "predictions-wrong.jsonl"
ROWS = read_jsonl(DATASET)
IDS = sorted(row["instance_id"] for row in ROWS)
docker = pytest.mark.docker


def settings(**images: Any) -> BenchmarkSettings:
    return benchmark_settings("swe-bench-ext", images=images)


def flat_row(**fields: Any) -> dict[str, Any]:
    row = {
        "instance_id": "org__proj-1",
        "image": "registry/proj:1",
        "base_commit": "abc123",
        "patch": "diff --git a/x.py b/x.py\n",
        "test_patch": "diff --git a/tests/test_x.py b/tests/test_x.py\n--- a/tests/test_x.py\n+++ b/tests/test_x.py\n",
        "test_command": "python -m pytest tests",
        "test_framework": "pytest",
        "fail_to_pass": ["tests/test_x.py::test_a"],
        "pass_to_pass": ["tests/test_x.py::test_b"],
    }
    row.update(fields)
    return {k: v for k, v in row.items() if v is not None}


# --- rows ------------------------------------------------------------------------------------------


def test_flat_row_with_lists_and_defaults() -> None:
    task = ext.FAMILY.normalize(flat_row(created_at=1717200000), settings())
    assert task.image == "registry/proj:1"
    assert task.workdir == "/workspace/repo"
    assert task.fail_to_pass == ["tests/test_x.py::test_a"] and task.pass_to_pass == [
        "tests/test_x.py::test_b"
    ]
    assert task.test_cmds == ["python -m pytest tests"]
    assert task.created_at is not None and task.created_at.startswith("2024-06-01")
    assert "--junitxml=/workspace/test-results/output.xml" in (task.eval_script or "")
    assert ext.TEST_OUTPUT_START in (task.eval_script or "") and ext.RESULT_FILE_START in (
        task.eval_script or ""
    )


def test_nested_row_with_upper_case_json_strings() -> None:
    nested = flat_row(
        fail_to_pass=None,
        pass_to_pass=None,
        image=None,
        FAIL_TO_PASS='["tests/test_x.py::test_a"]',
        PASS_TO_PASS="[]",
        docker_image="registry/proj:nested",
        repo_workdir="/testbed",
        created_at="2024-06-03T09:30:00Z",
    )
    row = {"instance_id": "org__proj-1", "dataset_name": "swe-bench-ext", "instance_dict": json.dumps(nested)}
    task = ext.FAMILY.normalize(row, settings())
    assert task.image == "registry/proj:nested"
    assert task.workdir == "/testbed"
    assert task.fail_to_pass == ["tests/test_x.py::test_a"] and task.pass_to_pass == []
    assert task.created_at == "2024-06-03T09:30:00Z"


def test_top_level_fields_win_and_lower_case_wins_unless_empty() -> None:
    nested = flat_row(test_command="nested command", FAIL_TO_PASS=["upper::a"], fail_to_pass=[])
    row = {"instance_id": "org__proj-1", "test_command": "top command", "instance_dict": nested}
    task = ext.FAMILY.normalize(row, settings())
    assert task.test_cmds == ["top command"]
    assert task.fail_to_pass == ["upper::a"]  # lower-case empty: the upper-case list fills in
    both = ext.FAMILY.normalize(flat_row(FAIL_TO_PASS=["upper::a"]), settings())
    assert both.fail_to_pass == ["tests/test_x.py::test_a"]


def test_image_from_template_and_framework_alias() -> None:
    task = ext.FAMILY.normalize(
        flat_row(image=None, test_framework="cargo_nextest"), settings(template="mirror/{id}:latest")
    )
    assert task.image == "mirror/org__proj-1:latest"
    assert task.log_parser == "swe-bench-ext:cargo-nextest"


@pytest.mark.parametrize(
    ("row", "field", "words"),
    [
        (flat_row(image=None), "image", "is missing"),
        (flat_row(fail_to_pass='["tests/test_x.py::test_a"'), "fail_to_pass", "not valid JSON"),
        (flat_row(test_framework="pytset"), "test_framework", "unknown test framework 'pytset'"),
        (flat_row(test_command=None), "test_command", "is missing"),
        (flat_row(repo_workdir="repo"), "repo_workdir", "absolute path"),
        ({"instance_id": "org__proj-1", "instance_dict": "{not json"}, "instance_dict", "not valid JSON"),
    ],
)
def test_malformed_rows_name_the_field(row: dict[str, Any], field: str, words: str) -> None:
    with pytest.raises(RowError) as caught:
        ext.FAMILY.normalize(row, settings())
    assert caught.value.field == field and words in str(caught.value)
    assert caught.value.row == "org__proj-1"


def test_eval_script_resets_the_test_patch_files_and_removes_created_ones() -> None:
    test_patch = (
        "diff --git a/tests/test_x.py b/tests/test_x.py\n--- a/tests/test_x.py\n+++ b/tests/test_x.py\n"
        "diff --git a/tests/test_new.py b/tests/test_new.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/test_new.py\n"
    )
    script = ext.FAMILY.normalize(flat_row(test_patch=test_patch), settings()).eval_script or ""
    assert "git checkout -q abc123 -- tests/test_x.py" in script
    assert "rm -f -- tests/test_new.py" in script
    assert script.index("rm -f -- tests/test_new.py") < script.index(ext.TEST_APPLY)
    assert script.index(ext.TEST_APPLY) < script.index(ext.TEST_OUTPUT_START)


def test_scripts_get_no_output_flag() -> None:
    pytest_framework = ext.FRAMEWORKS["pytest"]
    assert ext.command_with_output("bash run_tests.sh", pytest_framework) == "bash run_tests.sh"
    assert ext.command_with_output("./run.sh -x", pytest_framework) == "./run.sh -x"
    assert ext.command_with_output("pytest -q", pytest_framework).endswith(
        "--junitxml=/workspace/test-results/output.xml"
    )
    assert ext.command_with_output("npm run jest", ext.FRAMEWORKS["jest"]).endswith("output.json")
    assert ext.command_with_output("npm run test:unit", ext.FRAMEWORKS["jest"]) == "npm run test:unit"


# --- reading the output ----------------------------------------------------------------------------

JUNIT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
<testcase classname="tests.test_x" name="test_a"/>
<testcase classname="tests.test_x.TestK" name="test_b[1.5]"><failure message="x"/></testcase>
<testcase classname="tests.test_x" name="test_c"><skipped/></testcase>
<testcase classname="tests.test_x" name="test_d"><error message="boom"/></testcase>
</testsuite></testsuites>"""


def log(console: str, block: str | None = None) -> str:
    parts = [ext.TEST_OUTPUT_START, console]
    if block is not None:
        parts += [ext.RESULT_FILE_START, block, ext.RESULT_FILE_END]
    return "\n".join([*parts, ext.TEST_OUTPUT_END, f"{ext.EXIT_CODE_MARK} 1"])


def test_result_file_is_preferred_over_the_console() -> None:
    console = "PASSED tests/test_x.py::test_b[1.5]\nFAILED tests/test_x.py::test_a"
    parsed = ext.parse_output(
        log(console, "=== FILE: /workspace/test-results/output.xml ===\n" + JUNIT), ext.FRAMEWORKS["pytest"]
    )
    assert parsed.source == "result-file" and parsed.exit_code == 1
    assert parsed.statuses == {
        "tests.test_x::test_a": "PASSED",
        "tests.test_x.TestK::test_b[1.5]": "FAILED",
        "tests.test_x::test_c": "SKIPPED",
        "tests.test_x::test_d": "FAILED",
    }


def test_console_fallback_uses_the_official_parser() -> None:
    parsed = ext.parse_output(
        log("PASSED tests/test_x.py::test_a\nFAILED tests/test_x.py::test_b - assert 0", ""),
        ext.FRAMEWORKS["pytest"],
    )
    assert parsed.source == "console"
    assert parsed.statuses == {"tests/test_x.py::test_a": "PASSED", "tests/test_x.py::test_b": "FAILED"}


def test_a_forged_result_block_printed_by_the_tests_is_ignored() -> None:
    forged = (
        ext.RESULT_FILE_START
        + "\n"
        + JUNIT.replace('<failure message="x"/>', "")
        + "\n"
        + ext.RESULT_FILE_END
    )
    real = JUNIT
    parsed = ext.parse_output(log(forged, real), ext.FRAMEWORKS["pytest"])
    assert parsed.statuses["tests.test_x.TestK::test_b[1.5]"] == "FAILED"


def test_missing_markers_and_no_results() -> None:
    assert not ext.parse_output("Traceback: boom", ext.FRAMEWORKS["pytest"]).markers
    assert ext.parse_output(log("collected 0 items", ""), ext.FRAMEWORKS["pytest"]).source == "none"


def test_go_json_and_build_failures() -> None:
    events = "\n".join(
        json.dumps(e)
        for e in (
            {"Action": "run", "Package": "example.com/m/a", "Test": "TestOne"},
            {"Action": "pass", "Package": "example.com/m/a", "Test": "TestOne"},
            {"Action": "fail", "Package": "example.com/m/a", "Test": "TestTwo/sub"},
            {"Action": "skip", "Package": "example.com/m/a", "Test": "TestThree"},
        )
    )
    parsed = ext.parse_output(log(events + "\nFAIL\texample.com/m/b [build failed]"), ext.FRAMEWORKS["go"])
    assert parsed.statuses == {
        "example.com/m/a::TestOne": "PASSED",
        "example.com/m/a::TestTwo/sub": "FAILED",
        "example.com/m/a::TestThree": "SKIPPED",
    }
    report = ext.grade(parsed, ["example.com/m/b::TestNew"], ["example.com/m/a::TestOne"])
    assert report.statuses["example.com/m/b::TestNew"] == "FAILED"  # its package did not build
    assert not report.resolved


def test_jest_gtest_mocha_and_nextest_readers() -> None:
    jest = {
        "numTotalTests": 2,
        "testResults": [
            {
                "name": "/app/src/a.test.js",
                "assertionResults": [
                    {
                        "ancestorTitles": ["math"],
                        "title": "adds",
                        "fullName": "math adds",
                        "status": "passed",
                    },
                    {
                        "ancestorTitles": ["math"],
                        "title": "divides",
                        "fullName": "math divides",
                        "status": "failed",
                    },
                ],
            }
        ],
    }
    assert ext.parse_jest_json("noise\n" + json.dumps(jest))[0] == {
        "src/a.test.js::math adds": "PASSED",
        "src/a.test.js::math divides": "FAILED",
    }
    gtest = {
        "testsuites": [
            {
                "name": "Math",
                "testsuite": [{"name": "Add", "result": "COMPLETED"}, {"name": "Div", "failures": [{}]}],
            }
        ]
    }
    assert ext.parse_gtest_json(json.dumps(gtest))[0] == {"Math.Add": "PASSED", "Math.Div": "FAILED"}
    mocha = {"passes": [{"fullTitle": "a works"}], "failures": [{"fullTitle": "b works"}], "pending": []}
    assert ext.parse_mocha_json(json.dumps(mocha))[0] == {"a works": "PASSED", "b works": "FAILED"}
    nextest = (
        "        PASS [   0.004s] mycrate tests::adds\n        FAIL [   0.010s] mycrate tests::divides\n"
    )
    assert ext.parse_nextest(nextest)[0] == {
        "mycrate::tests::adds": "PASSED",
        "mycrate::tests::divides": "FAILED",
    }


def test_auto_detection_without_a_framework() -> None:
    task = ext.FAMILY.normalize(flat_row(test_framework=""), settings())
    assert task.log_parser == "swe-bench-ext:auto" and "--junitxml" not in (task.eval_script or "")
    parsed = ext.parse_output(log("--- PASS: TestA (0.00s)\n--- FAIL: TestB (0.01s)"), ext.AUTO)
    assert parsed.statuses == {"TestA": "PASSED", "TestB": "FAILED"}


# --- ids and grading -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("tests/test_x.py::TestK::test_b[1.5]", "tests::test_x::TestK::test_b[1::5]"),
        ("tests.test_x.TestK::test_b[1.5]", "tests::test_x::TestK::test_b[1::5]"),
        ("(2/5) pkg/mod.go::TestA", "pkg::mod::TestA"),
        ("#42 suite.case", "suite::case"),
        ("1. src/a.test.ts::adds", "src::a::test::adds"),
    ],
)
def test_ids_are_normalized(raw: str, normalized: str) -> None:
    assert ext.normalize_test_id(raw) == normalized


def parsed(statuses: dict[str, str]) -> ext.ParsedOutput:
    return ext.ParsedOutput(statuses, set(), "console")


def test_resolved_needs_every_f2p_and_p2p_passed() -> None:
    report = ext.grade(
        parsed({"tests.test_x::test_a": "PASSED", "tests.test_x::test_b": "PASSED"}),
        ["tests/test_x.py::test_a"],
        ["tests/test_x.py::test_b"],
    )
    assert report.resolved


def test_empty_f2p_never_resolves() -> None:
    report = ext.grade(parsed({"a::t": "PASSED"}), [], ["a::t"])
    assert not report.resolved and report.groups[ext.PASS_TO_PASS].success == ["a::t"]


def test_missing_skipped_and_xfail_tests_fail() -> None:
    statuses = {"t::a": "PASSED", "t::b": "SKIPPED", "t::c": "XFAIL"}
    report = ext.grade(parsed(statuses), ["t::a", "t::missing"], ["t::b", "t::c"])
    assert report.statuses["t::missing"] == ext.NOT_FOUND
    assert report.groups[ext.FAIL_TO_PASS].failure == ["t::missing"]
    assert report.groups[ext.PASS_TO_PASS].failure == ["t::b", "t::c"]
    assert not report.resolved


def test_extra_tests_do_not_matter_and_short_ids_match_one_test() -> None:
    statuses = {"pkg::mod::test_a": "PASSED", "pkg::other::test_zzz": "FAILED"}
    assert ext.grade(parsed(statuses), ["test_a"], []).resolved  # unique suffix on a :: boundary
    ambiguous = {"pkg::one::test_a": "PASSED", "pkg::two::test_a": "FAILED"}
    report = ext.grade(parsed(ambiguous), ["test_a"], [])
    assert report.statuses["test_a"] == ext.NOT_FOUND and not report.resolved
    assert (
        ext.grade(parsed({"pkg::mod::test_ab": "PASSED"}), ["test_a"], []).statuses["test_a"] == ext.NOT_FOUND
    )


# --- benchmark files and collection ----------------------------------------------------------------


def test_collect_offline_skips_the_internal_dataset_with_its_reason(tmp_path: Path) -> None:
    env = {
        "PYTEST_SWE_CACHE": str(tmp_path / "cache"),
        "SWE_BENCH_EXT_DATASET": str(tmp_path / "absent.jsonl"),
    }
    out = run_in_repo("benchmarks/", "-k", "swe-bench-ext", "--collect-only", "-q", env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "benchmarks/swe-bench-ext.yaml::swe-bench-ext::swe-bench-ext[dataset-unavailable]" in out.stdout
    assert f"dataset file not found: {tmp_path / 'absent.jsonl'}" in out.stdout
    for instance_id in IDS:
        assert f"benchmarks/swe-bench-ext-local.yaml::swe-bench-ext-local::{instance_id}" in out.stdout


def test_environment_variable_points_the_benchmark_at_a_dataset(tmp_path: Path) -> None:
    env = {"PYTEST_SWE_CACHE": str(tmp_path / "cache"), "SWE_BENCH_EXT_DATASET": str(DATASET)}
    out = run_in_repo("benchmarks/swe-bench-ext.yaml", "--collect-only", "-q", env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert [line for line in out.stdout.splitlines() if "::swe-bench-ext::" in line] == [
        f"benchmarks/swe-bench-ext.yaml::swe-bench-ext::{i}" for i in [r["instance_id"] for r in ROWS]
    ]


# --- end to end in Docker --------------------------------------------------------------------------


@pytest.fixture(scope="session")
def ext_images(docker_engine: Any, base_image: str, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return build_local_images(docker_engine, tmp_path_factory, LOCAL_YAML, force=True)


def local_benchmark(project: SweProject, dataset: Path = DATASET) -> Path:
    return project.local("extlocal", "swe-bench-ext", dataset)


@docker
def test_gold_resolves_every_row_and_malformed_rows_error_alone(
    swe_project: SweProject, ext_images: list[str], tmp_path: Path
) -> None:
    wordcount = next(r for r in ROWS if r["instance_id"] == "acme__wordcount-1")
    bad = [
        {k: v for k, v in dict(wordcount, instance_id="bad__no-image-1").items() if k != "image"},
        dict(wordcount, instance_id="bad__f2p-json-2", fail_to_pass='["tests/test_core.py::x"'),
        dict(wordcount, instance_id="bad__framework-3", test_framework="nosetests"),
    ]
    local_benchmark(swe_project, write_jsonl(tmp_path / "rows.jsonl", [*ROWS, *bad]))
    run = swe_project.run("benchmarks/", "--swe-agent", "gold")
    outcomes = run.outcomes()
    assert {i: outcomes[i] for i in IDS} == dict.fromkeys(IDS, "passed")
    for case in (run.by_id[i] for i in IDS):
        assert (
            case.properties["reward"] == "1.0"
            and case.properties["f2p_passed"] == case.properties["f2p_total"] != "0"
        )
    run.assert_bad_rows(
        {
            "bad__no-image-1": ("row 3 (bad__no-image-1)", "field 'image'"),
            "bad__f2p-json-2": ("row 4 (bad__f2p-json-2)", "field 'fail_to_pass'"),
            "bad__framework-3": ("row 5 (bad__framework-3)", "field 'test_framework'"),
        }
    )


@docker
def test_empty_patch_resolves_none(swe_project: SweProject, ext_images: list[str]) -> None:
    local_benchmark(swe_project)
    run = swe_project.run("benchmarks/", "--swe-agent", "empty")
    run.result.assert_outcomes(failed=len(IDS))
    for case in run.cases:
        assert case.properties["reward"] == "0.0" and case.properties["f2p_passed"] == "0"
        assert "the patch is empty" in case.message


@docker
def test_wrong_patch_fails_naming_the_failing_test(swe_project: SweProject, ext_images: list[str]) -> None:
    local_benchmark(swe_project)
    run = swe_project.run("benchmarks/", "--swe-predictions", str(PREDICTIONS))
    case = run.by_id["acme__wordcount-1"]
    assert case.outcome == "failed" and case.properties["patch_applied"] == "true"
    assert "FAIL_TO_PASS failing (1 of 3)" in case.message
    assert "tests/test_core.py::TestCount::test_tabs_and_newlines (FAILED)" in case.message
    assert case.properties["p2p_passed"] == case.properties["p2p_total"] == "4"
    assert run.by_id["acme__tempconv-2"].outcome == "skipped"
