"""``pytest-swe regrade``: a saved run graded again from its logs, with no sandbox."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.api.errors import NotApplicable
from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.api.task import Task
from pytest_swe.api.verdict import Verdict
from pytest_swe.families import logparsers
from pytest_swe.families.nv_internal import FAMILY as NV_FAMILY
from pytest_swe.families.swebench import FAMILY as SWEBENCH
from pytest_swe.tools import cli
from pytest_swe.tools import report
from pytest_swe.tools.regrade import JUNIT_NAME

from conftest import DEMO_DIR
from conftest import REPO
from conftest import SweProject
from conftest import build_local_images
from conftest import read_jsonl

PREDICTIONS = str(DEMO_DIR / "predictions-wrong.jsonl")
CHANGING = {"verdict_path", "regraded"}


def comparable(entry: dict[str, Any]) -> tuple[str, dict[str, Any], str]:
    """An entry's outcome, properties and message, without what a regrade writes anew (its paths)."""
    props = {k: v for k, v in entry["properties"].items() if k not in CHANGING}
    message = "\n".join(line for line in entry["message"].split("\n") if not line.startswith("  verdict: "))
    return entry["outcome"], props, message


def regrade(run_dir: Path, output: Path) -> dict[str, dict[str, Any]]:
    assert cli.main(["regrade", str(run_dir), "-o", str(output)]) == 0
    return {e["properties"]["instance_id"]: e for e in read_jsonl(output / "ledger.jsonl")}


@pytest.mark.docker
def test_regrade_gives_the_runs_ledger_and_a_changed_parser_changes_only_its_verdicts(
    swe_project: SweProject, demo_images: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    swe_project.demo()
    run = swe_project.run("benchmarks/", "--swe-predictions", PREDICTIONS)
    original = {e["properties"]["instance_id"]: e for e in run.ledger()}
    assert {"passed", "failed", "skipped"} <= {e["outcome"] for e in original.values()}

    same = regrade(run.run_dir, tmp_path / "same")
    assert {k: comparable(e) for k, e in same.items()} == {k: comparable(e) for k, e in original.items()}
    ran = {k for k, e in original.items() if e["properties"].get("eval_log_path")}
    assert ran == {"demo__calc-1", "demo__confkit-1", "demo__envfile-1", "demo__routes-1"}
    assert {k for k, e in same.items() if e["properties"]["regraded"] == "yes"} == ran
    assert same["demo__pager-1"]["properties"]["regraded"].startswith("no: the tests never ran")
    assert same["demo__ledger-1"]["properties"]["regraded"].startswith("no: the item was not graded")
    cases = {c.instance_id: c.outcome for c in report.read_cases(tmp_path / "same" / JUNIT_NAME)}
    assert cases == {k: e["outcome"] for k, e in original.items()}

    # A parser that reads one test of one instance as failed: that verdict, and no other, changes.
    target = "demo__envfile-1"
    assert original[target]["outcome"] == "passed"
    flipped = json.loads((run.run_dir / "demo" / target / "task.json").read_text())["fail_to_pass"][0]
    real = logparsers.get_parser

    def get_parser(name: str, **kwargs: Any) -> Any:
        parse = real(name, **kwargs)

        def changed(text: str, ctx: Any) -> dict[str, str]:
            status = dict(parse(text, ctx))
            if ctx.instance_id == target and flipped in status:
                status[flipped] = "FAILED"
            return status

        return changed

    monkeypatch.setattr(logparsers, "get_parser", get_parser)
    after = regrade(run.run_dir, tmp_path / "changed")
    differ = {k for k in original if comparable(after[k]) != comparable(original[k])}
    assert differ == {target}
    assert after[target]["outcome"] == "failed" and flipped in after[target]["message"]
    verdict = json.loads(Path(after[target]["properties"]["verdict_path"]).read_text())
    assert verdict["test_results"][flipped] == "FAILED" and verdict["extra"]["regraded"]["original_resolved"]


def _task(**fields: Any) -> Task:
    return Task(
        family="swe-bench", instance_id="x__y-1", image="img", log_parser="parse_log_pytest", **fields
    )


LOG = ">>>>> Start Test Output\nPASSED t.py::test_a\n>>>>> End Test Output\n>>>>> Test Exit Code: 0\n"


def test_regrade_keeps_the_live_runs_integrity_decisions() -> None:
    """Tampering found by the probe cannot be seen in a log: the regraded verdict keeps it."""
    settings = BenchmarkSettings.model_validate(
        {
            "name": "b",
            "family": "swe-bench",
            "dataset": {"source": "d.jsonl"},
            "agent": {"name": "gold"},
            "provider": {"name": "docker"},
        }
    )
    task = _task(fail_to_pass=["t.py::test_a"], raw={"eval_type": "pass_and_fail"})
    clean = Verdict(resolved=True, patch_exists=True, patch_applied=True)
    assert SWEBENCH.regrade(task, LOG, clean, settings).resolved
    tampered = Verdict(
        resolved=False,
        patch_exists=True,
        patch_applied=True,
        tamper=["[evidence] channel: a required test passed in the log but not in the channel"],
        suspicious=["a note"],
        extra={"policy": "strict (pytest-swe/grading-2)", "neutralized": ["tests/conftest.py (a test file)"]},
    )
    again = SWEBENCH.regrade(task, LOG, tampered, settings)
    assert not again.resolved and again.extra["resolved_without_policy"]
    assert again.tamper == tampered.tamper and again.suspicious == ["a note"]
    assert again.extra["neutralized"] == tampered.extra["neutralized"]
    assert "kept from the original verdict" in again.extra["regraded"]["integrity"]
    assert again.reasons[0].startswith("tampering detected")


def test_a_family_that_does_not_grade_from_one_log_cannot_regrade() -> None:
    with pytest.raises(NotApplicable, match="cannot regrade from a saved log"):
        NV_FAMILY.regrade(_task(), LOG, Verdict(resolved=False), None)  # type: ignore[arg-type]


def test_regrade_of_a_directory_without_a_ledger_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["regrade", str(tmp_path)]) == 2
    assert "no ledger.jsonl" in capsys.readouterr().err


LOCAL_BENCHMARKS = ["swe-rebench-local", "swe-rebench-v2-local", "swe-smith-local", "r2e-gym-local"]


@pytest.mark.docker
@pytest.mark.parametrize("benchmark_name", LOCAL_BENCHMARKS)
def test_regrade_of_each_log_grading_familys_local_run_gives_its_ledger(
    swe_project: SweProject,
    docker_engine: Any,
    base_image: str,
    tmp_path_factory: pytest.TempPathFactory,
    tmp_path: Path,
    benchmark_name: str,
) -> None:
    yaml = REPO / "benchmarks" / f"{benchmark_name}.yaml"
    build_local_images(docker_engine, tmp_path_factory, yaml)
    run = swe_project.run(str(yaml), "--swe-agent", "gold")
    original = {e["properties"]["instance_id"]: e for e in run.ledger()}
    assert original and all(e["outcome"] == "passed" for e in original.values()), run.result.stdout.str()[
        -3000:
    ]
    again = regrade(run.run_dir, tmp_path / "regraded")
    assert {k: comparable(e) for k, e in again.items()} == {k: comparable(e) for k, e in original.items()}
    assert all(e["properties"]["regraded"] == "yes" for e in again.values())
