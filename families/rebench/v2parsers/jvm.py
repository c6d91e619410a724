"""JVM runners: Maven and Surefire summaries, Kotlin, Gradle, Leiningen (Clojure), ScalaTest and sbt."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .base import ERROR
from .base import FAILED
from .base import PASSED
from .base import SKIPPED
from .base import LineReader
from .base import group_one
from .base import make_rule
from .base import nonblank_lines
from .base import split_all
from .base import split_newlines
from .junit import parse_log_junit

# --- Maven, Surefire, Kotlin ----------------------------------------------------------------------

_SUREFIRE_COUNTS = r"Tests run:\s*(\d+),\s*Failures:\s*(\d+),\s*Errors:\s*(\d+),\s*Skipped:\s*(\d+)"
_SUREFIRE_SUMMARY = re.compile(_SUREFIRE_COUNTS)


@dataclass(frozen=True)
class SurefireCounts:
    """The four numbers of a Surefire ``Tests run:`` line."""

    run: int
    failures: int
    errors: int
    skipped: int

    @classmethod
    def search(cls, line: str, pattern: re.Pattern[str] = _SUREFIRE_SUMMARY) -> SurefireCounts | None:
        found = pattern.search(line)
        return cls(*map(int, found.groups())) if found else None


_MAVEN_SELECTOR = re.compile(r".*-Dtest=(\S+).*")
_MAVEN_BUILD_RESULT = re.compile(r".*BUILD (SUCCESS|FAILURE)")
MAVEN_NO_TEST_YET = "---NO TEST NAME FOUND YET---"


def parse_log_maven(log: str) -> dict[str, str]:
    """One Maven run per test under ``set -x``: each ``BUILD`` result goes to the latest ``-Dtest=``.

    A result before any traced selector is recorded under ``---NO TEST NAME FOUND YET---``
    (SWE-bench 5.0.2 pairs selectors and results first in, first out instead).
    """
    results: dict[str, str] = {}
    current = MAVEN_NO_TEST_YET
    for raw in split_newlines(log):
        line = raw.strip()
        if selector := _MAVEN_SELECTOR.fullmatch(line):
            current = selector.group(1)
        if result := _MAVEN_BUILD_RESULT.fullmatch(line):
            results[current] = PASSED if result.group(1) == "SUCCESS" else FAILED
    return results


_MVN_RUNNING = re.compile(r"(?:\[INFO\]\s+)?Running\s+([A-Za-z0-9_$.]+)")
_MVN_FAILED_TEST = re.compile(
    r"\[ERROR\]\s+(?P<cls>[A-Za-z0-9_$.]+)\.(?P<method>[A-Za-z0-9_$.]+?)(?::\d+)?\b"
)


def _counts_status(counts: SurefireCounts) -> str:
    if counts.failures or counts.errors:
        return FAILED
    return SKIPPED if counts.skipped else PASSED


def parse_java_mvn(log: str) -> dict[str, str]:
    """Maven Surefire/Failsafe logs: per-class ``Tests run:`` summaries and ``[ERROR] Class.method`` lines.

    A failing method is FAILED (ERROR when its line names an exception other than an assertion)
    and marks its class FAILED. A summary names its class after `` in ``, else the class last
    announced by ``Running``. JUnit tags in the log and traced ``-Dtest=`` runs fill in tests
    not seen otherwise; a log with nothing else gives every announced class PASSED.
    """
    results: dict[str, str] = {}
    announced: set[str] = set()
    running: str | None = None
    for line in nonblank_lines(log):
        if match := _MVN_RUNNING.fullmatch(line):
            running = match.group(1)
            announced.add(running)
            continue
        if match := _MVN_FAILED_TEST.match(line):
            cls = match.group("cls")
            error = "Exception" in line and "AssertionError" not in line
            results[f"{cls}.{match.group('method')}"] = ERROR if error else FAILED
            results.setdefault(cls, FAILED)
            continue
        if counts := SurefireCounts.search(line):
            cls = line.rsplit(" in ", 1)[-1].strip().rstrip(".:;") if " in " in line else running
            if cls:
                results.setdefault(cls, _counts_status(counts))
            running = None
    for fallback in (parse_log_junit, parse_log_maven):
        for name, status in fallback(log).items():
            results.setdefault(name, status)
    if not results:
        results = dict.fromkeys(announced, PASSED)
    return results


_REACTOR_LINE = re.compile(r"\[INFO\]\s+(.+?)\s+\.\.+\s+(SUCCESS|FAILURE|SKIPPED)(?:\s|\[|$)")
_REACTOR_STATUS = {"SUCCESS": PASSED, "FAILURE": FAILED, "SKIPPED": SKIPPED}
MAVEN_AGGREGATE = "__suite__"


def parse_java_mvn_v2(log: str) -> dict[str, str]:
    """Maven's reactor summary (``[INFO] module ..... SUCCESS [ 1.2 s]``), one entry per module.

    The first ``Tests run:`` line also gives an aggregate entry ``__suite__``: FAILED if any test
    failed, else ERROR if any errored, else SKIPPED if all were skipped (zero of zero included).
    """
    results: dict[str, str] = {}
    for line in nonblank_lines(log):
        if match := _REACTOR_LINE.match(line):
            results[match.group(1)] = _REACTOR_STATUS[match.group(2)]
        elif counts := SurefireCounts.search(line):
            aggregate = PASSED
            if counts.failures:
                aggregate = FAILED
            elif counts.errors:
                aggregate = ERROR
            elif counts.skipped == counts.run:
                aggregate = SKIPPED
            results.setdefault(MAVEN_AGGREGATE, aggregate)
    return results


_PLAIN_RUNNING = re.compile(r"Running\s+(.+)")
_PLAIN_SUMMARY = re.compile(r"Tests run:\s+(\d+),\s+Failures:\s+(\d+),\s+Errors:\s+(\d+),\s+Skipped:\s+(\d+)")


def parse_logs_kotlin_junit(log: str) -> dict[str, str]:
    """Un-prefixed Surefire output: ``Running <class>`` then its ``Tests run:`` line decides the class."""
    results: dict[str, str] = {}
    running: str | None = None
    for raw in split_all(log):
        line = raw.strip()
        if match := _PLAIN_RUNNING.fullmatch(line):
            running = match.group(1)
        elif _PLAIN_SUMMARY.match(line):
            counts = SurefireCounts.search(line, _PLAIN_SUMMARY)
            if running and counts:
                results[running] = _counts_status(counts)
                running = None
    return results


parse_log_gradle_custom = LineReader(
    (
        make_rule(
            r"([^>].+?)\s+(PASSED|FAILED)(?:\s+\(\d+(?:\.\d+)?s\))?$", lambda m: m.group(2), name=group_one
        ),
    ),
    split=split_newlines,
)
"""``Class > test() PASSED``, optionally followed by ``(1.2s)``; no pairing across lines."""

# --- Clojure (Leiningen) --------------------------------------------------------------------------

_LEIN_TEST = re.compile(r"lein test (.+)$")


def parse_log_lein(log: str) -> dict[str, str]:
    """``lein test my.ns`` lines name namespaces (the ids); a ``FAIL in``/``ERROR in`` after one marks it.

    ``lein test :only my.ns/test-x`` counts as namespace ``my.ns``.
    """
    results: dict[str, str] = {}
    current: str | None = None
    for line in nonblank_lines(log):
        if match := _LEIN_TEST.match(line):
            tokens = match.group(1).strip().split()
            current = None
            if tokens and tokens[0] == ":only":
                namespace = " ".join(tokens[1:]).strip().split("/", 1)[0].strip()
                tokens = [namespace] if namespace else []
            for token in tokens:
                results.setdefault(token, PASSED)
                current = token
        elif line.startswith("FAIL in") and current:
            results[current] = FAILED
        elif line.startswith("ERROR in") and current:
            results[current] = ERROR
    return results


# --- Scala ----------------------------------------------------------------------------------------

parse_log_scala = LineReader(
    (
        make_rule(r"\[info\]\s+-\s+(.*?)\s+\*\*\*\s+FAILED\s+\*\*\*\s+\([^)]+\)$", FAILED),
        make_rule(r"\[info\]\s+-\s+(.*?)\s+!!!\s+CANCELED\s+!!!\s+\([^)]+\)$", SKIPPED),
        make_rule(r"\[info\]\s+-\s+(.*?)\s+!!!\s+IGNORED\s+!!!", SKIPPED),
        make_rule(r"\[info\]\s+-\s+(.*?)\s+\([^)]+\)$", PASSED, "keep"),
    )
)
"""ScalaTest in sbt: ``[info] - title (5 milliseconds)``, ``*** FAILED ***``, ``!!! CANCELED !!!``,
``!!! IGNORED !!!``. A pass line needs its timing."""

_SCALA_COLOURS = re.compile(r"\x1b\[[0-9;]*m|\[(?:[0-9]{1,2}m)")
_SCALA_TIME = r"[\d.]+[mμn]?s"
parse_log_scala_v2 = LineReader(
    (
        make_rule(rf"\s*x\s+\[0m\[31m(.*?)\[0m\s+\[90m{_SCALA_TIME}\[0m\s*$", FAILED, on_raw=True),
        make_rule(rf"\s*x\s+(.*?)\s+{_SCALA_TIME}\s*$", FAILED),
        make_rule(rf"\s*\+\s+\[0m\[32m(.*?)\[0m\s+\[90m{_SCALA_TIME}\[0m\s*$", PASSED, on_raw=True),
        make_rule(rf"\s*\+\s+(.*?)\s+{_SCALA_TIME}\s*$", PASSED),
    ),
    clean=lambda line: _SCALA_COLOURS.sub("", line),
)
"""``+ title 12ms`` / ``x title 3ms`` lines (colour codes removed, with or without escape bytes)."""

_SCALATEST_WORDS = {
    "PASSED": PASSED,
    "FAILED": FAILED,
    "ERROR": ERROR,
    "ABORTED": ERROR,
    "SKIPPED": SKIPPED,
    "IGNORED": SKIPPED,
    "CANCELED": SKIPPED,
    "CANCELLED": SKIPPED,
    "PENDING": SKIPPED,
}
_SCALATEST_TEST = re.compile(r"\[info\]\s+-\s+(.*?)(?:\s+\*{3}\s+([A-Z]+)\s+\*{3})?$")
_SCALATEST_SUITE = re.compile(r"\[info\]\s+([^\-].*)$")
_SCALATEST_TIMING = re.compile(r"\s*\(\d+\s+\w+\)$")
_SBT_NOT_SUITES = (
    "Run completed",
    "Total number",
    "Suites:",
    "Tests:",
    "All tests",
    "compiling",
    "done compiling",
    "loading",
    "welcome to",
    "set current",
)


def parse_log_scala_v3(log: str) -> dict[str, str]:
    """ScalaTest ``[info]`` output with suite names: ids ``<suite line>: <title>``.

    Any other ``[info]`` line becomes the current suite unless it is sbt chatter. A status word
    counts only when ``*** WORD ***`` ends the line; a ``*** FAILED *** (5 ms)`` line keeps the
    marker in its title and counts as passed.
    """
    results: dict[str, str] = {}
    suite: str | None = None
    for raw in split_all(log):
        line = raw.strip()
        if not line.startswith("[info]"):
            continue
        if line.startswith("[info] -"):
            match = _SCALATEST_TEST.match(line)
            if match is None:
                continue
            title = _SCALATEST_TIMING.sub("", match.group(1).strip())
            name = f"{suite}: {title}" if suite else title
            if word := match.group(2):
                results[name] = _SCALATEST_WORDS.get(word.upper(), word.upper())
            else:
                results.setdefault(name, PASSED)
        elif match := _SCALATEST_SUITE.match(line):
            candidate = match.group(1).strip()
            if candidate and not any(word in candidate for word in _SBT_NOT_SUITES):
                suite = candidate
    return results
