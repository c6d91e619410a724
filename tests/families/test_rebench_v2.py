"""The swe-rebench-v2 family: row forms, timing-normalized subset grading, and end to end in Docker."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from pytest_swe.api.errors import RowError
from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.api.verdict import Verdict
from pytest_swe.families import rebench
from pytest_swe.families.rebench import v2 as rebench_v2

from conftest import REPO
from conftest import SweProject
from conftest import benchmark_settings
from conftest import build_local_images
from conftest import load_module
from conftest import read_jsonl

BENCHMARKS = REPO / "benchmarks"
LOCAL_YAML = BENCHMARKS / "swe-rebench-v2-local.yaml"
LOCAL = BENCHMARKS / "swe-rebench-v2-local"
ROWS = read_jsonl(LOCAL / "rows.jsonl")
IDS = sorted(row["instance_id"] for row in ROWS)
docker = pytest.mark.docker


def settings() -> BenchmarkSettings:
    return benchmark_settings("swe-rebench-v2")


def row(**fields: Any) -> dict[str, Any]:
    """A V2 row shaped like upstream's sample.json."""
    base = {
        "base_commit": "ad6bff35c39a0600fb8f2e176be4269e768e4e22",
        "created_at": 1609298073000,
        "instance_id": "unidata__netcdf-c-1925",
        "meta": {"llm_metadata": []},
        "patch": "diff --git a/x.c b/x.c\n",
        "pr_description": "",
        "problem_statement": "Filters come back in the wrong order.",
        "repo": "Unidata/netcdf-c",
        "test_patch": "diff --git a/t.sh b/t.sh\n",
        "language": "c",
        "interface": "",
        "PASS_TO_PASS": ["tst_h_files"],
        "FAIL_TO_PASS": ["tst_filter.sh"],
        "install_config": {
            "base_image_name": "c:latest",
            "docker_specs": None,
            "install": ["./bootstrap", "make -j$(nproc)"],
            "log_parser": "parse_log_pytest",
            "log_parsers": None,
            "test_cmd": ["make check"],
        },
        "image_name": "docker.io/swerebenchv2/unidata-netcdf-c:1925-ad6bff3",
    }
    base.update(fields)
    return base


def with_config(**config: Any) -> dict[str, Any]:
    data = row()
    data["install_config"] = {**data["install_config"], **config}
    return data


# --- rows ----------------------------------------------------------------------------------------


def test_published_row() -> None:
    task = rebench.V2_FAMILY.normalize(row(), settings())
    assert task.image == "docker.io/swerebenchv2/unidata-netcdf-c:1925-ad6bff3"
    assert task.workdir == "/netcdf-c"
    assert task.test_cmds == ["make check"] and task.install_cmds == ["./bootstrap", "make -j$(nproc)"]
    assert task.eval_env == {"_JAVA_OPTIONS": "-Djava.net.preferIPv6Addresses=false"}
    assert task.created_at is not None and task.created_at.startswith("2020-12-30T03:14:33")
    assert task.eval_script == (
        "set -e\ngit add -A\n"
        "git apply -v --3way --recount --ignore-space-change --whitespace=nowarn /tmp/pytest-swe/test_patch.diff"
        " || { echo '>>>>> Test Patch Apply Failed'; exit 1; }\nmake check\n"
    )


def test_string_commands_json_lists_and_lower_case_keys() -> None:
    data = with_config(test_cmd="pytest -rA", install=None)
    data.pop("FAIL_TO_PASS")
    data.update(fail_to_pass='["a"]', PASS_TO_PASS="[]", created_at="2021-01-01T00:00:00Z")
    task = rebench.V2_FAMILY.normalize(data, settings())
    assert task.test_cmds == ["pytest -rA"] and task.install_cmds == []
    assert task.fail_to_pass == ["a"] and task.pass_to_pass == []
    assert task.created_at == "2021-01-01T00:00:00Z"


