"""Classic SWE-bench rows end to end: ``benchmarks/swebench-classic-local.yaml`` on a real Docker engine.

The benchmark's two rows have the classic form (no eval_script, image, log_parser or eval_type),
so the family builds their eval scripts from the benchmark's own specs (``family_options.specs``)
in the official shape, and their images follow the official layout (/testbed, a conda
``testbed`` activation). Checked against the official harness:

* the eval scripts equal what ``swebench`` 4.1.0 generates for the same rows and specs;
* gold resolves and empty does not, and every item's per-test lists (``verdict.json``, JUnit
  counts) equal those of the official 5.0.2 ``get_eval_report`` on the same eval log;
* the exported run report equals the official ``make_run_report`` over the exported logs, and
  ``diff``/``merge``/``report`` work on the real ledgers.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock
from official_grader import OfficialGrader

from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import RowError
from pytest_swe.families.swebench import grading
from pytest_swe.tools import report

from conftest import REPO
from conftest import SWEBENCH_CLASSIC_COLUMNS
from conftest import _build_lock
from conftest import build_local_images
from conftest import image_builder
from conftest import official_python
from conftest import read_jsonl
from conftest import require_docker
from conftest import run_shared_dir

BENCHMARK = REPO / "benchmarks" / "swebench-classic-local.yaml"
DATA = REPO / "benchmarks" / "swebench-classic-local"
ROWS = read_jsonl(DATA / "rows.jsonl")
ROWS_BY_ID = {row["instance_id"]: row for row in ROWS}
CLASSIC_COLUMNS = set(SWEBENCH_CLASSIC_COLUMNS)
# Runs in the 4.1.0 venv: the benchmark's specs go into the official table, then the official
# generator writes each row's eval script (the environment script, which downloads, is stubbed).
V4_SCRIPTS = """
import json, sys
import swebench.harness.test_spec.test_spec as test_spec
from swebench.harness.constants import MAP_REPO_TO_EXT, MAP_REPO_VERSION_TO_SPECS
request = json.load(sys.stdin)
test_spec.make_env_script_list = lambda *args, **kwargs: []
for repo, versions in request["specs"].items():
    MAP_REPO_VERSION_TO_SPECS[repo] = versions
    MAP_REPO_TO_EXT[repo] = "py"
json.dump({row["instance_id"]: test_spec.make_test_spec(row).eval_script for row in request["rows"]}, sys.stdout)
"""


def load_benchmark() -> tuple[Any, Any, list[dict[str, Any]]]:
    from pytest_swe.tools.cli import _load_benchmark

    return _load_benchmark(str(BENCHMARK))


# --- the data and the scripts (no Docker) ------------------------------------------------------


def test_rows_are_classic_and_up_to_date() -> None:
    assert len(ROWS) == 2 and all(set(row) == CLASSIC_COLUMNS for row in ROWS)
    check = subprocess.run(
        [sys.executable, str(DATA / "make_rows.py"), "--check"], capture_output=True, text=True, check=False
    )
    assert check.returncode == 0, check.stderr


def test_eval_scripts_match_official_v4() -> None:
    python = official_python("4.1.0")
    settings, family, rows = load_benchmark()
    specs = {
        repo: {version: dict(fields) for version, fields in entry["versions"].items()}
        for repo, entry in settings.family_options["specs"].items()
    }
    out = subprocess.run(
        [str(python), "-c", V4_SCRIPTS],
        input=json.dumps({"rows": rows, "specs": specs}),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    official = json.loads(out.stdout)
    assert len(rows) == 2 and set(official) == {row["instance_id"] for row in rows}
    for row in rows:
        task = family.normalize(row, settings)
        assert task.eval_script == official[row["instance_id"]], row["instance_id"]
        assert "conda activate testbed" in task.eval_script and task.log_parser == "parse_log_pytest"


def test_benchmark_specs_name_what_is_wrong() -> None:
    settings, family, rows = load_benchmark()
    unknown_version = {**rows[0], "version": "9.9"}
    with pytest.raises(RowError, match=r"version 9\.9"):
        family.normalize(unknown_version, settings)
    misspelt = {"log_parser": "parse_log_pytest", "versions": {rows[0]["version"]: {"test_command": "x"}}}
    bad = settings.model_copy(update={"family_options": {"specs": {rows[0]["repo"]: misspelt}}})
    with pytest.raises(ConfigError, match="test_command"):
        family.normalize(rows[0], bad)


# --- end to end on Docker ----------------------------------------------------------------------


def run_pytest(work: Path, name: str, agent: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            str(BENCHMARK),
            "--swe-agent",
            agent,
            f"--junitxml={work / f'{name}.xml'}",
            f"--swe-run-dir={work / f'run-{name}'}",
            "-p",
            "no:cacheprovider",
            "-q",
        ],
        cwd=work,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


@pytest.fixture(scope="module")
def classic_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The benchmark run once with gold and once with empty (at the same time); their JUnit files.

    The runs happen once per test session: the first xdist worker to get here runs them in a
    directory every worker sees, the others wait for it and read the same files.
    """
    from pytest_swe.tools import images

    shared = run_shared_dir(tmp_path_factory)
    work = shared / "classic-runs"
    junits = {name: work / f"{name}.xml" for name in ("gold", "empty")}
    with FileLock(str(shared / "classic-runs.lock")):
        if (work / "done").exists():
            return junits
        client = require_docker()
        with _build_lock(tmp_path_factory):
            images.build_base(image_builder(), log=lambda _: None)
        build_local_images(client, tmp_path_factory, BENCHMARK)
        work.mkdir(exist_ok=True)
        processes = {name: run_pytest(work, name, name) for name in junits}
        for name, process in processes.items():
            output, _ = process.communicate(timeout=600)
            assert junits[name].exists(), output
        (work / "done").touch()
    return junits


