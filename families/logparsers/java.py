"""Parsers for Java builds: Maven (one ``-Dtest=`` run per test), Ant's JUnit task, Gradle.

Maven prints no per-test line for passing tests, so the harness runs Maven once per test under
``set -x``: the traced command names the test and Maven's ``BUILD SUCCESS|FAILURE`` gives
its result.
"""

from __future__ import annotations

import re
from collections import deque

from .base import FAILED
from .base import PASSED
from .base import ParseContext
from .base import Parser
from .base import log_lines
from .base import result_lines

# The traced Maven command; the last ``-Dtest=`` on the line names the test (a one-word selector).
_MAVEN_TEST_SELECTOR = re.compile(r".*-Dtest=(?P<test>\S+).*")
_MAVEN_BUILD_RESULT = re.compile(r".*BUILD (?P<result>SUCCESS|FAILURE)")
_MAVEN_RESULTS = {"SUCCESS": PASSED, "FAILURE": FAILED}


def parse_maven(log: str, ctx: ParseContext) -> dict[str, str]:
    """Pair each traced ``-Dtest=`` selector with a ``BUILD`` result, first in first out.

    Traces of several commands can reach the log before their results (shell tracing and
    Maven write to different streams), so selectors wait in a queue; results that arrive
    before any selector are paired with the leftover selectors at the end.
    """
    statuses: dict[str, str] = {}
    waiting_tests: deque[str] = deque()
    early_results: deque[str] = deque()
    for raw_line in log_lines(log):
        line = raw_line.strip()
        if selector := _MAVEN_TEST_SELECTOR.fullmatch(line):
            waiting_tests.append(selector.group("test"))
        if result := _MAVEN_BUILD_RESULT.fullmatch(line):
            if waiting_tests:
                statuses[waiting_tests.popleft()] = _MAVEN_RESULTS[result.group("result")]
            else:
                early_results.append(result.group("result"))
    while waiting_tests and early_results:
        statuses[waiting_tests.popleft()] = _MAVEN_RESULTS[early_results.popleft()]
    return statuses


_V4_NO_TEST_YET = "---NO TEST NAME FOUND YET---"


def parse_maven_v4(log: str, ctx: ParseContext) -> dict[str, str]:
    """4.1.0's reading: each ``BUILD`` result belongs to the most recently traced selector.

    A result seen before any selector is recorded under 4.1.0's placeholder name.
    """
    statuses: dict[str, str] = {}
    current = _V4_NO_TEST_YET
    for raw_line in log_lines(log):
        line = raw_line.strip()
        if selector := _MAVEN_TEST_SELECTOR.fullmatch(line):
            current = selector.group("test")
        if result := _MAVEN_BUILD_RESULT.fullmatch(line):
            statuses[current] = _MAVEN_RESULTS[result.group("result")]
    return statuses


# Lombok's test formatter under Ant's <junit> task: ``[junit] [PASS|FAIL|ERR] test(Class)``.
_ANT_RESULT = re.compile(r"\s*\[junit\]\s+\[(?P<outcome>PASS|FAIL|ERR)\]\s+(?P<test>.*)")


def parse_ant(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read the formatter's result lines; an error counts as a failure."""
    return result_lines(log, _ANT_RESULT, {"PASS": PASSED, "FAIL": FAILED, "ERR": FAILED})


# Gradle's test logging with PASSED/FAILED events on: ``org.example.FooTest > bar() PASSED``.
_GRADLE_RESULT = re.compile(r"(?P<test>[^>].+)\s+(?P<status>PASSED|FAILED)")
# The same event when other output lands between the test's name and its status.
_GRADLE_NAME_ONLY = re.compile(r"[^>]\S*\s+>\s+\S+")
_GRADLE_STATUS_ONLY = re.compile(r"PASSED|FAILED")


def parse_gradle_custom(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read ``Class > test STATUS`` lines, also when the status arrives on a later line of its own.

    Skipped tests are not read. Lines that start with ``>`` are Gradle's own progress, not tests.
    """
    statuses: dict[str, str] = {}
    waiting_test: str | None = None
    for raw_line in log_lines(log):
        line = raw_line.strip()
        if result := _GRADLE_RESULT.fullmatch(line):
            statuses[result.group("test")] = result.group("status")
            waiting_test = None
        elif _GRADLE_NAME_ONLY.fullmatch(line):
            waiting_test = line
        elif waiting_test is not None and _GRADLE_STATUS_ONLY.fullmatch(line):
            statuses[waiting_test] = line
            waiting_test = None
    return statuses


def parse_gradle_custom_v4(log: str, ctx: ParseContext) -> dict[str, str]:
    """4.1.0's reading: only lines that carry both the test's name and its status."""
    statuses: dict[str, str] = {}
    for raw_line in log_lines(log):
        if result := _GRADLE_RESULT.fullmatch(raw_line.strip()):
            statuses[result.group("test")] = result.group("status")
    return statuses


PARSERS: dict[str, Parser] = {
    "parse_log_maven": parse_maven,
    "parse_log_ant": parse_ant,
    "parse_log_gradle_custom": parse_gradle_custom,
}

V4_PARSERS: dict[str, Parser] = {
    **PARSERS,
    "parse_log_maven": parse_maven_v4,
    "parse_log_gradle_custom": parse_gradle_custom_v4,
}
