"""The swe-rebench family (V1): row forms, the fork's eval script, grading, and end to end in Docker."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.api.errors import RowError
from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.api.verdict import Verdict
from pytest_swe.families import rebench
from pytest_swe.families.rebench import v1 as rebench_v1
from pytest_swe.families.swebench import EMPTY_F2P_REASON

from conftest import REPO
from conftest import SweProject
from conftest import benchmark_settings
from conftest import build_local_images
from conftest import load_module
from conftest import read_jsonl

BENCHMARKS = REPO / "benchmarks"
LOCAL_YAML = BENCHMARKS / "swe-rebench-local.yaml"
LOCAL = BENCHMARKS / "swe-rebench-local"
ROWS = read_jsonl(LOCAL / "rows.jsonl")
IDS = sorted(row["instance_id"] for row in ROWS)
docker = pytest.mark.docker

TEST_PATCH = """\
diff --git a/tests/test_a.py b/tests/test_a.py
index 1111111..2222222 100644
--- a/tests/test_a.py
+++ b/tests/test_a.py
@@ -1 +1,2 @@
 def test_a(): pass
+def test_b(): pass
diff --git a/tests/test_new.py b/tests/test_new.py
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/tests/test_new.py
@@ -0,0 +1 @@
+def test_c(): pass
diff --git a/tests/data/cases.json b/tests/data/cases.json
index 4444444..5555555 100644
--- a/tests/data/cases.json
+++ b/tests/data/cases.json
@@ -1 +1 @@
-[]
+[1]
"""


def settings(**images: Any) -> BenchmarkSettings:
    return benchmark_settings("swe-rebench", images=images)


def row(**fields: Any) -> dict[str, Any]:
    """A V1 row as the published parquet gives it (lists, install_config as a struct with nulls)."""
    base = {
        "instance_id": "owner__proj-12",
        "base_commit": "0123456789abcdef0123456789abcdef01234567",
        "created_at": "2024-08-01T10:00:00",
        "environment_setup_commit": "0123456789abcdef0123456789abcdef01234567",
        "hints_text": "",
        "patch": "diff --git a/proj/x.py b/proj/x.py\n",
        "problem_statement": "It breaks.",
        "repo": "owner/proj",
        "test_patch": TEST_PATCH,
        "meta": {"has_test_patch": True},
        "version": "1.2",
        "install_config": {
            "python": "3.10",
            "packages": "requirements.txt",
            "pip_packages": ["pytest"],
            "pre_install": None,
            "install": "pip install -e .",
            "test_cmd": "pytest --no-header -rA --tb=line",
            "log_parser": "parse_log_pytest",
            "reqs_path": None,
            "env_yml_path": None,
            "no_use_env": None,
            "docker_specs": None,
            "eval_commands": None,
        },
        "requirements": "",
        "environment": "",
        "FAIL_TO_PASS": ["tests/test_a.py::test_b"],
        "PASS_TO_PASS": ["tests/test_a.py::test_a"],
        "license_name": "MIT",
        "docker_image": None,
    }
    base.update(fields)
    return base


def with_config(**config: Any) -> dict[str, Any]:
    data = row()
    data["install_config"] = {**data["install_config"], **config}
    return data


# --- rows ----------------------------------------------------------------------------------------


def test_published_row_gives_the_swerebench_image_and_the_forks_specs() -> None:
    task = rebench.V1_FAMILY.normalize(row(), settings())
    assert task.image == "swerebench/sweb.eval.x86_64.owner_1776_proj-12:latest"
    assert task.workdir == "/testbed"
    assert task.test_cmds == ["LANG=C.UTF-8 LC_ALL=C.UTF-8 pytest --no-header -rA --tb=line"]
    assert task.install_cmds == ["LANG=C.UTF-8 LC_ALL=C.UTF-8 pip install -e ."]
    assert task.log_parser == "parse_log_pytest"
    assert task.fail_to_pass == ["tests/test_a.py::test_b"] and task.pass_to_pass == [
        "tests/test_a.py::test_a"
    ]
    assert task.created_at == "2024-08-01T10:00:00"


def test_json_string_fields_and_lower_case_keys() -> None:
    data = row(install_config=json.dumps({"test_cmd": "pytest -rA", "log_parser": "parse_log_pytest_v2"}))
    data.pop("FAIL_TO_PASS")
    data.pop("PASS_TO_PASS")
    data.update(fail_to_pass='["tests/test_a.py::test_b"]', pass_to_pass="[]", created_at=1722506400000)
    task = rebench.V1_FAMILY.normalize(data, settings())
    assert task.fail_to_pass == ["tests/test_a.py::test_b"] and task.pass_to_pass == []
    assert task.log_parser == "parse_log_pytest_v2"
    assert task.install_cmds == []  # no install key: the eval script re-runs nothing
    assert task.created_at is not None and task.created_at.startswith("2024-08-01T10:00:00")


def test_an_empty_upper_case_list_never_hides_a_filled_lower_case_one() -> None:
    data = row(FAIL_TO_PASS=[], fail_to_pass=["tests/test_a.py::test_b"])
    assert rebench.V1_FAMILY.normalize(data, settings()).fail_to_pass == ["tests/test_a.py::test_b"]


def test_image_column_template_and_namespace() -> None:
    assert rebench.V1_FAMILY.normalize(row(docker_image="reg/img:1"), settings()).image == "reg/img:1"
    assert (
        rebench.V1_FAMILY.normalize(row(), settings(template="mirror/{id}:v2")).image
        == "mirror/owner__proj-12:v2"
    )
    assert (
        rebench.V1_FAMILY.normalize(row(), settings(namespace="local")).image
        == "local/sweb.eval.x86_64.owner_1776_proj-12:latest"
    )


def test_list_test_cmd_counts_by_its_last_entry_and_repo_keyed_parsers_resolve() -> None:
    task = rebench.V1_FAMILY.normalize(
        with_config(test_cmd=["make", "pytest -x"], log_parser="django/django"), settings()
    )
    assert task.test_cmds == ["LANG=C.UTF-8 LC_ALL=C.UTF-8 pytest -x"]
    assert task.log_parser == "parse_log_django"


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        (row(FAIL_TO_PASS="[oops"), "FAIL_TO_PASS", "not valid JSON"),
        (with_config(log_parser="parse_log_pytst"), "install_config.log_parser", "parse_log_pytest"),
        (with_config(log_parser="nobody/knows"), "install_config.log_parser", "no known parser"),
        (with_config(test_cmd=None), "install_config.test_cmd", "missing"),
        (row(install_config=None), "install_config", "missing"),
        (row(install_config="{not json"), "install_config", "not valid JSON"),
        (row(repo=None), "repo", "missing"),
        (row(test_patch=f"{TEST_PATCH}EOF_114329324912\n"), "test_patch", "heredoc"),
    ],
)
def test_malformed_rows_name_the_field(data: dict[str, Any], field: str, words: str) -> None:
    with pytest.raises(RowError) as info:
        rebench.V1_FAMILY.normalize(data, settings())
    assert info.value.field == field and words in str(info.value)
    assert info.value.row == "owner__proj-12"


# --- the eval script -------------------------------------------------------------------------------


def test_eval_script_is_the_forks_line_for_line() -> None:
    data = with_config(eval_commands=["export X=1"])
    task = rebench.V1_FAMILY.normalize(data, settings())
    base = data["base_commit"]
    expected = [
        "#!/bin/bash",
        "set -uxo pipefail",
        "source /opt/miniconda3/bin/activate",
        "conda activate testbed",
        "cd /testbed",
        "export X=1",
        "git config --global --add safe.directory /testbed",
        "cd /testbed",
        "git status",
        "git show",
        f"git -c core.fileMode=false diff {base}",
        "source /opt/miniconda3/bin/activate",
        "conda activate testbed",
        "LANG=C.UTF-8 LC_ALL=C.UTF-8 pip install -e .",
        # Only files that exist at the base commit are reset (the fork's get_modified_files).
        f"git checkout {base} tests/test_a.py tests/data/cases.json",
        f"git apply -v - <<'EOF_114329324912'\n{TEST_PATCH}\nEOF_114329324912",
        ": '>>>>> Start Test Output'",
        # Data files are not test directives; new test files are.
        "LANG=C.UTF-8 LC_ALL=C.UTF-8 pytest --no-header -rA --tb=line tests/test_a.py tests/test_new.py",
        ": '>>>>> End Test Output'",
        f"git checkout {base} tests/test_a.py tests/data/cases.json",
    ]
    assert task.eval_script == "\n".join(expected) + "\n"


def test_django_directives_are_modules() -> None:
    patch = "diff --git a/tests/queries/test_q.py b/tests/queries/test_q.py\n"
    assert rebench_v1.v1_test_directives(patch, "django/django") == ["queries.test_q"]
    assert rebench_v1.v1_test_directives(patch, "owner/proj") == ["tests/queries/test_q.py"]


# --- grading -----------------------------------------------------------------------------------------


def log_of(*lines: str, exit_code: int = 1) -> str:
    body = "\n".join(lines)
    return f"+ : '>>>>> Start Test Output'\n{body}\n+ : '>>>>> End Test Output'\n>>>>> Test Exit Code: {exit_code}\n"


def grade(
    log: str, *, f2p: list[str] | None = None, p2p: list[str] | None = None, patch: bool = True
) -> Verdict:
    task = rebench.V1_FAMILY.normalize(row(), settings())
    if f2p is not None:
        task.fail_to_pass = f2p
    if p2p is not None:
        task.pass_to_pass = p2p
    return rebench_v1.grade_v1_log(task, log, Verdict(resolved=False, patch_exists=patch))


def test_all_required_tests_passing_resolves() -> None:
    verdict = grade(log_of("PASSED tests/test_a.py::test_a", "PASSED tests/test_a.py::test_b", exit_code=0))
    assert verdict.resolved and verdict.resolution == "RESOLVED_FULL"


def test_extra_tests_in_the_log_do_not_matter() -> None:
    verdict = grade(
        log_of(
            "PASSED tests/test_a.py::test_a",
            "PASSED tests/test_a.py::test_b",
            "FAILED tests/test_z.py::test_z - x",
        )
    )
    assert verdict.resolved


def test_a_missing_fail_to_pass_test_fails() -> None:
    verdict = grade(log_of("PASSED tests/test_a.py::test_a", exit_code=0))
    assert not verdict.resolved
    assert verdict.group("FAIL_TO_PASS").failure == ["tests/test_a.py::test_b"]


def test_an_empty_fail_to_pass_list_never_resolves() -> None:
    verdict = grade(log_of("PASSED tests/test_a.py::test_a", exit_code=0), f2p=[])
    assert not verdict.resolved
    assert EMPTY_F2P_REASON in verdict.reasons


def test_an_empty_patch_never_resolves_and_a_log_without_markers_is_invalid() -> None:
    passing = log_of("PASSED tests/test_a.py::test_a", "PASSED tests/test_a.py::test_b", exit_code=0)
    assert not grade(passing, patch=False).resolved
    unmarked = grade("PASSED tests/test_a.py::test_a\nPASSED tests/test_a.py::test_b\n")
    assert not unmarked.resolved and not unmarked.log_valid


# --- the local dataset --------------------------------------------------------------------------------


def test_local_rows_use_the_published_schema() -> None:
    columns = load_module(LOCAL / "make_rows.py").COLUMNS
    assert [row["instance_id"] for row in ROWS] == ["tinyworks__iniread-42", "tinyworks__unitconv-101"]
    for data in ROWS:
        assert tuple(data) == columns
        assert isinstance(data["FAIL_TO_PASS"], list) and isinstance(data["install_config"], dict)
        assert data["docker_image"] is None and data["environment_setup_commit"] == data["base_commit"]
        rebench.V1_FAMILY.normalize(data, settings())


# --- collection ---------------------------------------------------------------------------------------


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, isolated_cache: Path, tmp_path: Path) -> Path:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    return isolated_cache


HF_BENCHMARKS = {
    "swe-rebench": "nebius/SWE-rebench",
    "swe-rebench-leaderboard": "nebius/SWE-rebench-leaderboard",
    "swe-rebench-v2": "nebius/SWE-rebench-V2",
    "swe-smith": "SWE-bench/SWE-smith",
    "r2e-gym": "R2E-Gym/R2E-Gym-Lite",
}
LOCAL_BENCHMARKS = {"swe-rebench-local", "swe-rebench-v2-local", "swe-smith-local", "r2e-gym-local"}


@pytest.mark.parametrize(
    ("keyword", "selected"),
    [
        (
            "swe-rebench",
            {
                "swe-rebench",
                "swe-rebench-leaderboard",
                "swe-rebench-v2",
                "swe-rebench-local",
                "swe-rebench-v2-local",
            },
        ),
        ("swe-smith or r2e-gym", {"swe-smith", "swe-smith-local", "r2e-gym", "r2e-gym-local"}),
    ],
)
def test_keywords_select_these_families_benchmarks_offline(
    swe_project: SweProject, offline: Path, keyword: str, selected: set[str]
) -> None:
    """Offline, a Hugging Face benchmark collects as one skipped item; local ones list their rows."""
    # Hugging Face libraries read HF_HOME and HF_HUB_OFFLINE when imported: a fresh interpreter
    run = swe_project.run(str(BENCHMARKS), "-k", keyword, "--collect-only", "-q", subprocess=True)
    assert run.result.ret == 0, run.result.stdout.str()
    ids = [line for line in run.result.outlines if "::" in line]
    assert {line.split("::")[1] for line in ids} == selected
    for name in selected & set(HF_BENCHMARKS):
        assert f"benchmarks/{name}.yaml::{name}::{name}[dataset-unavailable]" in ids
    for name in selected & LOCAL_BENCHMARKS:
        assert len([line for line in ids if f"::{name}::" in line]) == 2, name


# --- end to end -----------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def rebench_images(docker_engine: Any, base_image: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    build_local_images(docker_engine, tmp_path_factory, LOCAL_YAML, force=True)


@docker
def test_gold_resolves_every_local_row(swe_project: SweProject, rebench_images: None) -> None:
    run = swe_project.run(str(LOCAL_YAML), "--swe-agent", "gold")
    assert run.outcomes() == dict.fromkeys(IDS, "passed"), run.result.stdout.str()
    for case in run.cases:
        assert case.properties["family"] == "swe-rebench" and case.properties["reward"] == "1.0"
        assert case.properties["f2p_passed"] == case.properties["f2p_total"] != "0"


@docker
def test_empty_patch_resolves_none(swe_project: SweProject, rebench_images: None) -> None:
    run = swe_project.run(str(LOCAL_YAML), "--swe-agent", "empty")
    assert run.outcomes() == dict.fromkeys(IDS, "failed"), run.result.stdout.str()
    for case in run.cases:
        first = next(r for r in ROWS if r["instance_id"] == case.instance_id)["FAIL_TO_PASS"][0]
        assert "the patch is empty" in case.message and f"{first} (FAILED)" in case.message


@docker
def test_wrong_patch_fails_naming_the_failing_test(swe_project: SweProject, rebench_images: None) -> None:
    run = swe_project.run(str(LOCAL_YAML), "--swe-predictions", str(LOCAL / "predictions-wrong.jsonl"))
    case = run.by_id["tinyworks__unitconv-101"]
    assert case.outcome == "failed" and case.properties["patch_applied"] == "true"
    assert (
        "FAIL_TO_PASS failing (1 of 4)" in case.message
        and "tests/test_convert.py::test_digits (FAILED)" in case.message
    )
    assert run.by_id["tinyworks__iniread-42"].outcome == "skipped"


@docker
def test_malformed_rows_error_and_the_others_run(swe_project: SweProject, rebench_images: None) -> None:
    good = next(r for r in ROWS if r["instance_id"] == "tinyworks__iniread-42")
    bad_json = dict(copy.deepcopy(good), instance_id="tinyworks__iniread-43", FAIL_TO_PASS="[oops")
    bad_parser = copy.deepcopy(good)
    bad_parser.update(instance_id="tinyworks__iniread-44")
    bad_parser["install_config"]["log_parser"] = "parse_log_nonexistent"
    swe_project.variant(LOCAL_YAML, "rebench-malformed", [bad_json, good, bad_parser])
    run = swe_project.run("benchmarks/")
    assert run.outcomes() == {
        "tinyworks__iniread-43": "error",
        "tinyworks__iniread-42": "passed",
        "tinyworks__iniread-44": "error",
    }
    run.assert_bad_rows(
        {
            "tinyworks__iniread-43": ("row 1 (tinyworks__iniread-43)", "field 'FAIL_TO_PASS'"),
            "tinyworks__iniread-44": ("row 3 (tinyworks__iniread-44)", "field 'install_config.log_parser'"),
        }
    )
