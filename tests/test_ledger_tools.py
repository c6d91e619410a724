"""``pytest-swe merge`` and ``pytest-swe diff`` over JUnit ledgers, and ``report`` on a merged file."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from xml.sax.saxutils import quoteattr

import pytest

from pytest_swe.tools import report
from pytest_swe.tools.cli import main
from pytest_swe.tools.ledger_tools import diff_cases
from pytest_swe.tools.ledger_tools import merge_ledgers

RESULT_ELEMENT = {
    "failed": '<failure message="unresolved: F2P 0/1 passed">unresolved: F2P 0/1 passed&#10;  patch applied: yes</failure>',
    "error": '<error message="[eval_timeout] too slow"/>',
    "skipped": '<skipped type="pytest.skip" message="no prediction"/>',
    "passed": "",
}


def junit_case(instance_id: str, outcome: str, benchmark: str = "bench", **extra: str) -> str:
    props = {
        "reward": "1.0" if outcome == "passed" else "0.0",
        "outcome": outcome,
        "benchmark": benchmark,
        "instance_id": instance_id,
        "error_kind": "eval_timeout" if outcome == "error" else "",
        **extra,
    }
    properties = "".join(f"<property name={quoteattr(k)} value={quoteattr(v)}/>" for k, v in props.items())
    return (
        f'<testcase classname="benchmarks.{benchmark}.yaml.{benchmark}" name="{instance_id}" time="2.5">'
        f"<properties>{properties}</properties>{RESULT_ELEMENT[outcome]}"
        f"<system-out>out of {instance_id}</system-out></testcase>"
    )


def ledger(path: Path, cases: list[str], timestamp: str = "2026-01-01T00:00:00", **suite_props: str) -> Path:
    properties = "".join(
        f"<property name={quoteattr(k)} value={quoteattr(v)}/>" for k, v in suite_props.items()
    )
    path.write_text(
        '<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests">'
        f'<testsuite name="pytest" errors="0" failures="0" skipped="0" tests="{len(cases)}" time="9.0" '
        f'timestamp="{timestamp}" hostname="ci">'
        f"<properties>{properties}</properties>{''.join(cases)}</testsuite></testsuites>"
    )
    return path


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_swe.tools.cli", *args], capture_output=True, text=True, check=False
    )


def shards(tmp_path: Path) -> tuple[Path, Path]:
    a = ledger(
        tmp_path / "a.xml",
        [
            junit_case("i1", "passed", model="m"),
            junit_case("i2", "error"),
            junit_case("i3", "skipped"),
            '<testcase classname="tests.test_x" name="test_plain" time="0.1"/>',
        ],
        run_id="r1",
        grader_version="g1",
        benchmark="bench",
    )
    b = ledger(
        tmp_path / "b.xml",
        [
            junit_case("i2", "failed"),
            junit_case("i3", "error"),
            junit_case("i4", "passed"),
            junit_case("i1", "failed"),
        ],
        timestamp="2026-01-02T00:00:00",
        run_id="r2",
        grader_version="g1",
        benchmark="bench",
    )
    return a, b


def outcomes(path: Path) -> dict[str, str]:
    return {case.instance_id: case.outcome for case in report.read_cases(path)}


def test_merge_keeps_graded_over_error_over_skip_and_later_on_ties(tmp_path: Path) -> None:
    a, b = shards(tmp_path)
    merge_ledgers([a, b], tmp_path / "ab.xml")
    assert outcomes(tmp_path / "ab.xml") == {"i1": "failed", "i2": "failed", "i3": "error", "i4": "passed"}
    result = merge_ledgers([b, a], tmp_path / "ba.xml")
    assert outcomes(tmp_path / "ba.xml") == {"i1": "passed", "i2": "failed", "i3": "error", "i4": "passed"}
    assert result.cases == 4 and result.other_testcases == 1 and len(result.replaced) == 3
    assert {(kept.instance_id, dropped.outcome) for kept, dropped in result.replaced} == {
        ("i1", "failed"),
        ("i2", "error"),
        ("i3", "skipped"),
    }


def test_merge_preserves_testcases_and_joins_suite_properties(tmp_path: Path) -> None:
    a, b = shards(tmp_path)
    merged = tmp_path / "merged.xml"
    result = merge_ledgers([a, b], merged)
    by_id = {case.instance_id: case for case in report.read_cases(merged)}
    from_b = {case.instance_id: case for case in report.read_cases(b)}
    assert by_id["i1"].message == "unresolved: F2P 0/1 passed\n  patch applied: yes"  # the element's text
    assert by_id["i2"].properties == from_b["i2"].properties
    root = ET.parse(merged).getroot()
    suites = root.findall("testsuite")
    assert len(suites) == 1
    suite = suites[0]
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == (
        "5",
        "2",
        "1",
        "0",
    )
    assert suite.get("timestamp") == "2026-01-01T00:00:00"
    assert [c.findtext("system-out") for c in suite.iter("testcase") if c.get("name") == "i3"] == [
        "out of i3"
    ]
    assert suite.find("testcase[@name='test_plain']") is not None
    props = report.read_suite_properties(merged)
    assert props["run_id"] == "r1,r2" and props["grader_version"] == "g1" and props["benchmark"] == "bench"
    assert props["merged_from"] == f"{a},{b}"
    assert result.conflicting_properties == {"run_id": ["r1", "r2"]}


def test_report_reads_a_merged_ledger(tmp_path: Path) -> None:
    a, b = shards(tmp_path)
    merged = tmp_path / "merged.xml"
    out = cli("merge", str(merged), str(a), str(b))
    assert out.returncode == 0, out.stderr
    assert "4 instance(s) and 1 other testcase(s), 3 duplicate(s) settled" in out.stdout
    assert "duplicate bench/i2: kept failed, dropped error" in out.stderr
    summary = json.loads(cli("report", "--json", str(merged)).stdout)["overall"]
    assert (summary["total"], summary["resolved"], summary["unresolved"], summary["errors"]) == (4, 1, 2, 1)
    # merging a merged file with itself changes nothing
    again = tmp_path / "again.xml"
    assert cli("merge", str(again), str(merged), str(merged)).returncode == 0
    assert outcomes(again) == outcomes(merged)


def test_diff_lists_flips_by_kind(tmp_path: Path) -> None:
    before = ledger(
        tmp_path / "before.xml",
        [
            junit_case("i1", "passed"),
            junit_case("i2", "failed"),
            junit_case("i3", "error"),
            junit_case("i4", "passed"),
            junit_case("gone", "failed"),
            junit_case("i1", "failed", benchmark="other"),
        ],
    )
    after = ledger(
        tmp_path / "after.xml",
        [
            junit_case("i1", "failed"),
            junit_case("i2", "passed"),
            junit_case("i3", "failed"),
            junit_case("i4", "passed"),
            junit_case("new", "skipped"),
            junit_case("i1", "failed", benchmark="other"),
        ],
    )
    diff = diff_cases(report.read_cases(before), report.read_cases(after))
    kinds = {(flip.benchmark, flip.instance_id): flip.kind for flip in diff.flips}
    assert kinds == {
        ("bench", "i1"): "broken",
        ("bench", "i2"): "fixed",
        ("bench", "i3"): "changed",
        ("bench", "gone"): "only_a",
        ("bench", "new"): "only_b",
    }
    assert diff.unchanged == 2

    out = cli("diff", str(before), str(after))
    assert out.returncode == 1
    assert "fixed (unresolved in A, resolved in B): 1" in out.stdout
    assert "i3  error (eval_timeout) -> failed" in out.stdout
    assert "summary: fixed 1, broken 1, changed 1, only_a 1, only_b 1, unchanged 2" in out.stdout
    data = json.loads(cli("diff", "--json", str(before), str(after)).stdout)
    assert [flip["instance_id"] for flip in data["fixed"]] == ["i2"]
    assert data["broken"][0]["a"]["outcome"] == "passed" and data["broken"][0]["b"]["resolved"] is False
    assert data["a"]["resolved"] == 2 and data["b"]["resolved"] == 2


def test_diff_of_identical_runs_exits_zero(tmp_path: Path) -> None:
    a, _ = shards(tmp_path)
    out = cli("diff", str(a), str(a))
    assert out.returncode == 0 and "unchanged 3" in out.stdout


def test_unreadable_ledgers_are_reported(tmp_path: Path) -> None:
    missing = tmp_path / "missing.xml"
    assert cli("diff", str(missing), str(missing)).returncode == 2
    out = cli("merge", str(tmp_path / "o.xml"), str(missing))
    assert out.returncode == 2 and "pytest-swe merge:" in out.stderr


def test_report_counts_an_instance_in_two_files_once(tmp_path: Path) -> None:
    """Reporting a shard and its retry run together counts each instance once, by the merge rule."""
    from junitparser import Error
    from junitparser import JUnitXml
    from junitparser import Properties
    from junitparser import Property
    from junitparser import TestCase
    from junitparser import TestSuite

    def ledger(name: str, outcomes: dict[str, str]) -> Path:
        suite = TestSuite("pytest")
        for instance, outcome in outcomes.items():
            case = TestCase(instance, classname="benchmarks.b.yaml.b")
            props = Properties()
            for key, value in {
                "reward": "1.0" if outcome == "passed" else "0.0",
                "benchmark": "b",
                "instance_id": instance,
                "family": "swe-bench",
            }.items():
                props.add_property(Property(key, value))
            case.append(props)
            if outcome == "error":
                case.result = [Error("infra")]
            suite.add_testcase(case)
        xml = JUnitXml()
        xml.add_testsuite(suite)
        path = tmp_path / name
        xml.write(str(path))
        return path

    first = ledger("first.xml", {"a": "passed", "b": "error"})
    retry = ledger("retry.xml", {"b": "passed"})
    out = subprocess.run(
        [sys.executable, "-m", "pytest_swe.tools.cli", "report", "--json", str(first), str(retry)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    overall = json.loads(out.stdout)["overall"]
    assert overall["total"] == 2 and overall["resolved"] == 2 and overall["errors"] == 0
    assert "counted once" in out.stderr


LONG_FAILURE = "\n".join(
    [
        "unresolved: FAIL_TO_PASS 0/40 passed",
        *(f"    tests/test_m.py::test_{n} (FAILED) " + "x" * 30 for n in range(40)),
        "  eval_log: /runs/o__r-1/eval.log",
    ]
)


def test_ledger_tools_read_the_full_text_that_pytest_writes(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    """pytest 9.1 and later shorten the JUnit ``message`` attribute to about 500 characters; the
    tools read the element text, so nothing past the cut is lost (on any pytest)."""
    pytester.makepyfile(
        test_ledger=f"""
        import pytest

        LONG = {LONG_FAILURE!r}

        @pytest.fixture
        def props(record_property):
            for key, value in (("reward", "0.0"), ("benchmark", "b"), ("patch_sha256", "0" * 64),
                               ("patch_bytes", "10"), ("patch_exists", "true"), ("patch_applied", "true")):
                record_property(key, value)

        def test_failed(props, record_property):
            record_property("instance_id", "o__r-1")
            pytest.fail(LONG, pytrace=False)

        @pytest.fixture
        def timed_out(record_property):
            record_property("instance_id", "o__r-2")
            record_property("error_kind", "eval_timeout")
            raise RuntimeError("x" * 600 + " the eval did not finish within 42s")

        def test_error(props, timed_out):
            pass
        """
    )
    junit = tmp_path / "junit.xml"
    pytester.runpytest_subprocess(f"--junitxml={junit}", "-p", "no:cacheprovider")
    cases = {case.instance_id: case for case in report.read_cases(junit)}
    assert cases["o__r-1"].outcome == "failed" and cases["o__r-1"].message == LONG_FAILURE
    assert cases["o__r-2"].outcome == "error" and "did not finish within 42s" in cases["o__r-2"].message
    out = cli(
        "export",
        str(junit),
        "-o",
        str(tmp_path / "report.json"),
        "--logs",
        str(tmp_path / "logs"),
        "--model",
        "m",
        "--run-id",
        "r",
    )
    assert out.returncode == 0, out.stderr
    harness_log = next((tmp_path / "logs").rglob("o__r-1/run_instance.log")).read_text()
    assert "eval_log: /runs/o__r-1/eval.log" in harness_log
    timeout_log = next((tmp_path / "logs").rglob("o__r-2/test_output.txt")).read_text()
    assert "Timeout error: 42 seconds exceeded." in timeout_log


def test_commands_piped_to_a_closed_reader_exit_quietly(tmp_path: Path) -> None:
    """``pytest-swe report ... | head``: no BrokenPipeError traceback, for every command that prints."""
    big = ledger(
        tmp_path / "big.xml", [junit_case(f"o__r-{n}", "passed", repo=f"o/r{n}") for n in range(3000)]
    )
    other = ledger(tmp_path / "other.xml", [junit_case(f"o__r-{n}", "failed") for n in range(3000)])
    for args in (
        ["report", str(big), "--by", "repo"],
        ["report", str(big), "--json", "--by", "repo"],
        ["diff", str(big), str(other)],
    ):
        proc = subprocess.Popen(
            [sys.executable, "-m", "pytest_swe.tools.cli", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()
        proc.stdout.close()  # the reader goes away, as head does after its lines
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=60) == 141, (args, err)
        assert first and err == "", (args, err)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("<testsuites><testsuite>", "no element found"),
        ("<html/>", "Invalid format"),
        ("", "neither XML nor JSON lines; expected a JUnit XML file"),
        ("not a ledger", "neither XML nor JSON lines; expected a JUnit XML file"),
        ('{"nodeid": "a"}\nnot json\n{"nodeid": "b"}\n', "line 2 is not valid JSON; expected"),
    ],
)
def test_a_ledger_that_is_not_junit_is_reported_by_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, reason: str
) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_text(content)
    good, _ = shards(tmp_path)
    for command, prefix in [
        (["report", str(bad)], f"pytest-swe report: cannot read {bad}: "),
        (["diff", str(good), str(bad)], f"pytest-swe diff: cannot read {bad}: "),
        (["merge", str(tmp_path / "o.xml"), str(good), str(bad)], "pytest-swe merge: "),
        (["export", str(bad)], "pytest-swe export: "),
    ]:
        assert main(command) == 2, command
        err = capsys.readouterr().err
        assert err.startswith(prefix) and reason in err, (command, err)
    assert not (tmp_path / "o.xml").exists()
