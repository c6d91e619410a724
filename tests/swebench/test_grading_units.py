"""The official grading rules, stated as facts (no official venv needed; see test_grading_official.py)."""

from __future__ import annotations

from pytest_swe.families.logparsers import ParseContext
from pytest_swe.families.logparsers import get_parser
from pytest_swe.families.swebench import grading

START = "+ : '>>>>> Start Test Output'"
END = "+ : '>>>>> End Test Output'"


def evaluate(*lines: str) -> grading.LogEval:
    parser = get_parser("parse_log_pytest")
    return grading.evaluate_log("\n".join(lines) + "\n", lambda text: parser(text, ParseContext()))


def lists(
    status_map: dict[str, str], f2p: list[str], p2p: list[str], eval_type: str = grading.PASS_AND_FAIL
) -> dict:
    report = grading.tests_report(status_map, f2p, p2p, eval_type)
    return {name: (group.success, group.failure) for name, group in report.items()} | {
        "resolution": grading.resolution(report)
    }


def test_skipped_fails_fail_to_pass_but_keeps_pass_to_pass() -> None:
    assert lists({"a": "SKIPPED", "b": "SKIPPED"}, ["a"], ["b"]) == {
        "FAIL_TO_PASS": ([], ["a"]),
        "PASS_TO_PASS": (["b"], []),
        "resolution": "RESOLVED_NO",
    }


def test_xfail_passes_and_missing_fails() -> None:
    assert lists({"a": "XFAIL"}, ["a", "gone"], [])["FAIL_TO_PASS"] == (["a"], ["gone"])


def test_fail_only_fails_only_present_failures() -> None:
    result = lists({"a": "FAILED", "b": "ERROR"}, ["a", "b", "gone"], [], grading.FAIL_ONLY)
    assert result["FAIL_TO_PASS"] == (["b", "gone"], ["a"])


def test_truncated_ids_match_by_prefix_only_when_unambiguous() -> None:
    agree = {"t[a-1]": "PASSED", "t[a-2]": "XFAIL"}
    assert lists(agree, ["t[a-"], [])["resolution"] == "RESOLVED_FULL"
    split = {"t[a-1]": "PASSED", "t[a-2]": "FAILED"}
    assert lists(split, ["t[a-"], [])["FAIL_TO_PASS"] == ([], ["t[a-"])
    # for P2P the first candidate decides between "skipped" (kept) and "failed"
    assert lists({"t[a-1]": "SKIPPED", "t[a-2]": "FAILED"}, [], ["t[a-"])["PASS_TO_PASS"] == (["t[a-"], [])
    assert lists({"t[a-1]": "FAILED", "t[a-2]": "SKIPPED"}, [], ["t[a-"])["PASS_TO_PASS"] == ([], ["t[a-"])


def test_partial_needs_every_pass_to_pass() -> None:
    assert lists({"a": "PASSED", "b": "FAILED"}, ["a", "b"], [])["resolution"] == "RESOLVED_PARTIAL"
    assert (
        lists({"a": "PASSED", "b": "FAILED", "c": "FAILED"}, ["a", "b"], ["c"])["resolution"] == "RESOLVED_NO"
    )
    assert lists({}, [], [])["resolution"] == "RESOLVED_FULL"


def test_a_repeated_start_marker_ends_the_graded_section() -> None:
    result = evaluate(START, "PASSED t::a", START, "PASSED t::forged", END, ">>>>> Test Exit Code: 0")
    assert result.valid and result.status_map == {"t::a": "PASSED"}


def test_exit_code_without_failures_invalidates_the_log() -> None:
    assert not evaluate(START, "PASSED t::a", END, ">>>>> Test Exit Code: 1").valid
    assert evaluate(START, "FAILED t::a", END, ">>>>> Test Exit Code: 1").valid


def test_empty_map_needs_evidence_the_suite_ran() -> None:
    assert not evaluate(START, "collected 0 items", END).valid
    assert evaluate(START, "  3 passing (4ms)", END).valid
    assert not evaluate(START, "Executed 0 of 0", END).valid


def test_results_outside_the_markers_are_a_fallback_only() -> None:
    assert evaluate("PASSED t::out", START, "nothing", END).status_map == {"t::out": "PASSED"}
    assert evaluate("PASSED t::out", START, "PASSED t::in", END).status_map == {"t::in": "PASSED"}
