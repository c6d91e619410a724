"""The nv-internal family: SWE-bench-Pro-shaped rows, the entry script, output.json grading, Docker end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.api.errors import RowError
from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.families import nv_internal as nv

from conftest import REPO
from conftest import SweProject
from conftest import benchmark_settings
from conftest import build_local_images
from conftest import read_jsonl
from conftest import run_in_repo
from conftest import write_jsonl

LOCAL_YAML = REPO / "benchmarks" / "nv-internal-local.yaml"
LOCAL = REPO / "benchmarks" / "nv-internal-local"
DATASET = LOCAL / "nv-internal-local.jsonl"
PREDICTIONS = LOCAL / "predictions-wrong.jsonl"
ROWS = read_jsonl(DATASET)
IDS = sorted(row["instance_id"] for row in ROWS)
docker = pytest.mark.docker


def settings(family_options: dict[str, Any] | None = None, **images: Any) -> BenchmarkSettings:
    return benchmark_settings("nv-internal", images=images, family_options=family_options or {})


def pro_row(**fields: Any) -> dict[str, Any]:
    """A flat row in SWE-bench Pro's types: test lists and test files as Python list literals."""
    row = {
        "instance_id": "instance_org__proj-1a2b",
        "repo": "org/proj",
        "base_commit": "base123",
        "patch": "diff --git a/a.py b/a.py\n",
        "test_patch": "diff --git a/tests/test_a.py b/tests/test_a.py\n",
        "problem_statement": "Fix it.",
        "fail_to_pass": "['tests/test_a.py::test_new']",
        "pass_to_pass": "['tests/test_a.py::test_old']",
        "before_repo_set_cmd": "git reset --hard base123\ngit clean -fd \ngit checkout base123 \ngit checkout up456 -- tests/test_a.py",
        "selected_test_files_to_run": "['tests/test_a.py', 'tests/test_b.py']",
        "dockerhub_tag": "org.proj-org__proj-1a2b",
        "base_dockerfile": "FROM python:3.11\nENV LANG C.UTF-8\nENV A=1 B=2\nWORKDIR /app",
        "instance_dockerfile": "FROM base\nENV  PATH = /opt/bin:$PATH\nRUN echo ENV NOT=this",
        "run_script.sh": '#!/bin/bash\npytest -v "$@"\n',
        "parsing_script.py": "print('parse')\n",
        "created_at": "2024-05-14T12:00:00Z",
    }
    row.update(fields)
    return {k: v for k, v in row.items() if v is not None}


# --- rows ------------------------------------------------------------------------------------------


def test_pro_row_with_python_literals_and_dockerhub_tag() -> None:
    task = nv.FAMILY.normalize(pro_row(), settings())
    assert task.image == "jefzda/sweap-images:org.proj-org__proj-1a2b"
    assert task.workdir == "/app"
    assert task.fail_to_pass == ["tests/test_a.py::test_new"] and task.pass_to_pass == [
        "tests/test_a.py::test_old"
    ]
    assert task.raw["selected_test_files"] == ["tests/test_a.py", "tests/test_b.py"]
    assert task.raw["before_repo_set_cmd"] == "git checkout up456 -- tests/test_a.py"
    assert task.raw["exports"] == ["export LANG=C.UTF-8", "export A=1 B=2", "export PATH=/opt/bin:$PATH"]
    assert task.created_at == "2024-05-14T12:00:00Z"


def test_select_lists_win_even_when_empty() -> None:
    task = nv.FAMILY.normalize(pro_row(fail_to_pass_select='["sel::a"]', pass_to_pass_select=[]), settings())
    assert task.fail_to_pass == ["sel::a"] and task.pass_to_pass == []


def test_blank_select_strings_count_as_absent() -> None:
    task = nv.FAMILY.normalize(pro_row(fail_to_pass_select="", pass_to_pass_select="  "), settings())
    assert task.fail_to_pass == ["tests/test_a.py::test_new"] and task.pass_to_pass == [
        "tests/test_a.py::test_old"
    ]


