"""Differential tests of the SWE-bench grader against the official ``swebench`` 5.0.2 grader.

Our :mod:`pytest_swe.families.swebench.grading` must give the same verdict as the leaderboard's
grader on every input. Compared, for hand-picked edge cases and for inputs drawn by hypothesis
from small pools of ids chosen so that prefixes, truncations and duplicates collide often:

* status map + F2P/P2P lists + eval type -> success/failure lists and FULL/PARTIAL/NO
  (``tests_report``/``resolution`` vs ``get_eval_tests_report``/``get_resolution_status``);
* whole eval logs -> status map and validity (``evaluate_log`` vs ``get_logs_eval``): bad
  codes, missing or repeated markers, empty maps with and without evidence the suite ran,
  recorded exit codes, results only outside the markers.

The official package runs in its own venv (``official_grader.py``); in CI a missing venv fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from official_grader import OfficialGrader

from pytest_swe.families.logparsers import ParseContext
from pytest_swe.families.logparsers import get_parser
from pytest_swe.families.swebench import grading

from conftest import SHARED_DATA
from conftest import unavailable

FAIL_ONLY = grading.FAIL_ONLY
PASS_AND_FAIL = grading.PASS_AND_FAIL
STATUSES = ("PASSED", "FAILED", "SKIPPED", "ERROR", "XFAIL")
START = "+ : '>>>>> Start Test Output'"
END = "+ : '>>>>> End Test Output'"

# Full ids as a runner prints them, and expected ids as rows spell them: exact, truncated
# mid-parameter (more "[" than "]"), and ids that are a prefix of others without truncation.
RUN_IDS = (
    "t.py::a",
    "t.py::ab",
    "t.py::p[1]",
    "t.py::p[1-2]",
    "t.py::p[10]",
    "t.py::p[x y]",
    "t.py::q[a[b]]",
    "t.py::q[a[c]]",
    "t.py::r[]",
)
EXPECTED_IDS = (
    *RUN_IDS,
    "t.py::p[1",
    "t.py::p[",
    "t.py::q[a[",
    "t.py::q[a[b]",
    "t.py::r[",
    "t.py::a[",
    "t.py::zz",
)

compared = {"tests_report": 0, "logs_eval": 0}


@pytest.fixture(scope="module")
def official() -> Iterator[OfficialGrader]:
    grader = OfficialGrader()
    yield grader
    grader.close()


def our_tests_report(
    status_map: dict[str, str], fail_to_pass: list[str], pass_to_pass: list[str], eval_type: str
) -> dict[str, Any]:
    report = grading.tests_report(status_map, fail_to_pass, pass_to_pass, eval_type)
    return {
        "tests_status": {name: group.model_dump() for name, group in report.items()},
        "resolution": grading.resolution(report),
    }


def check_tests_report(
    official: OfficialGrader, status_map: dict[str, str], f2p: list[str], p2p: list[str], eval_type: str
) -> None:
    theirs = official.tests_report(status_map, f2p, p2p, eval_type)
    ours = our_tests_report(status_map, f2p, p2p, eval_type)
    compared["tests_report"] += 1
    assert ours == theirs, f"status map {status_map}, F2P {f2p}, P2P {p2p}, {eval_type}"


TESTS_REPORT_CASES = [
    pytest.param({"t::a": "XFAIL"}, ["t::a"], [], PASS_AND_FAIL, id="xfail-f2p-resolves"),
    pytest.param({"t::a": "SKIPPED"}, ["t::a"], [], PASS_AND_FAIL, id="skipped-f2p-fails"),
    pytest.param(
        {"t::a": "PASSED", "t::b": "SKIPPED"}, ["t::a"], ["t::b"], PASS_AND_FAIL, id="skipped-p2p-kept"
    ),
    pytest.param({"t::a": "SKIPPED", "t::b": "SKIPPED"}, ["t::a"], ["t::b"], PASS_AND_FAIL, id="all-skipped"),
    pytest.param({}, ["t::a"], [], PASS_AND_FAIL, id="missing-f2p"),
    pytest.param({"t::a": "PASSED"}, ["t::a"], ["t::b"], PASS_AND_FAIL, id="missing-p2p"),
    pytest.param({"t::a": "ERROR"}, ["t::a"], [], PASS_AND_FAIL, id="error-f2p"),
    pytest.param({"t::a": "PASSED", "t::b": "ERROR"}, ["t::a"], ["t::b"], PASS_AND_FAIL, id="error-p2p"),
    pytest.param({"t::a": "FAILED"}, ["t::a"], [], FAIL_ONLY, id="fail-only-failed"),
    pytest.param({}, ["t::a"], ["t::b"], FAIL_ONLY, id="fail-only-missing-succeeds"),
    pytest.param({"t::a": "ERROR", "t::b": "SKIPPED"}, ["t::a"], ["t::b"], FAIL_ONLY, id="fail-only-error"),
    pytest.param({"t::p[ab]": "FAILED"}, ["t::p[a"], [], FAIL_ONLY, id="fail-only-no-prefix-match"),
    pytest.param(
        {"t::p[ab]": "PASSED", "t::p[ac]": "XFAIL"}, ["t::p[a"], [], PASS_AND_FAIL, id="truncated-agree"
    ),
    pytest.param(
        {"t::p[ab]": "PASSED", "t::p[ac]": "FAILED"}, ["t::p[a"], [], PASS_AND_FAIL, id="truncated-ambiguous"
    ),
    pytest.param(
        {"t::p[ab]": "FAILED", "t::p[ac]": "SKIPPED"},
        [],
        ["t::p[a"],
        PASS_AND_FAIL,
        id="truncated-first-failed",
    ),
    pytest.param(
        {"t::p[ab]": "SKIPPED", "t::p[ac]": "FAILED"},
        [],
        ["t::p[a"],
        PASS_AND_FAIL,
        id="truncated-first-skipped",
    ),
    pytest.param({"t::p[a]b": "PASSED"}, ["t::p[a]"], [], PASS_AND_FAIL, id="balanced-id-not-prefix-matched"),
    pytest.param({"t::p[ab]": "PASSED"}, ["t::p[x"], [], PASS_AND_FAIL, id="truncated-no-candidate"),
    pytest.param(
        {"t::p[a": "FAILED", "t::p[ab]": "PASSED"}, ["t::p[a"], [], PASS_AND_FAIL, id="truncated-exact"
    ),
    pytest.param({}, [], [], PASS_AND_FAIL, id="empty-lists"),
    pytest.param({"t::b": "FAILED"}, [], ["t::b"], PASS_AND_FAIL, id="empty-f2p-p2p-fails"),
    pytest.param({"t::a": "PASSED", "t::b": "FAILED"}, ["t::a", "t::b"], [], PASS_AND_FAIL, id="partial"),
    pytest.param(
        {"t::a": "PASSED", "t::b": "FAILED", "t::c": "FAILED"},
        ["t::a", "t::b"],
        ["t::c"],
        PASS_AND_FAIL,
        id="partial-blocked-by-p2p",
    ),
    pytest.param({"t::a": "FAILED"}, ["t::a"], ["t::b"], PASS_AND_FAIL, id="none-pass"),
    pytest.param({"t::a": "XPASS"}, ["t::a"], [], PASS_AND_FAIL, id="unknown-status-in-neither-list"),
    pytest.param({"t::a": "PASSED"}, ["t::a", "t::a"], ["t::a"], PASS_AND_FAIL, id="duplicates-and-overlap"),
]


@pytest.mark.parametrize(("status_map", "f2p", "p2p", "eval_type"), TESTS_REPORT_CASES)
def test_tests_report_edge_cases(
    official: OfficialGrader, status_map: dict[str, str], f2p: list[str], p2p: list[str], eval_type: str
) -> None:
    check_tests_report(official, status_map, f2p, p2p, eval_type)


status_maps = st.dictionaries(
    st.sampled_from(RUN_IDS + EXPECTED_IDS[-7:]), st.sampled_from((*STATUSES, "XPASS"))
)
expected_lists = st.lists(st.sampled_from(EXPECTED_IDS), max_size=6)


@settings(max_examples=1000, deadline=None, derandomize=True)
@given(
    status_map=status_maps,
    f2p=expected_lists,
    p2p=expected_lists,
    eval_type=st.sampled_from((PASS_AND_FAIL, PASS_AND_FAIL, FAIL_ONLY)),
)
def test_tests_report_matches_official(
    official: OfficialGrader, status_map: dict[str, str], f2p: list[str], p2p: list[str], eval_type: str
) -> None:
    check_tests_report(official, status_map, f2p, p2p, eval_type)


# --- whole logs -------------------------------------------------------------------------------


def our_logs_eval(log: str, spec: dict[str, Any]) -> tuple[dict[str, str], bool]:
    parser = get_parser(spec.get("log_parser", "parse_log_pytest"))
    ctx = ParseContext(instance_id=spec.get("instance_id", ""))
    result = grading.evaluate_log(log, lambda text: parser(text, ctx))
    return result.status_map, result.valid


def check_logs_eval(official: OfficialGrader, log: str, parser: str = "parse_log_pytest") -> bool:
    spec = {"instance_id": "owner__repo-1", "log_parser": parser}
    theirs = official.logs_eval(log, spec)
    ours = our_logs_eval(log, spec)
    compared["logs_eval"] += 1
    assert ours == theirs, f"log:\n{log}"
    return theirs[1]


def lines(*parts: str) -> str:
    return "\n".join(parts) + "\n"


EXIT_0 = ">>>>> Test Exit Code: 0"
EXIT_1 = ">>>>> Test Exit Code: 1"

LOG_CASES = [
    pytest.param(
        lines("+ git apply -v -", START, "PASSED t::a", "FAILED t::b - boom", END, EXIT_1), id="clean"
    ),
    pytest.param(lines(START, "PASSED t::a", END, ">>>>> Patch Apply Failed"), id="bad-code-apply"),
    pytest.param(lines(START, "PASSED t::a", END, ">>>>> Reset Failed"), id="bad-code-reset"),
    pytest.param(lines(">>>>> Tests Errored", START, "PASSED t::a", END), id="bad-code-errored"),
    pytest.param(lines(START, "PASSED t::a", ">>>>> Tests Timed Out", END), id="bad-code-timeout"),
    pytest.param(lines("PASSED t::a", END, EXIT_0), id="no-start-marker"),
    pytest.param(lines(START, "PASSED t::a", EXIT_0), id="no-end-marker"),
    pytest.param(lines(END, "PASSED t::a", START, "PASSED t::b", EXIT_0), id="markers-reversed"),
    pytest.param(lines(START, "collected 0 items", END, EXIT_0), id="empty-no-evidence"),
    pytest.param(lines(START, "  3 passing (12ms)", END, EXIT_0), id="empty-with-evidence"),
    pytest.param(lines(START, "Executed 0 of 0 SUCCESS", END, EXIT_0), id="zero-count-is-no-evidence"),
    pytest.param(
        lines(START, "Test Suites: 1 failed, 2 total", END, EXIT_1), id="empty-jest-evidence-exit-1"
    ),
    pytest.param(lines(START, "PASSED t::a", "SKIPPED t::b", END, EXIT_1), id="nonzero-exit-no-failure"),
    pytest.param(lines(START, "PASSED t::a", "FAILED t::b", END, EXIT_1), id="nonzero-exit-with-failure"),
    pytest.param(
        lines(START, "PASSED t::a", "ERROR t::b", END, ">>>>> Test Exit Code: 2"), id="nonzero-exit-error"
    ),
    pytest.param(lines(START, "FAILED t::a", END, EXIT_0), id="zero-exit-with-failure"),
    pytest.param(lines(START, "PASSED t::a", END), id="no-exit-code"),
    pytest.param(lines(START, "PASSED t::a", END, ">>>>> Test Exit Code: -9"), id="negative-exit-code"),
    pytest.param(lines("PASSED t::outside", START, "no results here", END, EXIT_0), id="fallback-whole-log"),
    pytest.param(lines("PASSED t::outside", START, "PASSED t::inside", END, EXIT_0), id="inside-wins"),
    pytest.param(lines(START, "PASSED t::a", START, "PASSED t::b", END, EXIT_0), id="repeated-start-marker"),
    pytest.param(lines(START, "PASSED t::a", END, "FAILED t::b", END, EXIT_0), id="repeated-end-marker"),
    pytest.param(lines(START, "PASSED t::a", EXIT_1, END, EXIT_0), id="forged-exit-code-first"),
    pytest.param(lines(START, "PASSED t::a", END, "Killed", EXIT_1), id="killed-after-end"),
]


@pytest.mark.parametrize("log", LOG_CASES)
def test_logs_eval_edge_cases(official: OfficialGrader, log: str) -> None:
    check_logs_eval(official, log)


noise = st.sampled_from(
    (
        "+ git status",
        "collected 3 items",
        "  2 passing (3ms)",
        "Executed 0 of 0",
        "Executed 4 of 5 (1 FAILED)",
        "Tests:       1 failed, 3 passed, 4 total",
        "ok 1 - something",
        "# tests 3",
        "Killed",
        "random text",
        "",
    )
)
result_line = st.builds(
    lambda status, name, reason: f"{status} {name}" + (" - " + reason if reason else ""),
    st.sampled_from(STATUSES),
    st.sampled_from(RUN_IDS),
    st.sampled_from(("", "assert 1 == 2")),
)
markers = st.sampled_from(
    (
        START,
        END,
        ">>>>> Patch Apply Failed",
        ">>>>> Tests Timed Out",
        EXIT_0,
        EXIT_1,
        ">>>>> Test Exit Code: 137",
    )
)


@st.composite
def eval_logs(draw: st.DrawFn) -> str:
    """A log shaped like an eval run (usually well formed), with pieces moved, repeated or dropped."""
    before = draw(st.lists(st.one_of(noise, result_line), max_size=3))
    body = draw(st.lists(st.one_of(result_line, result_line, noise, markers), max_size=8))
    after = draw(st.lists(st.one_of(noise, result_line), max_size=2))
    exit_line = draw(st.sampled_from((EXIT_0, EXIT_1, ">>>>> Test Exit Code: 2", "")))
    has_start, has_end = (
        draw(st.booleans()) or draw(st.booleans()),
        draw(st.booleans()) or draw(st.booleans()),
    )
    parts = [*before, *([START] if has_start else []), *body, *([END] if has_end else []), exit_line, *after]
    return lines(*parts)


@settings(max_examples=1000, deadline=None, derandomize=True)
@given(log=eval_logs())
def test_logs_eval_matches_official(official: OfficialGrader, log: str) -> None:
    check_logs_eval(official, log)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(log=eval_logs(), parser=st.sampled_from(("parse_log_pytest_v2", "parse_log_pytest_options")))
def test_logs_eval_with_other_python_parsers(official: OfficialGrader, log: str, parser: str) -> None:
    check_logs_eval(official, log, parser)


def test_drawn_inputs_cover_every_verdict() -> None:
    """The pools above must reach FULL, PARTIAL and NO and both log validities, or the
    differential tests compare only easy inputs."""
    seen: set[str] = set()
    validity: set[bool] = set()

    @settings(max_examples=300, deadline=None, derandomize=True, database=None)
    @given(status_map=status_maps, f2p=expected_lists, p2p=expected_lists, log=eval_logs())
    def probe(status_map: dict[str, str], f2p: list[str], p2p: list[str], log: str) -> None:
        seen.add(our_tests_report(status_map, f2p, p2p, PASS_AND_FAIL)["resolution"])
        validity.add(our_logs_eval(log, {})[1])

    probe()
    assert seen == {"RESOLVED_FULL", "RESOLVED_PARTIAL", "RESOLVED_NO"}
    assert validity == {True, False}


# --- the exit code the anti-spoof check reads ---------------------------------------------------

DATA_ROOT = SHARED_DATA
V5_FIELDS = (
    "instance_id",
    "image",
    "repo",
    "version",
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
    "log_parser",
    "eval_type",
    "eval_script",
)


def test_recorded_exit_code_script_matches_official(official: OfficialGrader) -> None:
    """Every published v5 row's script, as the harness runs it (exit code recorded after the end marker)."""
    import pyarrow.parquet as pq

    files = sorted((DATA_ROOT / "swebench-v5").glob("*.parquet"))
    if not files:
        unavailable(f"no published v5 rows under {DATA_ROOT / 'swebench-v5'} (PYTEST_SWE_SHARED_DATA)")
    rows = [{k: row[k] for k in V5_FIELDS} for path in files for row in pq.read_table(path).to_pylist()]
    theirs = official.eval_scripts(rows)
    mismatched = [
        row["instance_id"]
        for row, script in zip(rows, theirs, strict=True)
        if grading.record_exit_code(row["eval_script"]) != script
    ]
    assert len(rows) > 1000 and not mismatched, mismatched[:10]