def test_every_registered_v2_parser_name_is_a_valid_row() -> None:
    for name in ("parse_log_julia", "parse_log_jq", "parse_log_pytest_v2"):
        task = rebench.V2_FAMILY.normalize(with_config(log_parser=name), settings())
        assert task.log_parser == name and rebench_v2.v2_parser_available(name)


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        (row(image_name=None), "image_name", "missing"),
        (row(FAIL_TO_PASS="[oops"), "FAIL_TO_PASS", "not valid JSON"),
        (with_config(log_parser="parse_log_nonexistent"), "install_config.log_parser", "unknown log parser"),
        (with_config(test_cmd=[]), "install_config.test_cmd", "missing"),
        (row(repo="netcdf-c"), "repo", "owner/name"),
        (row(test_patch=""), "test_patch", "missing"),
    ],
)
def test_malformed_rows_name_the_field(data: dict[str, Any], field: str, words: str) -> None:
    with pytest.raises(RowError) as info:
        rebench.V2_FAMILY.normalize(data, settings())
    assert info.value.field == field and words in str(info.value)


# --- grading -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "normalized"),
    [
        ("testFoo [1.34 ms]", "testFoo"),
        ("testFoo [123 ms]", "testFoo"),
        ("Suite: test_bar in 29.08 msec", "Suite: test_bar"),
        ("Suite: test_bar in 1 sec ok", "Suite: test_bar ok"),
        ("it works (1.234s)", "it works"),
        ("it works (12 ms)", "it works"),
        ("tests/test_a.py::test_a[1.5 ms-x]", "tests/test_a.py::test_a[1.5 ms-x]"),
    ],
)
def test_timing_suffixes_are_stripped(name: str, normalized: str) -> None:
    assert rebench_v2.normalize_test_name(name) == normalized


def test_subset_rule_on_normalized_names_both_sides() -> None:
    status_map = {"TestA::one [0.8 ms]": "PASSED", "TestA::two": "PASSED", "TestA::extra": "FAILED"}
    normalized, groups = rebench_v2.grade_subset(status_map, ["TestA::one"], ["TestA::two (3ms)"])
    assert normalized == {"TestA::one": "PASSED", "TestA::two": "PASSED", "TestA::extra": "FAILED"}
    assert groups["FAIL_TO_PASS"].success == ["TestA::one"] and groups["PASS_TO_PASS"].success == [
        "TestA::two (3ms)"
    ]
    assert rebench_v2.v2_resolved(groups)


def test_only_passed_counts() -> None:
    status_map = {"a": "XFAIL", "b": "SKIPPED", "c": "PASSED"}
    _, groups = rebench_v2.grade_subset(status_map, ["a", "b", "c"], [])
    assert groups["FAIL_TO_PASS"].failure == ["a", "b"] and not rebench_v2.v2_resolved(groups)


def test_missing_tests_fail_and_an_empty_f2p_never_resolves() -> None:
    _, groups = rebench_v2.grade_subset({"a": "PASSED"}, ["a"], ["gone"])
    assert groups["PASS_TO_PASS"].failure == ["gone"] and not rebench_v2.v2_resolved(groups)
    _, empty = rebench_v2.grade_subset({"a": "PASSED"}, [], ["a"])
    assert not rebench_v2.v2_resolved(empty)  # subset of PASSED holds trivially: the reward-inflation trap


def test_reward_inflation_trap_on_row_keys() -> None:
    """Reading the empty lowercase column would make the subset rule pass an empty patch."""
    data = row(FAIL_TO_PASS=["tst_filter.sh"], fail_to_pass=[])
    task = rebench.V2_FAMILY.normalize(data, settings())
    verdict = rebench_v2.grade_v2_log(
        task, "PASSED tst_h_files\n", Verdict(resolved=False, patch_exists=True)
    )
    assert task.fail_to_pass == ["tst_filter.sh"] and not verdict.resolved