def test_nested_row_with_upper_case_json_and_extensionless_script_keys() -> None:
    inner = pro_row(
        fail_to_pass=None,
        pass_to_pass=None,
        dockerhub_tag=None,
        image_name="mirror/proj:1",
        FAIL_TO_PASS='["t::a"]',
        PASS_TO_PASS='["t::b"]',
        repo_workdir="/testbed",
        selected_test_files_to_run="tests/test_a.py, tests/test_b.py",
        created_at=1718000000,
        **{
            "run_script.sh": None,
            "parsing_script.py": None,
            "run_script": "echo run",
            "parsing_script": "print(1)",
        },
    )
    row = {
        "instance_id": "instance_org__proj-1a2b",
        "dataset_name": "nv-internal-1",
        "instance_dict": json.dumps(inner),
    }
    task = nv.FAMILY.normalize(row, settings())
    assert task.image == "mirror/proj:1"
    assert task.workdir == "/app"  # /testbed is NeMo's generic default, not an nv-internal checkout
    assert task.fail_to_pass == ["t::a"] and task.pass_to_pass == ["t::b"]
    assert task.raw["selected_test_files"] == ["tests/test_a.py", "tests/test_b.py"]
    assert task.raw["run_script"] == "echo run" and task.raw["parsing_script"] == "print(1)"
    assert task.created_at is not None and task.created_at.startswith("2024-06-10")


def test_images_repository_and_template() -> None:
    assert (
        nv.FAMILY.normalize(pro_row(), settings(repository="local/sweap")).image
        == "local/sweap:org.proj-org__proj-1a2b"
    )
    templated = nv.FAMILY.normalize(pro_row(dockerhub_tag=None), settings(template="m/{id}:v1"))
    assert templated.image == "m/instance_org__proj-1a2b:v1"


def test_scripts_from_a_swe_bench_pro_scripts_dir(tmp_path: Path) -> None:
    folder = tmp_path / "instance_org__proj-1a2b"
    folder.mkdir()
    (folder / "run_script.sh").write_text("echo from dir\n")
    (folder / "parser.py").write_text("print('parser')\n")
    row = pro_row(**{"run_script.sh": None, "parsing_script.py": None})
    task = nv.FAMILY.normalize(row, settings({"scripts_dir": str(tmp_path)}))
    assert task.raw["run_script"] == "echo from dir\n" and task.raw["parsing_script"] == "print('parser')\n"


def test_entry_script_order() -> None:
    script = nv.FAMILY.normalize(pro_row(), settings()).eval_script or ""
    order = [
        "export LANG=C.UTF-8",
        "cd /app",
        "git checkout up456 -- tests/test_a.py",
        "bash /root/run_script.sh tests/test_a.py,tests/test_b.py > /root/stdout.log 2> /root/stderr.log",
        "python /root/parsing_script.py /root/stdout.log /root/stderr.log /root/output.json",
    ]
    positions = [script.index(line) for line in order]
    assert positions == sorted(positions)
    assert "git reset --hard" not in script  # only the last line of before_repo_set_cmd runs
    assert "NOT=this" not in script


@pytest.mark.parametrize(
    ("row", "field", "words"),
    [
        (pro_row(dockerhub_tag=None), "image", "is missing"),
        (
            pro_row(fail_to_pass="['tests/test_a.py::test_new'"),
            "fail_to_pass",
            "neither JSON nor a Python list",
        ),
        (pro_row(fail_to_pass_select='{"a": 1}'), "fail_to_pass_select", "must be a list"),
        (pro_row(**{"parsing_script.py": None}), "parsing_script.py", "is missing"),
        (pro_row(**{"run_script.sh": " "}), "run_script.sh", "is missing"),
        (
            pro_row(selected_test_files_to_run="[1, 2]"),
            "selected_test_files_to_run",
            "item 0 must be a string",
        ),
    ],
)
def test_malformed_rows_name_the_field(row: dict[str, Any], field: str, words: str) -> None:
    with pytest.raises(RowError) as caught:
        nv.FAMILY.normalize(row, settings())
    assert caught.value.field == field and words in str(caught.value)
    assert caught.value.row == "instance_org__proj-1a2b"


