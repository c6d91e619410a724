"""SWE-bench grading with the official harness's semantics (``swebench`` 5.0.2).

* A log is invalid (no status map) when it holds a bad code (patch apply failed, reset
  failed, tests errored, tests timed out), lacks either marker, yields no parsed tests and
  no sign the suite ran, or records a non-zero test exit code while reporting no failure.
* F2P: PASSED or XFAIL succeed; missing, FAILED, ERROR and SKIPPED fail.
* P2P: as F2P, except SKIPPED counts as maintained.
* ``fail_only`` rows: a test fails only when present and FAILED.
* A truncated parametrized id (more ``[`` than ``]``) is prefix-matched when the
  candidates agree on pass versus fail.
* FULL iff both ratios are 1 (an empty group counts as 1); PARTIAL iff 0 < F2P < 1 and
  P2P is 1; NO otherwise. Resolved iff FULL.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass

from pytest_swe.api.task import Task
from pytest_swe.api.verdict import TestGroup
from pytest_swe.api.verdict import TestStatus
from pytest_swe.api.verdict import Verdict

GRADER_VERSION = "pytest-swe/swebench-grader-1 (swebench 5.0.2 semantics)"

START_MARK = ">>>>> Start Test Output"
END_MARK = ">>>>> End Test Output"
EXIT_CODE_MARK = ">>>>> Test Exit Code"
EXIT_CODE_VAR = "SWEBENCH_TEST_EXIT_CODE"
BAD_CODES = (
    ">>>>> Patch Apply Failed",
    ">>>>> Reset Failed",
    ">>>>> Tests Errored",
    ">>>>> Tests Timed Out",
)
FAIL_TO_PASS = "FAIL_TO_PASS"
PASS_TO_PASS = "PASS_TO_PASS"
PASS_AND_FAIL = "pass_and_fail"
FAIL_ONLY = "fail_only"

# Repositories whose rows grade failures only (used when a row carries no eval_type).
FAIL_ONLY_REPOS = frozenset(
    {
        "chartjs/Chart.js",
        "processing/p5.js",
        "markedjs/marked",
        "bpmn-io/bpmn-js",
        "openlayers/openlayers",
        "eslint/eslint",
    }
)

# Evidence, in a log with no parsed tests, that a runner executed at least one test.
SUITE_RAN = re.compile(
    r"Executed [1-9]\d* of \d+"
    r"|TOTAL: [1-9]\d* (?:SUCCESS|FAILED)"
    r"|[1-9]\d* passing"
    r"|Tests:\s+[1-9]\d*"
    r"|Test Suites:\s+(?:\d+ \w+, )*[1-9]\d* total"
    r"|^# tests [1-9]\d*"
    r"|[1-9]\d* specs?, \d+ failures?"
    r"|': ok$",
    re.M,
)
_EXIT_CODE = re.compile(rf"{re.escape(EXIT_CODE_MARK)}:\s*(-?\d+)")

_PASSING = frozenset({TestStatus.PASSED.value, TestStatus.XFAIL.value})
_FAILING = frozenset({TestStatus.FAILED.value, TestStatus.ERROR.value, TestStatus.SKIPPED.value})

StatusMap = Mapping[str, str]
LogParser = Callable[[str], dict[str, str]]


def record_exit_code(script: str) -> str:
    """Make an eval script record its test command's own exit status after the end marker.

    The scripts end by resetting the test files and run without ``set -e``, so the
    script's status is the reset's; the value is echoed after the end marker to keep it
    out of the parsed region. Scripts without an end marker are returned unchanged.
    """
    lines = script.strip().split("\n")
    for i, line in enumerate(lines):
        if END_MARK in line:
            lines[i : i + 1] = [f"{EXIT_CODE_VAR}=$?", line, f'echo "{EXIT_CODE_MARK}: ${EXIT_CODE_VAR}"']
            break
    return "\n".join(lines) + "\n"


def test_exit_code(log: str) -> int | None:
    match = _EXIT_CODE.search(log)
    return int(match.group(1)) if match else None


@dataclass
class LogEval:
    status_map: dict[str, str]
    valid: bool
    reason: str = ""
    exit_code: int | None = None


def evaluate_log(log: str, parse: LogParser) -> LogEval:
    """The status map of an eval log, or why the log is invalid (``get_logs_eval`` semantics)."""
    exit_code = test_exit_code(log)
    bad = [code for code in BAD_CODES if code in log]
    if bad:
        return LogEval({}, False, f"the log contains {bad[0]!r}", exit_code)
    if START_MARK not in log or END_MARK not in log:
        missing = START_MARK if START_MARK not in log else END_MARK
        return LogEval(
            {}, False, f"the log lacks the {missing!r} marker (the tests did not run to the end)", exit_code
        )
    # The section ends at the next start marker too, as the official grader cuts it: a test run
    # that prints the marker again hides what follows from the parser on both harnesses.
    section = log.split(START_MARK)[1].split(END_MARK)[0]
    status_map = parse(section)
    if not status_map:
        status_map = parse(log)
    if not status_map and not SUITE_RAN.search(log):
        return LogEval({}, False, "no test results in the log and no sign the test suite ran", exit_code)
    if (
        exit_code not in (None, 0)
        and status_map
        and not any(s in (TestStatus.FAILED.value, TestStatus.ERROR.value) for s in status_map.values())
    ):
        return LogEval(
            {},
            False,
            f"the test command exited with status {exit_code} but the log reports no failure",
            exit_code,
        )
    return LogEval(status_map, True, "", exit_code)


def resolve_case(case: str, status_map: StatusMap) -> str | None:
    """The status-map key for ``case``, prefix-matching truncated parametrized ids."""
    if case in status_map:
        return case
    if case.count("[") > case.count("]"):
        matches = [key for key in status_map if key.startswith(case)]
        if matches and len({status_map[key] in _PASSING for key in matches}) == 1:
            return matches[0]
    return None


def case_passed(case: str, status_map: StatusMap) -> bool:
    key = resolve_case(case, status_map)
    return key is not None and status_map[key] in _PASSING


def case_maintained(case: str, status_map: StatusMap) -> bool:
    key = resolve_case(case, status_map)
    return case_passed(case, status_map) or (key is not None and status_map[key] == TestStatus.SKIPPED.value)


def case_failed(case: str, status_map: StatusMap) -> bool:
    key = resolve_case(case, status_map)
    return key is None or status_map[key] in _FAILING


def _grade_group(
    cases: Iterable[str], status_map: StatusMap, succeeded: Callable[[str, StatusMap], bool], eval_type: str
) -> TestGroup:
    group = TestGroup()
    for case in cases:
        if eval_type == FAIL_ONLY:
            failed = case in status_map and status_map[case] == TestStatus.FAILED.value
            (group.failure if failed else group.success).append(case)
        elif succeeded(case, status_map):
            group.success.append(case)
        elif case_failed(case, status_map):
            group.failure.append(case)
    return group


def tests_report(
    status_map: StatusMap,
    fail_to_pass: Iterable[str],
    pass_to_pass: Iterable[str],
    eval_type: str = PASS_AND_FAIL,
) -> dict[str, TestGroup]:
    return {
        FAIL_TO_PASS: _grade_group(fail_to_pass, status_map, case_passed, eval_type),
        PASS_TO_PASS: _grade_group(pass_to_pass, status_map, case_maintained, eval_type),
    }


def _ratio(group: TestGroup) -> float:
    return 1.0 if group.total == 0 else len(group.success) / group.total


EMPTY_F2P_REASON = "the row's FAIL_TO_PASS list is empty, so no test can tell a fix from no change"


def settle(
    verdict: Verdict,
    report: dict[str, TestGroup],
    *,
    valid: bool,
    refuse_no_fail_to_pass: bool = False,
    empty_reason: str = EMPTY_F2P_REASON,
) -> Verdict:
    """Record a SWE-bench report on the verdict and decide it: resolved iff FULL, a patch exists
    and the log is valid. ``refuse_no_fail_to_pass`` (set by families other than SWE-bench when the
    row lists no FAIL_TO_PASS test) refuses what the official rule would resolve for any patch."""
    verdict.tests_status = report
    verdict.resolution = resolution(report) if valid else "RESOLVED_NO"
    if refuse_no_fail_to_pass:
        verdict.reasons.append(empty_reason)
    verdict.resolved = (
        verdict.resolution == "RESOLVED_FULL"
        and verdict.patch_exists
        and valid
        and not refuse_no_fail_to_pass
    )
    return verdict


def settle_log(verdict: Verdict, log_eval: LogEval, task: Task, eval_type: str = PASS_AND_FAIL) -> Verdict:
    """Record what the log checks found and decide the verdict by the F2P/P2P report: an invalid
    log never resolves, and neither does a row with an empty FAIL_TO_PASS."""
    verdict.test_exit_code = log_eval.exit_code
    verdict.log_valid = log_eval.valid
    verdict.test_results = log_eval.status_map
    if not log_eval.valid:
        verdict.reasons.append(f"invalid test log: {log_eval.reason}")
    report = tests_report(log_eval.status_map, task.fail_to_pass, task.pass_to_pass, eval_type)
    return settle(verdict, report, valid=log_eval.valid, refuse_no_fail_to_pass=not task.fail_to_pass)


def resolution(report: Mapping[str, TestGroup]) -> str:
    f2p = _ratio(report[FAIL_TO_PASS])
    p2p = _ratio(report[PASS_TO_PASS])
    if f2p == 1 and p2p == 1:
        return "RESOLVED_FULL"
    if 0 < f2p < 1 and p2p == 1:
        return "RESOLVED_PARTIAL"
    return "RESOLVED_NO"