@pytest.fixture(scope="module")
def official() -> Iterator[OfficialGrader]:
    grader = OfficialGrader()
    yield grader
    grader.close()


@pytest.mark.docker
def test_gold_resolves_and_empty_does_not(classic_runs: dict[str, Path]) -> None:
    expected = {"gold": "passed", "empty": "failed"}
    for name, junit in classic_runs.items():
        cases = report.read_cases(junit)
        assert {c.instance_id: c.outcome for c in cases} == dict.fromkeys(ROWS_BY_ID, expected[name])
        for case in cases:
            assert case.properties["grader_version"] == grading.GRADER_VERSION
            assert case.properties["log_valid"] == "true"
            row = ROWS_BY_ID[case.instance_id]
            assert case.properties["f2p_total"] == str(len(json.loads(row["FAIL_TO_PASS"])))
            assert case.properties["p2p_passed"] == case.properties["p2p_total"]
        assert report.read_suite_properties(junit)["grader_version"] == grading.GRADER_VERSION


@pytest.mark.docker
def test_per_test_lists_match_official(classic_runs: dict[str, Path], official: OfficialGrader) -> None:
    checked = 0
    for junit in classic_runs.values():
        for case in report.read_cases(junit):
            row = ROWS_BY_ID[case.instance_id]
            spec = {
                "instance_id": case.instance_id,
                "repo": row["repo"],
                "version": row["version"],
                "log_parser": "parse_log_pytest",
                "eval_type": "pass_and_fail",
                "FAIL_TO_PASS": json.loads(row["FAIL_TO_PASS"]),
                "PASS_TO_PASS": json.loads(row["PASS_TO_PASS"]),
            }
            prediction = {
                "instance_id": case.instance_id,
                "model_name_or_path": case.properties["model"],
                "model_patch": Path(case.properties["patch_path"]).read_text(),
            }
            log = Path(case.properties["eval_log_path"]).read_text()
            theirs = official.eval_report(log, spec, prediction)[case.instance_id]
            verdict = json.loads(Path(case.properties["verdict_path"]).read_text())
            for group in ("FAIL_TO_PASS", "PASS_TO_PASS"):
                assert verdict["tests_status"][group] == theirs["tests_status"][group], (
                    case.instance_id,
                    group,
                )
            f2p = theirs["tests_status"]["FAIL_TO_PASS"]
            assert case.properties["f2p_passed"] == str(len(f2p["success"]))
            assert verdict["resolved"] is theirs["resolved"] is (case.outcome == "passed")
            checked += 1
    assert checked == 4


@pytest.mark.docker
def test_export_diff_and_merge_on_real_ledgers(
    classic_runs: dict[str, Path], official: OfficialGrader, tmp_path: Path
) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pytest_swe.tools.cli", *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            check=False,
        )

    gold, empty = classic_runs["gold"], classic_runs["empty"]
    out = cli(
        "export",
        str(gold),
        "--logs",
        "logs",
        "--predictions",
        "preds.jsonl",
        "-o",
        "gold.json",
        "--run-id",
        "r",
    )
    assert out.returncode == 0, out.stderr
    ours = json.loads((tmp_path / "gold.json").read_text())
    predictions = {
        row["instance_id"]: row
        for row in map(json.loads, (tmp_path / "preds.jsonl").read_text().splitlines())
    }
    theirs = official.run_report(tmp_path, predictions, [{"instance_id": i} for i in ROWS_BY_ID], "r")
    assert ours == theirs and ours["resolved_instances"] == 2
    for instance_id, row in ROWS_BY_ID.items():
        directory = tmp_path / "logs" / "run_evaluation" / "r" / "gold" / instance_id
        spec = {
            "instance_id": instance_id,
            "log_parser": "parse_log_pytest",
            "eval_type": "pass_and_fail",
            "FAIL_TO_PASS": json.loads(row["FAIL_TO_PASS"]),
            "PASS_TO_PASS": json.loads(row["PASS_TO_PASS"]),
        }
        prediction = {"instance_id": instance_id, "model_name_or_path": "gold", "model_patch": row["patch"]}
        official_report = official.eval_report((directory / "test_output.txt").read_text(), spec, prediction)
        assert json.loads((directory / "report.json").read_text()) == official_report

    out = cli("export", str(empty), "-o", "empty.json")
    assert out.returncode == 0, out.stderr
    assert json.loads((tmp_path / "empty.json").read_text())["empty_patch_instances"] == 2

    out = cli("diff", "--json", str(gold), str(empty))
    assert out.returncode == 1
    assert sorted(flip["instance_id"] for flip in json.loads(out.stdout)["broken"]) == sorted(ROWS_BY_ID)

    assert cli("merge", "merged.xml", str(empty), str(gold)).returncode == 0
    summary = json.loads(cli("report", "--json", "merged.xml").stdout)["overall"]
    # two agents' runs stay apart, (agent, instance) by (agent, instance): empty's 2 and gold's 2
    assert (summary["total"], summary["resolved"]) == (4, 2)
    suite = report.read_suite_properties(tmp_path / "merged.xml")
    assert suite["grader_version"] == grading.GRADER_VERSION and suite["agent"] == "empty,gold"