# --- grading ---------------------------------------------------------------------------------------


def output(*tests: tuple[str, str]) -> str:
    return json.dumps({"tests": [{"name": n, "status": s} for n, s in tests]})


def test_report_contract() -> None:
    assert nv.read_report(None).problem == "parsing_script.py wrote no output.json"
    assert "not valid JSON" in nv.read_report("{oops").problem
    assert nv.read_report('{"results": []}').problem == "output.json has no 'tests' list"
    assert nv.read_report(output()).problem == "output.json lists no tests"
    assert nv.read_report(output(("a", "PASSED"), ("a", "FAILED"))).statuses == {"a": "FAILED"}


def test_resolved_when_every_required_test_passed_extra_tests_ignored() -> None:
    statuses = nv.read_report(output(("f", "PASSED"), ("p", "PASSED"), ("extra", "FAILED"))).statuses
    groups, resolved = nv.grade(statuses, ["f"], ["p"])
    assert resolved and groups[nv.FAIL_TO_PASS].success == ["f"]


def test_missing_failed_skipped_and_error_tests_fail() -> None:
    statuses = {"f1": "FAILED", "f2": "SKIPPED", "p1": "ERROR"}
    groups, resolved = nv.grade(statuses, ["f1", "f2", "f3"], ["p1"])
    assert not resolved
    assert groups[nv.FAIL_TO_PASS].failure == ["f1", "f2", "f3"] and groups[nv.PASS_TO_PASS].failure == ["p1"]


def test_a_row_requiring_no_test_never_resolves() -> None:
    assert nv.grade({"a": "PASSED"}, [], []) == (
        {nv.FAIL_TO_PASS: nv.TestGroup(), nv.PASS_TO_PASS: nv.TestGroup()},
        False,
    )
    _, only_p2p = nv.grade({"a": "PASSED"}, [], ["a"])
    assert only_p2p  # the subset rule needs some required test, not necessarily a FAIL_TO_PASS one


def test_the_local_parsing_script_follows_the_contract(tmp_path: Path) -> None:
    stdout = tmp_path / "stdout.log"
    stdout.write_text(
        "tests/test_a.py::test_x PASSED [ 50%]\ntests/test_a.py::test_y FAILED [100%]\ntests/test_a.py::test_z XFAIL\n"
    )
    stderr = tmp_path / "stderr.log"
    stderr.write_text("")
    out = tmp_path / "output.json"
    subprocess.run(
        [sys.executable, str(LOCAL / "parsing_script.py"), str(stdout), str(stderr), str(out)], check=True
    )
    assert nv.read_report(out.read_text()).statuses == {
        "tests/test_a.py::test_x": "PASSED",
        "tests/test_a.py::test_y": "FAILED",
        "tests/test_a.py::test_z": "SKIPPED",
    }


# --- benchmark files and collection ----------------------------------------------------------------


