"""Parsers for C and C++ projects: redis/valkey's Tcl suite, jq's automake suite, doctest XML,
micropython's run-tests.py and googletest."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree

from .base import FAILED
from .base import PASSED
from .base import SKIPPED
from .base import LogParseError
from .base import ParseContext
from .base import Parser
from .base import log_lines
from .base import result_lines

# redis ./runtest: ``[ok]: name (12 ms)``, ``[err]: name in tests/unit/x.tcl``, ``[skip]:``, ``[ignore]:``.
_REDIS_RESULT = re.compile(r"\[(?P<outcome>ok|err|skip|ignore)\]:\s(?P<test>.+?)(?:\s\(\d+\s*m?s\))?")
_REDIS_ERROR_LOCATION = re.compile(r"\s+in\s+\S+$")
_REDIS_OUTCOMES = {"ok": PASSED, "err": FAILED, "skip": SKIPPED, "ignore": SKIPPED}


def parse_redis(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read the Tcl suite's result lines; a failure's trailing `` in <file>`` is not part of its name."""
    statuses: dict[str, str] = {}
    for line in log_lines(log):
        match = _REDIS_RESULT.fullmatch(line.strip())
        if not match:
            continue
        outcome, test = match.group("outcome"), match.group("test")
        if outcome == "err":
            test = _REDIS_ERROR_LOCATION.sub("", test)
        statuses[test] = _REDIS_OUTCOMES[outcome]
    return statuses


# automake's test driver: ``PASS: tests/jqtest``; ``SKIP``, ``XFAIL`` and ``ERROR`` are not read.
_AUTOMAKE_RESULT = re.compile(r"\s*(?P<outcome>PASS|FAIL):\s(?P<test>.+)")


def parse_jq(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read ``make check`` result lines (the summary's ``# PASS:  3`` counts are not tests)."""
    return result_lines(log, _AUTOMAKE_RESULT, {"PASS": PASSED, "FAIL": FAILED})


def _doctest_report(log: str) -> str | None:
    """The first ``<doctest ...> ... </doctest>`` element in the log, if the log has one."""
    start = log.find("<doctest")
    if start == -1:
        return None
    end = log.find("</doctest>", start)
    if end == -1:
        raise LogParseError("doctest XML report is not closed (truncated output?)")
    return log[start : end + len("</doctest>")]


def parse_doctest(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read doctest's ``-r=xml`` report: one entry per subcase, ``<test case> > <subcase>``.

    A subcase passes when every assertion inside it (nested subcases included) succeeded. Test
    cases without subcases are not reported, as in the official reader.
    """
    report = _doctest_report(log)
    if report is None:
        return {}
    try:
        root = ElementTree.fromstring(report)
    except ElementTree.ParseError as exc:
        raise LogParseError(f"doctest XML report does not parse: {exc}") from exc
    statuses: dict[str, str] = {}
    for case in root.iter("TestCase"):
        for subcase in case.iter("SubCase"):
            assertions_hold = all(
                expression.get("success") == "true" for expression in subcase.iter("Expression")
            )
            statuses[f"{case.get('name')} > {subcase.get('name')}"] = PASSED if assertions_hold else FAILED
    return statuses


# micropython tests/run-tests.py: ``pass  basics/int.py``, ``FAIL  ...``, ``skip  ...``.
_MICROPYTHON_RESULT = re.compile(r"(?P<outcome>pass|FAIL|skip)\s+(?P<test>.+)")
_MICROPYTHON_OUTCOMES = {"pass": PASSED, "FAIL": FAILED, "skip": SKIPPED}


def parse_micropython_test(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read run-tests.py's per-file result lines."""
    return result_lines(log, _MICROPYTHON_RESULT, _MICROPYTHON_OUTCOMES)


# googletest: ``[       OK ] Suite.Name (0 ms)`` / ``[  FAILED  ] Suite.Name, where ... (1 ms)``, possibly
# behind a ctest ``12: `` prefix. The name runs to the last `` (``; the end-of-run list of
# failed tests carries no timing and is not read.
_GTEST_RESULT = re.compile(r".*\[\s*(?P<outcome>OK|FAILED)\s*\]\s(?P<test>.*)\s\(.*\)")


def parse_googletest(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read googletest's per-test result lines."""
    return result_lines(log, _GTEST_RESULT, {"OK": PASSED, "FAILED": FAILED})


PARSERS: dict[str, Parser] = {
    "parse_log_redis": parse_redis,
    "parse_log_jq": parse_jq,
    "parse_log_doctest": parse_doctest,
    "parse_log_micropython_test": parse_micropython_test,
    "parse_log_googletest": parse_googletest,
}
