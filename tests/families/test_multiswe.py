"""The Multi-SWE-bench family: rows, per-repository log parsers, transition grading, Docker end to end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.api.errors import InfraError
from pytest_swe.api.errors import RowError
from pytest_swe.api.sandbox import ExecResult
from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.families import multiswe as mswb

from conftest import REPO
from conftest import SweProject
from conftest import benchmark_settings
from conftest import build_local_images
from conftest import read_jsonl
from conftest import run_in_repo
from conftest import write_jsonl

LOCAL_YAML = REPO / "benchmarks" / "multi-swe-bench-local.yaml"
LOCAL = REPO / "benchmarks" / "multi-swe-bench-local"
DATASET = LOCAL / "multi-swe-bench-local.jsonl"
PREDICTIONS = LOCAL / "predictions-wrong.jsonl"
ROWS = read_jsonl(DATASET)
IDS = sorted(mswb.FAMILY.row_id(row) or "" for row in ROWS)
docker = pytest.mark.docker
PASS, FAIL, SKIP, NONE = mswb.PASS, mswb.FAIL, mswb.SKIP, mswb.NONE


def settings(family_options: dict[str, Any] | None = None, **images: Any) -> BenchmarkSettings:
    return benchmark_settings("multi-swe-bench", images=images, family_options=family_options or {})


def result(passed: list[str] = (), failed: list[str] = (), skipped: list[str] = ()) -> dict[str, Any]:  # type: ignore[assignment]
    return mswb.TestResult(set(passed), set(failed), set(skipped)).as_dict()


def row(**fields: Any) -> dict[str, Any]:
    """A row in the published schema (dict-valued fields, as in the JSONL files)."""
    data = {
        "org": "Org",
        "repo": "Proj",
        "number": 42,
        "state": "closed",
        "title": "Fix the thing",
        "body": "PR body",
        "base": {"label": "Org:main", "ref": "main", "sha": "abc123"},
        "resolved_issues": [{"number": 41, "title": "Thing breaks", "body": "It breaks when x."}],
        "fix_patch": "diff --git a/a.go b/a.go\n",
        "test_patch": "diff --git a/a_test.go b/a_test.go\n",
        "fixed_tests": {"TestNew": {"run": "NONE", "test": "FAIL", "fix": "PASS"}},
        "p2p_tests": {"TestOld": {"run": "PASS", "test": "PASS", "fix": "PASS"}},
        "f2p_tests": {"TestNew": {"run": "NONE", "test": "FAIL", "fix": "PASS"}},
        "s2p_tests": {},
        "n2p_tests": {},
        "run_result": result(["TestOld"]),
        "test_patch_result": result(["TestOld"], ["TestNew"]),
        "fix_patch_result": result(["TestOld", "TestNew"]),
        "lang": "go",
        "instance_id": "Org__Proj-42",
    }
    data.update(fields)
    return {k: v for k, v in data.items() if v is not None}


# --- rows ------------------------------------------------------------------------------------------


def test_published_row() -> None:
    task = mswb.FAMILY.normalize(row(), settings())
    assert task.instance_id == "Org__Proj-42"
    assert task.image == "mswebench/org_m_proj:pr-42"
    assert task.workdir == "/home/Proj" and task.base_commit == "abc123" and task.repo == "Org/Proj"
    assert task.fail_to_pass == ["TestNew"] and task.pass_to_pass == ["TestOld"]
    assert task.extra_required == {"s2p_tests": [], "n2p_tests": []}
    assert task.gold_patch.startswith("diff --git a/a.go") and task.log_parser == "go_test"
    assert task.problem_statement == "Thing breaks\nIt breaks when x."
    assert task.hidden_paths == ["/home/fix.patch", "/home/test.patch"]


def test_json_string_fields_and_parquet_struct_nulls() -> None:
    fields = row()
    as_strings = {
        k: json.dumps(fields[k])
        for k in ("base", "resolved_issues", "p2p_tests", "f2p_tests", "run_result", "test_patch_result")
    }
    task = mswb.FAMILY.normalize(row(**as_strings), settings())
    assert task.base_commit == "abc123" and task.fail_to_pass == ["TestNew"]
    # A parquet struct column holds every row's test names; names of other rows are null here.
    struct = {"TestOld": {"run": "PASS", "test": "PASS", "fix": "PASS"}, "TestOfAnotherRow": None}
    assert mswb.FAMILY.normalize(row(p2p_tests=struct), settings()).pass_to_pass == ["TestOld"]


def test_row_without_instance_id_and_with_a_string_number() -> None:
    data = row(instance_id=None, number="pr-42")
    assert mswb.FAMILY.row_id(data) == "Org__Proj-pr-42"
    task = mswb.FAMILY.normalize(row(instance_id=None, number="42"), settings())
    assert task.instance_id == "Org__Proj-42" and task.image == "mswebench/org_m_proj:pr-42"


def test_image_namespace_template_and_explicit_image() -> None:
    assert mswb.FAMILY.normalize(row(), settings(namespace="")).image == "org_m_proj:pr-42"
    assert mswb.FAMILY.normalize(row(), settings(namespace="Mirror")).image == "mirror/org_m_proj:pr-42"
    templated = mswb.FAMILY.normalize(row(), settings(template="reg/{org}-{repo}:{number}"))
    assert templated.image == "reg/Org-Proj:42"
    assert mswb.FAMILY.normalize(row(image="own:1"), settings()).image == "own:1"


def test_problem_statement_falls_back_to_the_pull_request() -> None:
    assert (
        mswb.FAMILY.normalize(row(resolved_issues=[]), settings()).problem_statement
        == "Fix the thing\n\nPR body"
    )


def test_parser_choice_repo_table_language_and_override() -> None:
    assert (
        mswb.FAMILY.normalize(row(org="vuejs", repo="core", lang="typescript"), settings()).log_parser
        == "vitest_marks"
    )
    assert mswb.FAMILY.normalize(row(lang="Rust"), settings()).log_parser == "cargo_test"
    configured = settings({"log_parsers": {"Org/Proj": "ctest"}})
    assert mswb.FAMILY.normalize(row(), configured).log_parser == "ctest"
    assert mswb.FAMILY.normalize(row(log_parser="pytest"), configured).log_parser == "pytest"


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        (row(number=None), "number", "is missing"),
        (row(number="forty-two"), "number", "must be a pull request number"),
        (row(f2p_tests='{"TestNew": {"run": "NONE"'), "f2p_tests", "not valid JSON"),
        (row(log_parser="pytest-json"), "log_parser", "unknown log parser 'pytest-json'"),
        (row(lang="cobol"), "lang", "no log parser is known for Org/Proj"),
        (row(run_result=None), "run_result", "is missing"),
        (
            row(test_patch_result={"passed_tests": "TestOld"}),
            "test_patch_result.passed_tests",
            "must be a list",
        ),
        (row(base=["abc123"]), "base", "must be a mapping"),
        (row(test_patch=None), "test_patch", "is missing"),
    ],
)
def test_malformed_rows_name_the_field(data: dict[str, Any], field: str, words: str) -> None:
    with pytest.raises(RowError) as caught:
        mswb.FAMILY.normalize(data, settings())
    assert caught.value.field == field and words in str(caught.value)


class RecordingSandbox:
    def __init__(self, exit_code: int = 0) -> None:
        self.commands: list[str] = []
        self.exit_code = exit_code

    def exec(self, command: str, **_: Any) -> ExecResult:
        self.commands.append(command)
        return ExecResult(self.exit_code, "")


def test_the_agent_never_sees_the_gold_fix_or_the_tests() -> None:
    task = mswb.FAMILY.normalize(row(), settings())
    sandbox = RecordingSandbox()
    mswb.FAMILY.prepare_agent_sandbox(task, sandbox, settings())  # type: ignore[arg-type]
    assert sandbox.commands == ["rm -f -- /home/fix.patch /home/test.patch"]
    with pytest.raises(InfraError):
        mswb.FAMILY.prepare_agent_sandbox(task, RecordingSandbox(exit_code=1), settings())  # type: ignore[arg-type]


# --- log parsers -----------------------------------------------------------------------------------


def sets(parsed: mswb.TestResult) -> tuple[set[str], set[str], set[str]]:
    return parsed.passed, parsed.failed, parsed.skipped


def test_pytest_parser_reads_verbose_and_summary_lines() -> None:
    log = (
        "\x1b[32mtests/test_a.py::test_x PASSED\x1b[0m [ 25%]\n"
        "tests/test_a.py::test_y SKIPPED (no reason) [ 50%]\n"
        "tests/test_a.py::test_z PASSED [ 75%]\n"
        "ERROR tests/test_b.py - ModuleNotFoundError\n"
        "FAILED tests/test_a.py::test_z - assert 0\n"
        "XFAIL tests/test_a.py::test_w - known\n"
    )
    assert sets(mswb.parse_pytest(log)) == (
        {"tests/test_a.py::test_x"},
        {"tests/test_a.py::test_z"},
        {"tests/test_a.py::test_y", "tests/test_a.py::test_w"},
    )


def test_go_parser_counts_failed_packages() -> None:
    log = "=== RUN TestA\n--- PASS: TestA (0.00s)\n    --- FAIL: TestB/sub (0.01s)\n--- SKIP: TestC (0.00s)\nFAIL\tgithub.com/o/p/pkg\t0.02s\n"
    assert sets(mswb.parse_go_test(log)) == ({"TestA"}, {"TestB/sub", "github.com/o/p/pkg"}, {"TestC"})


def test_cargo_maven_marks_and_ctest_parsers() -> None:
    cargo = "test a::works ... ok\ntest a::breaks ... FAILED\ntest a::later ... ignored\n"
    assert sets(mswb.parse_cargo_test(cargo)) == ({"a::works"}, {"a::breaks"}, {"a::later"})
    maven = (
        "[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 1, Time elapsed: 0.1 s - in com.x.AliveTest\n"
        "[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.2 s <<< FAILURE! - in com.x.BrokenTest\n"
        "[INFO] Tests run: 1, Failures: 0, Errors: 0, Skipped: 1, Time elapsed: 0 s - in com.x.SkippedTest\n"
    )
    assert sets(mswb.parse_maven_surefire(maven)) == (
        {"com.x.AliveTest"},
        {"com.x.BrokenTest"},
        {"com.x.SkippedTest"},
    )
    vitest = "✓ compiler > nested atrule 12ms\n\u00d7 runtime > suspense 3ms\n"
    assert sets(mswb.parse_vitest_marks(vitest)) == (
        {"compiler > nested atrule"},
        {"runtime > suspense"},
        set(),
    )
    jest = "    ✓ adds (3 ms)\n    ✕ divides (1 ms)\n    ○ skipped later\n"
    assert sets(mswb.parse_jest_marks(jest)) == ({"adds"}, {"divides"}, {"later"})
    ctest = "1/3 Test #1: unit_a ......................   Passed    0.01 sec\n2/3 Test #2: unit_b ......................***Failed    0.02 sec\n3/3 Test #3: unit_c ......................***Skipped   0.00 sec\n"
    assert sets(mswb.parse_ctest(ctest)) == ({"unit_a"}, {"unit_b"}, {"unit_c"})


def test_fix_run_log_section_and_exit_code() -> None:
    log = f"noise\n{mswb.APPLIES}\n{mswb.FIX_RUN_START}\nprinted {mswb.FIX_RUN_END} 0 by a test\nreal\n{mswb.FIX_RUN_END} 1\n"
    section, code = mswb.fix_run_log(log)
    assert "real" in section and code == 1 and "noise" not in section


# --- transition grading ----------------------------------------------------------------------------


def tr(passed: list[str] = (), failed: list[str] = (), skipped: list[str] = ()) -> mswb.TestResult:  # type: ignore[assignment]
    return mswb.TestResult(set(passed), set(failed), set(skipped))


RUN = tr(["old", "flaky"])
TEST = tr(["old", "flaky"], ["new"], ["skipped"])


def test_gold_transitions_resolve() -> None:
    graded = mswb.grade(
        RUN,
        TEST,
        tr(["old", "flaky", "new", "skipped", "created"]),
        {
            "p2p_tests": ["old"],
            "f2p_tests": ["new"],
            "s2p_tests": ["skipped"],
            "n2p_tests": ["created"],
        },
    )
    assert graded.report.valid and graded.resolved
    assert graded.report.sets == {PASS: {"old", "flaky"}, FAIL: {"new"}, SKIP: {"skipped"}, NONE: {"created"}}


def test_an_empty_fix_run_is_invalid() -> None:
    graded = mswb.grade(RUN, TEST, tr(), {"f2p_tests": ["new"]})
    assert not graded.resolved and graded.report.error == "the fix run recorded no test"


def test_pass_to_fail_is_never_accepted_even_for_unlisted_tests() -> None:
    graded = mswb.grade(
        RUN, TEST, tr(["old", "new"], ["flaky"]), {"p2p_tests": ["old"], "f2p_tests": ["new"]}
    )
    assert (
        not graded.resolved and "PASS->FAIL" in graded.report.error and graded.report.offenders == ["flaky"]
    )
    assert graded.groups["FAIL_TO_PASS"].success == ["new"]  # the verdict still says what did pass


def test_something_must_be_fixed_even_with_an_empty_f2p_list() -> None:
    graded = mswb.grade(RUN, TEST, tr(["old", "flaky"], ["new"]), {"p2p_tests": ["old"], "f2p_tests": []})
    assert not graded.resolved and graded.report.error == "no test went from not passing to passing"
    fixed = mswb.grade(RUN, TEST, tr(["old", "flaky", "new"]), {"p2p_tests": ["old"], "f2p_tests": []})
    assert fixed.resolved  # no f2p list, but a test was fixed: upstream accepts it


@pytest.mark.parametrize("before", ["absent", "skipped"])
def test_none_or_skip_to_fail_after_a_pass_is_anomalous(before: str) -> None:
    run = tr(["old", "gone"])
    test = tr(["old"], ["new"], ["gone"] if before == "skipped" else [])
    graded = mswb.grade(run, test, tr(["old", "new"], ["gone"]), {"f2p_tests": ["new"], "p2p_tests": ["old"]})
    assert not graded.resolved and "anomalous" in graded.report.error and graded.report.offenders == ["gone"]


def test_none_to_fail_without_a_prior_pass_is_not_anomalous() -> None:
    graded = mswb.grade(
        tr(["old"]), tr(["old"], ["new"]), tr(["old", "new"], ["created_broken"]), {"f2p_tests": ["new"]}
    )
    assert graded.resolved


def test_every_listed_transition_must_happen_again() -> None:
    fix = tr(["old", "flaky", "new"], [], ["skipped"])  # s2p stays skipped, n2p never ran
    graded = mswb.grade(
        RUN, TEST, fix, {"f2p_tests": ["new"], "s2p_tests": ["skipped"], "n2p_tests": ["created"]}
    )
    assert graded.report.valid and not graded.resolved
    assert graded.groups["SKIP_TO_PASS"].failure == ["skipped"] and graded.groups["NONE_TO_PASS"].failure == [
        "created"
    ]


def test_extra_tests_in_the_fix_run_do_not_matter() -> None:
    graded = mswb.grade(
        RUN, TEST, tr(["old", "flaky", "new", "brand_new"], [], ["another"]), {"f2p_tests": ["new"]}
    )
    assert graded.resolved


def test_local_rows_are_consistent_with_their_recorded_runs() -> None:
    for data in ROWS:
        report = mswb.transition_report(
            *(mswb._result(data[k]) for k in ("run_result", "test_patch_result", "fix_patch_result"))
        )
        assert report.valid
        for row_field, before, _ in mswb.GROUPS:
            assert sorted(data[row_field]) == sorted(report.sets[before]), (data["repo"], row_field)
        home = LOCAL / "instances" / mswb.FAMILY.row_id(data) / "home"  # type: ignore[operator]
        assert (home / "fix.patch").read_text() == data["fix_patch"] and (
            home / "test.patch"
        ).read_text() == data["test_patch"]
        assert (
            "git apply --whitespace=nowarn /home/test.patch /home/fix.patch"
            in (home / "fix-run.sh").read_text()
        )
    assert {k for data in ROWS for k in ("s2p_tests", "n2p_tests") if data[k]} == {"s2p_tests", "n2p_tests"}


# --- benchmark files and collection ----------------------------------------------------------------


def test_collect_offline_skips_the_hub_datasets_with_their_reason(tmp_path: Path) -> None:
    env = {"PYTEST_SWE_CACHE": str(tmp_path / "cache"), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    out = run_in_repo(
        "benchmarks/", "-k", "multi-swe-bench", "--collect-only", "-q", "-W", "default", env=env
    )
    assert out.returncode == 0, out.stdout + out.stderr
    for name, source in (
        ("multi-swe-bench", "ByteDance-Seed/Multi-SWE-bench"),
        ("multi-swe-bench-mini", "ByteDance-Seed/Multi-SWE-bench_mini"),
        ("multi-swe-bench-flash", "ByteDance-Seed/Multi-SWE-bench-flash"),
    ):
        assert f"benchmarks/{name}.yaml::{name}::{name}[dataset-unavailable]" in out.stdout
        assert f"benchmark '{name}': dataset unavailable" in out.stdout and source in out.stdout
    for instance_id in IDS:
        assert f"benchmarks/multi-swe-bench-local.yaml::multi-swe-bench-local::{instance_id}" in out.stdout


# --- end to end in Docker --------------------------------------------------------------------------


@pytest.fixture(scope="session")
def mswb_images(docker_engine: Any, base_image: str, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return build_local_images(docker_engine, tmp_path_factory, LOCAL_YAML, force=True)


def local_benchmark(project: SweProject, dataset: Path = DATASET) -> Path:
    return project.local("mswblocal", "multi-swe-bench", dataset, "images: {namespace: pytest-swe-mswb}\n")


@docker
def test_gold_resolves_every_row_and_malformed_rows_error_alone(
    swe_project: SweProject, mswb_images: list[str], tmp_path: Path
) -> None:
    tally = next(r for r in ROWS if r["repo"] == "tally")
    bad = [
        {k: v for k, v in dict(tally, instance_id="bad__no-number-1").items() if k != "number"},
        dict(tally, instance_id="bad__f2p-json-2", f2p_tests='{"tests/test_counter.py::x": '),
        dict(tally, instance_id="bad__parser-3", log_parser="junit_xml"),
    ]
    local_benchmark(swe_project, write_jsonl(tmp_path / "rows.jsonl", [*ROWS, *bad]))
    run = swe_project.run("benchmarks/", "--swe-agent", "gold")
    outcomes = run.outcomes()
    assert {i: outcomes[i] for i in IDS} == dict.fromkeys(IDS, "passed")
    ledgerline = run.by_id["acme__ledgerline-7"]
    assert (
        ledgerline.properties["skip_to_pass_passed"] == "1"
        and ledgerline.properties["none_to_pass_passed"] == "2"
    )
    run.assert_bad_rows(
        {
            "bad__no-number-1": ("row 3 (bad__no-number-1)", "field 'number'"),
            "bad__f2p-json-2": ("row 4 (bad__f2p-json-2)", "field 'f2p_tests'"),
            "bad__parser-3": ("row 5 (bad__parser-3)", "field 'log_parser'"),
        }
    )


@docker
def test_empty_patch_resolves_none(swe_project: SweProject, mswb_images: list[str]) -> None:
    local_benchmark(swe_project)
    run = swe_project.run("benchmarks/", "--swe-agent", "empty")
    run.result.assert_outcomes(failed=len(IDS))
    for case in run.cases:
        assert case.properties["reward"] == "0.0"
        assert "the patch is empty" in case.message and "the fix run recorded no test" in case.message


@docker
def test_wrong_patch_fails_naming_the_broken_test(swe_project: SweProject, mswb_images: list[str]) -> None:
    local_benchmark(swe_project)
    run = swe_project.run("benchmarks/", "--swe-predictions", str(PREDICTIONS))
    case = run.by_id["acme__tally-12"]
    assert case.outcome == "failed" and case.properties["patch_applied"] == "true"
    assert case.properties["apply_in"] == "eval_script"  # fix-run.sh applies the patch itself
    assert (
        "passed with the test patch but fail with the fix (PASS->FAIL): tests/test_counter.py::test_total"
        in case.message
    )
    assert (
        "PASS_TO_PASS failing (1 of 3)" in case.message
        and "tests/test_counter.py::test_total (FAILED)" in case.message
    )
    assert case.properties["f2p_passed"] == case.properties["f2p_total"] == "2"
    assert run.by_id["acme__ledgerline-7"].outcome == "skipped"