def test_collect_offline_skips_the_internal_dataset_with_its_reason(tmp_path: Path) -> None:
    env = {"PYTEST_SWE_CACHE": str(tmp_path / "cache"), "NV_INTERNAL_DATASET": str(tmp_path / "absent.jsonl")}
    out = run_in_repo("benchmarks/", "-k", "nv-internal", "--collect-only", "-q", env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "benchmarks/nv-internal.yaml::nv-internal::nv-internal[dataset-unavailable]" in out.stdout
    assert f"dataset file not found: {tmp_path / 'absent.jsonl'}" in out.stdout
    for instance_id in IDS:
        assert f"benchmarks/nv-internal-local.yaml::nv-internal-local::{instance_id}" in out.stdout


def test_environment_variable_points_the_benchmark_at_a_dataset(tmp_path: Path) -> None:
    env = {"PYTEST_SWE_CACHE": str(tmp_path / "cache"), "NV_INTERNAL_DATASET": str(DATASET)}
    out = run_in_repo("benchmarks/nv-internal.yaml", "--collect-only", "-q", env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert [line for line in out.stdout.splitlines() if "::nv-internal::" in line] == [
        f"benchmarks/nv-internal.yaml::nv-internal::{r['instance_id']}" for r in ROWS
    ]


# --- end to end in Docker --------------------------------------------------------------------------


@pytest.fixture(scope="session")
def nv_images(docker_engine: Any, base_image: str, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return build_local_images(docker_engine, tmp_path_factory, LOCAL_YAML, force=True)


def local_benchmark(project: SweProject, dataset: Path = DATASET) -> Path:
    return project.local(
        "nvlocal", "nv-internal", dataset, "images: {repository: pytest-swe-nv/sweap-images}\n"
    )


@docker
def test_gold_resolves_every_row_and_malformed_rows_error_alone(
    swe_project: SweProject, nv_images: list[str], tmp_path: Path
) -> None:
    flat = next(r for r in ROWS if "instance_dict" not in r)
    bad = [
        {k: v for k, v in dict(flat, instance_id="bad__no-image-1").items() if k != "dockerhub_tag"},
        dict(flat, instance_id="bad__f2p-json-2", fail_to_pass_select='["tests/test_stock.py::x"'),
        {k: v for k, v in dict(flat, instance_id="bad__no-parser-3").items() if k != "parsing_script.py"},
    ]
    local_benchmark(swe_project, write_jsonl(tmp_path / "rows.jsonl", [*ROWS, *bad]))
    run = swe_project.run("benchmarks/", "--swe-agent", "gold")
    outcomes = run.outcomes()
    assert {i: outcomes[i] for i in IDS} == dict.fromkeys(IDS, "passed")
    for case in (run.by_id[i] for i in IDS):
        assert (
            case.properties["reward"] == "1.0"
            and case.properties["f2p_passed"] == case.properties["f2p_total"] == "3"
        )
        assert Path(case.properties["output_json_path"]).is_file()
    run.assert_bad_rows(
        {
            "bad__no-image-1": ("row 3 (bad__no-image-1)", "field 'image'"),
            "bad__f2p-json-2": ("row 4 (bad__f2p-json-2)", "field 'fail_to_pass_select'"),
            "bad__no-parser-3": ("row 5 (bad__no-parser-3)", "field 'parsing_script.py'"),
        }
    )


@docker
def test_empty_patch_resolves_none_and_env_lines_apply(swe_project: SweProject, nv_images: list[str]) -> None:
    local_benchmark(swe_project)
    run = swe_project.run("benchmarks/", "--swe-agent", "empty")
    run.result.assert_outcomes(failed=len(IDS))
    for case in run.cases:
        assert case.properties["reward"] == "0.0" and case.properties["f2p_passed"] == "0"
        # PASS_TO_PASS tests import through PYTHONPATH / read SLUG_MAX_LENGTH: ENV lines applied.
        assert case.properties["p2p_passed"] == case.properties["p2p_total"] == "3"


@docker
def test_wrong_patch_fails_naming_the_failing_test(swe_project: SweProject, nv_images: list[str]) -> None:
    local_benchmark(swe_project)
    run = swe_project.run("benchmarks/", "--swe-predictions", str(PREDICTIONS))
    case = run.by_id["acme__inventory-101"]
    assert case.outcome == "failed" and case.properties["patch_applied"] == "true"
    assert "FAIL_TO_PASS failing (1 of 3)" in case.message
    assert "tests/test_stock.py::test_remove_all_clears_sku (FAILED)" in case.message
    assert run.by_id["acme__slugify-102"].outcome == "skipped"
