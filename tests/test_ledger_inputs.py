"""The ledger tools read a JUnit file, a ``ledger.jsonl`` and a run directory alike, keep agents
apart, check ``--by``, and state the resolved rate over graded and over all items."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pytest_swe.tools import report
from pytest_swe.tools.cli import main
from tests.test_ledger_tools import junit_case
from tests.test_ledger_tools import ledger

ITEMS = """
import pytest

OUTCOMES = {"passed": "passed", "failed": "failed", "errored": "error", "skipped": "skipped", "param": "passed"}

@pytest.fixture
def item(request, record_property):
    name = request.node.originalname
    for key, value in (("reward", "1.0" if OUTCOMES[name[5:]] == "passed" else "0.0"), ("benchmark", "b"),
                       ("outcome", OUTCOMES[name[5:]]),
                       ("instance_id", name[5:]), ("agent", "gold"), ("repo", "o/r"),
                       ("patch_exists", "true"), ("patch_applied", "true")):
        record_property(key, value)

@pytest.fixture
def broken(item, record_property):
    record_property("error_kind", "eval_timeout")
    raise RuntimeError("the eval did not finish within 42s")

def test_passed(item):
    pass

def test_failed(item):
    pytest.fail("unresolved: FAIL_TO_PASS 0/1 passed", pytrace=False)

def test_errored(broken):
    pass

def test_skipped(item):
    pytest.skip("no prediction")

@pytest.mark.parametrize("n", [1])
def test_param(item, n):
    pass