def test_whole_log_grading_and_a_failed_test_patch() -> None:
    task = rebench.V2_FAMILY.normalize(row(), settings())
    log = "Checking patch t.sh...\nPASSED tst_filter.sh\nPASSED tst_h_files\n"
    assert rebench_v2.grade_v2_log(task, log, Verdict(resolved=False, patch_exists=True)).resolved
    assert not rebench_v2.grade_v2_log(task, log, Verdict(resolved=False, patch_exists=False)).resolved
    broken = rebench_v2.grade_v2_log(
        task, log + rebench_v2.TEST_PATCH_FAILED + "\n", Verdict(resolved=False, patch_exists=True)
    )
    assert not broken.resolved and not broken.log_valid
    assert "the test patch did not apply on top of the patch" in broken.reasons


# --- the local dataset --------------------------------------------------------------------------------


def test_local_rows_use_the_published_schema() -> None:
    columns = load_module(LOCAL / "make_rows.py").COLUMNS
    assert IDS == ["tinyworks__durations-7", "tinyworks__textgrid-15"]
    for data in ROWS:
        assert tuple(data) == columns
        assert isinstance(data["created_at"], int) and isinstance(data["install_config"]["test_cmd"], list)
        assert rebench.V2_FAMILY.normalize(data, settings()).workdir == "/" + data["repo"].split("/")[1]


# --- end to end -----------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def v2_images(docker_engine: Any, base_image: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    build_local_images(docker_engine, tmp_path_factory, LOCAL_YAML, force=True)


@docker
def test_gold_resolves_every_local_row(swe_project: SweProject, v2_images: None) -> None:
    run = swe_project.run(str(LOCAL_YAML), "--swe-agent", "gold")
    assert run.outcomes() == dict.fromkeys(IDS, "passed"), run.result.stdout.str()
    # The expected test named with its run time ("... [0.12 ms]") matched the parsed name.
    textgrid = run.by_id["tinyworks__textgrid-15"]
    assert textgrid.properties["p2p_passed"] == textgrid.properties["p2p_total"] == "3"


@docker
def test_empty_patch_resolves_none(swe_project: SweProject, v2_images: None) -> None:
    run = swe_project.run(str(LOCAL_YAML), "--swe-agent", "empty")
    assert run.outcomes() == dict.fromkeys(IDS, "failed"), run.result.stdout.str()
    durations = run.by_id["tinyworks__durations-7"]
    assert "tests/test_parse.py::test_compound[1h30m-5400] (FAILED)" in durations.message
    # `set -e` stops at the first failing test command, as upstream's script does.
    textgrid = run.by_id["tinyworks__textgrid-15"]
    assert "tests/test_render.py::test_rows_align_under_long_cells (not found in the log)" in textgrid.message


@docker
def test_wrong_patch_fails_naming_the_broken_test(swe_project: SweProject, v2_images: None) -> None:
    run = swe_project.run(str(LOCAL_YAML), "--swe-predictions", str(LOCAL / "predictions-wrong.jsonl"))
    case = run.by_id["tinyworks__durations-7"]
    assert case.outcome == "failed"
    assert (
        "PASS_TO_PASS failing (1 of 3)" in case.message
        and "tests/test_parse.py::test_seconds (FAILED)" in case.message
    )
    assert run.by_id["tinyworks__textgrid-15"].outcome == "skipped"


@docker
def test_malformed_rows_error_and_the_others_run(swe_project: SweProject, v2_images: None) -> None:
    good = next(r for r in ROWS if r["instance_id"] == "tinyworks__durations-7")
    no_image = dict(copy.deepcopy(good), instance_id="tinyworks__durations-8", image_name=None)
    bad_parser = copy.deepcopy(good)
    bad_parser["instance_id"] = "tinyworks__durations-9"
    bad_parser["install_config"]["log_parser"] = "parse_log_nonexistent"
    swe_project.variant(LOCAL_YAML, "v2-malformed", [no_image, good, bad_parser])
    run = swe_project.run("benchmarks/")
    assert run.outcomes() == {
        "tinyworks__durations-8": "error",
        "tinyworks__durations-7": "passed",
        "tinyworks__durations-9": "error",
    }
    run.assert_bad_rows(
        {
            "tinyworks__durations-8": ("row 1 (tinyworks__durations-8)", "field 'image_name'"),
            "tinyworks__durations-9": ("row 3 (tinyworks__durations-9)", "field 'install_config.log_parser'"),
        }
    )