"""


def run_items(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makepyfile(test_items=ITEMS)
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", "-o", "junit_family=xunit1", *args)


def comparable(cases: list[report.Case]) -> list[tuple[str, str, str, dict[str, str], str]]:
    return sorted((c.name, c.classname, c.outcome, c.properties, c.message) for c in cases)


def test_a_run_directory_and_its_ledger_read_as_the_junit_file(pytester: pytest.Pytester) -> None:
    junit, run_dir = pytester.path / "junit.xml", pytester.path / "run"
    run_items(pytester, f"--junitxml={junit}", f"--swe-run-dir={run_dir}").assert_outcomes(
        passed=2, failed=1, errors=1, skipped=1
    )
    from_junit = report.read_ledger(junit)
    assert {c.instance_id: c.outcome for c in from_junit.cases} == {
        "passed": "passed",
        "failed": "failed",
        "errored": "error",
        "skipped": "skipped",
        "param": "passed",
    }
    for other in (run_dir, run_dir / "ledger.jsonl"):
        read = report.read_ledger(other)
        assert comparable(read.cases) == comparable(from_junit.cases)
        assert read.properties["agent"] == "gold" and read.properties["benchmark"] == "b"


def test_every_command_takes_a_run_directory_and_a_ledger(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    junit, run_dir = pytester.path / "junit.xml", pytester.path / "run"
    run_items(pytester, f"--junitxml={junit}", f"--swe-run-dir={run_dir}")
    capsys.readouterr()
    summaries = []
    for source in (junit, run_dir, run_dir / "ledger.jsonl"):
        assert main(["report", "--json", str(source)]) == 0
        summaries.append(json.loads(capsys.readouterr().out))
    assert summaries[0] == summaries[1] == summaries[2]
    assert main(["diff", str(junit), str(run_dir)]) == 0
    assert "unchanged 5" in capsys.readouterr().out
    exports = []
    for source in (junit, run_dir):
        out = pytester.path / f"{source.name}.report.json"
        assert main(["export", str(source), "-o", str(out), "--model", "m"]) == 0
        exports.append(json.loads(out.read_text()))
    assert exports[0] == exports[1] and exports[0]["total_instances"] == 5
    merged = pytester.path / "merged.xml"
    assert main(["merge", str(merged), str(run_dir / "ledger.jsonl")]) == 0
    assert comparable(report.read_cases(merged)) == comparable(report.read_cases(junit))


def test_a_directory_without_a_ledger_is_named_with_what_was_expected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path}: a directory without ledger.jsonl; expected a JUnit XML file" in err


def test_swe_runs_latest_points_at_the_newest_run(pytester: pytest.Pytester) -> None:
    run_items(pytester)
    latest = pytester.path / "swe-runs" / "latest"
    first = latest.resolve()
    assert latest.is_symlink() and (latest / "ledger.jsonl").is_file()
    assert not os.readlink(latest).startswith("/")  # relative: the folder can move
    run_items(pytester)
    runs = sorted(p for p in (pytester.path / "swe-runs").iterdir() if p.name != "latest")
    assert len(runs) == 2 and latest.resolve() != first and latest.resolve() in runs
    assert [p.name for p in (pytester.path / "swe-runs").iterdir() if p.name.startswith(".")] == []
    assert main(["report", str(latest)]) == 0


def test_a_run_dir_given_elsewhere_makes_no_latest(pytester: pytest.Pytester) -> None:
    run_items(pytester, "--swe-run-dir=elsewhere/r")
    assert not (pytester.path / "elsewhere" / "latest").exists()
    assert not (pytester.path / "swe-runs").exists()


def two_agents(tmp_path: Path) -> tuple[Path, Path]:
    a = ledger(
        tmp_path / "a.xml",
        [junit_case("i1", "passed", agent="gold"), junit_case("i2", "passed", agent="gold")],
    )
    b = ledger(
        tmp_path / "b.xml",
        [junit_case("i1", "failed", agent="empty"), junit_case("i2", "failed", agent="empty")],
    )
    return a, b


def test_report_of_two_agents_keeps_each_agents_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = two_agents(tmp_path)
    assert main(["report", "--json", "--by", "agent", str(a), str(b)]) == 0
    captured = capsys.readouterr()
    by_agent = json.loads(captured.out)["by_agent"]
    assert {name: (s["resolved"], s["total"]) for name, s in by_agent.items()} == {
        "empty": (0, 2),
        "gold": (2, 2),
    }
    assert "more than once" not in captured.err
    merged = tmp_path / "merged.xml"
    assert main(["merge", str(merged), str(a), str(b)]) == 0
    assert sorted((c.agent, c.instance_id) for c in report.read_cases(merged)) == [
        ("empty", "i1"),
        ("empty", "i2"),
        ("gold", "i1"),
        ("gold", "i2"),
    ]


def test_by_accepts_only_known_properties(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, _ = two_agents(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(["report", "--by", "agnet", str(a)])
    assert exc.value.code == 2
    assert "invalid choice: 'agnet'" in capsys.readouterr().err


def test_by_repo_groups_by_the_recorded_repo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = ledger(
        tmp_path / "a.xml",
        [
            junit_case("django__django-1", "passed", repo="django/django"),
            junit_case("django__django-2", "failed", repo="django/django"),
            junit_case("fork__django-3", "passed", repo="django/django"),
            junit_case("x-1", "passed"),
        ],
    )
    assert main(["report", "--json", "--by", "repo", str(path)]) == 0
    by_repo = json.loads(capsys.readouterr().out)["by_repo"]
    assert {name: s["total"] for name, s in by_repo.items()} == {"django/django": 3, "(none)": 1}


def test_the_resolved_rate_is_given_over_graded_and_over_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = ledger(
        tmp_path / "a.xml",
        [
            junit_case("i1", "passed"),
            junit_case("i2", "failed"),
            junit_case("i3", "error"),
            junit_case("i4", "skipped"),
        ],
    )
    assert main(["report", "--json", str(path)]) == 0
    overall = json.loads(capsys.readouterr().out)["overall"]
    assert (overall["graded"], overall["total"]) == (3, 4)
    assert overall["resolved_rate"] == round(1 / 3, 4) and overall["resolved_rate_total"] == 0.25
    assert main(["report", str(path)]) == 0
    text = capsys.readouterr().out
    assert "1/3" in text and "33.3% of graded" in text and "1/4" in text and "25.0% of total" in text
