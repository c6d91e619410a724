"""SWE-rebench V2's own log readers, for rows of the ``swe-rebench-v2`` family only.

V2 rows name their parser in ``install_config.log_parser``. About half of the names exist only in
V2 (Elixir, Haskell, Dart, OCaml, Julia, R, Scala, Swift, C#, ...); a few share a name with an
official SWE-bench parser but read the log differently in V2 (pytest's skip-count lines, Maven's
selector pairing, Gradle and react-pdf timing suffixes, PHPUnit timing, Jest title whitespace).
Both kinds are here, keyed by V2's name. Names V2 reads exactly as SWE-bench 5.0.2 does are left
to :mod:`pytest_swe.families.logparsers`.

Each reader reproduces V2's status map for a whole eval log (V2 logs have no markers): the same
test names, the same status words (``PASSED``, ``FAILED``, ``SKIPPED``, ``ERROR``, and whatever
word a pytest summary line starts with), the same precedence when a test is reported twice.
Where V2's reader stops with an exception on a log, these raise
:class:`~pytest_swe.families.logparsers.LogParseError`, so the row is graded as unresolved, as V2
grades a row whose parser fails. Line-oriented readers are tables of :class:`Rule` run by one
:class:`LineReader`; JUnit XML, Maven summaries, mocha-style titles and pytest lines each have one
shared scanner.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from types import MappingProxyType
from typing import Any
from typing import Literal

from pytest_swe.families.logparsers import LogParseError

V2Parser = Callable[[str], dict[str, str]]
"""Whole log text -> ``{test name: status}``."""

PASSED = "PASSED"
FAILED = "FAILED"
SKIPPED = "SKIPPED"
ERROR = "ERROR"
XFAIL = "XFAIL"
STATUS_WORDS = (FAILED, PASSED, SKIPPED, ERROR, XFAIL)
"""V2's status vocabulary; pytest-style readers take a line's leading status word verbatim."""

# Any ECMA-48 escape (a Fe byte, or a CSI sequence), and colour-only (SGR) sequences.
_ANSI_ANY = re.compile(r"\x1b(?:[@-Z\\-_]|\[[0-?]*[ -/]*[@-~])")
_ANSI_SGR = re.compile(r"\x1b\[[0-9;]*m")
# ``[31m`` left behind when a log lost its escape bytes, and every other control character.
_BARE_SGR = re.compile(r"\[(\d+)m")
_CONTROL_CHARS = str.maketrans("", "", "".join(chr(code) for code in range(1, 32)))


def _split_newlines(log: str) -> list[str]:
    """Lines as SWE-bench-derived readers see them: ``\\r`` stays inside a line."""
    return log.split("\n")


def _split_all(log: str) -> list[str]:
    """Lines as V2's newer readers see them: ``\\r`` (progress redraws) also ends a line."""
    return log.splitlines()


def _strip_bare_colours(line: str) -> str:
    return _BARE_SGR.sub("", line).translate(_CONTROL_CHARS)


# --- precedence -----------------------------------------------------------------------------------

_ESCALATION = {PASSED: 0, SKIPPED: 1, FAILED: 2, ERROR: 3}
"""OCaml readers let a later report replace an earlier one unless it is less severe."""


def _escalate(results: dict[str, str], name: str, status: str) -> None:
    if not name:
        return
    current = results.get(name)
    if current is None or _ESCALATION.get(status, -1) >= _ESCALATION.get(current, -1):
        results[name] = status


# --- a table of line rules ------------------------------------------------------------------------

Write = Literal["set", "keep", "escalate"]
"""How a rule records a test: overwrite, only if not seen yet (a tentative pass), or by precedence."""


def _group_one(match: re.Match[str]) -> str:
    return match.group(1)


@dataclass(frozen=True)
class Rule:
    """One line form of a runner: a pattern matched at the start of the line, and what it means.

    ``status`` is a status word, a function of the match (``None`` drops the line), or ``None``
    for lines that are consumed without recording anything (summary counters, noise).
    """

    pattern: re.Pattern[str]
    status: str | Callable[[re.Match[str]], str | None] | None
    write: Write = "set"
    name: Callable[[re.Match[str]], str] = _group_one
    on_raw: bool = False
    """Match the line before ``LineReader.clean`` ran (forms that carry their own colour codes)."""
    skip_empty: bool = False
    """Record nothing for an empty name (the line is still consumed)."""


def _rule(
    pattern: str,
    status: str | Callable[[re.Match[str]], str | None] | None,
    write: Write = "set",
    *,
    flags: int = 0,
    **options: Any,
) -> Rule:
    return Rule(re.compile(pattern, flags), status, write, **options)


@dataclass(frozen=True)
class LineReader:
    """Runs a rule table over every line: the first rule whose pattern matches decides the line."""

    rules: tuple[Rule, ...]
    split: Callable[[str], list[str]] = _split_all
    prepare: Callable[[str], str] = str.strip
    clean: Callable[[str], str] | None = None
    skip_blank: bool = True

    def __call__(self, log: str) -> dict[str, str]:
        results: dict[str, str] = {}
        for raw in self.split(log):
            if self.skip_blank and not raw.strip():
                continue
            line = self.prepare(raw)
            cleaned = self.clean(line) if self.clean else line
            for rule in self.rules:
                match = rule.pattern.match(line if rule.on_raw else cleaned)
                if match is None:
                    continue
                self._record(results, rule, match)
                break
        return results

    @staticmethod
    def _record(results: dict[str, str], rule: Rule, match: re.Match[str]) -> None:
        if rule.status is None:
            return
        status = rule.status if isinstance(rule.status, str) else rule.status(match)
        if status is None:
            return
        name = rule.name(match)
        if rule.skip_empty and not name:
            return
        if rule.write == "set":
            results[name] = status
        elif rule.write == "keep":
            results.setdefault(name, status)
        else:
            _escalate(results, name, status)


def _word_status(table: Mapping[str, str], group: int | str = "status") -> Callable[[re.Match[str]], str]:
    """A status read from a captured word through a runner's own vocabulary."""

    def status(match: re.Match[str]) -> str:
        return table[match.group(group)]

    return status


def _stripped(group: int | str = 1) -> Callable[[re.Match[str]], str]:
    def name(match: re.Match[str]) -> str:
        return match.group(group).strip()

    return name


# --- pytest and its relatives ---------------------------------------------------------------------

_OPTION_PARAMETER = re.compile(r"(.*?)\[(.*)\]")


def _shorten_path_option(test_id: str) -> str:
    """``test[/tmp/x/data.csv]`` -> ``test[/data.csv]``: path parameters differ between machines."""
    found = _OPTION_PARAMETER.search(test_id)
    if not found:
        return test_id
    head, option = found.groups()
    if option.startswith("/") and not option.startswith("//") and "*" not in option:
        option = "/" + option.split("/")[-1]
    return f"{head}[{option}]"


@dataclass(frozen=True)
class PytestLines:
    """pytest's ``STATUS id`` result lines as V2 reads them.

    A line counts when it starts with a status word (so ``ERRORS`` and ``XFAILED`` lines count
    too, keyed by their second word and valued by their first). ``SKIPPED [1] file:3: reason``
    lines are read like any other, under the id ``[1]`` (SWE-bench 5.0.2 drops them). A FAILED
    line's `` - message`` falls away because every `` - `` becomes a space.
    """

    clean: Callable[[str], str] | None = None
    rename: Callable[[str], str] | None = None
    trailing_status: bool = False
    """Also read ``id STATUS`` lines (older pytest, classic console style)."""
    strict: bool = False
    """A status line with a single word is an error, as in V2's ``parse_log_pytest_v2``."""

    def __call__(self, log: str) -> dict[str, str]:
        results: dict[str, str] = {}
        for raw in _split_newlines(log):
            line = self.clean(raw) if self.clean else raw
            if line.startswith(STATUS_WORDS):
                if line.startswith(FAILED):
                    line = line.replace(" - ", " ")
                words = self._words(line)
                if words is None:
                    continue
                test_id = self.rename(words[1]) if self.rename else words[1]
                results[test_id] = words[0]
            elif self.trailing_status and line.endswith(STATUS_WORDS):
                words = self._words(line)
                if words is not None:
                    results[words[0]] = words[1]
        return results

    def _words(self, line: str) -> list[str] | None:
        words = line.split()
        if len(words) >= 2:
            return words
        if self.strict:
            raise LogParseError(f"pytest result line names no test: {line!r}")
        return None


parse_log_pytest = PytestLines()
parse_log_pytest_options = PytestLines(rename=_shorten_path_option)
parse_log_pytest_v2 = PytestLines(clean=_strip_bare_colours, trailing_status=True, strict=True)

_STATUS_ALTERNATIVES = "|".join(STATUS_WORDS)
_NEBO_WORKER_LINE = re.compile(r"\[gw\d+\]\s+\[[^\]]*\]\s+(\w+)\s+(.*)")
_NEBO_TRAILING_LINE = re.compile(rf"([^\s].*?)\s+({_STATUS_ALTERNATIVES})\s+\[[^\]]*\]\s+in\s+\d+(?:\.\d+)?s")
_NEBO_LEADING_LINE = re.compile(rf"({_STATUS_ALTERNATIVES})\s+(.*)")


def _before_timing(text: str) -> str:
    return text.split(" in ")[0].strip()


def parse_log_pytest_nebo(log: str) -> dict[str, str]:
    """pytest-xdist's ``[gw0] [ 50%] PASSED id`` lines, ``id PASSED [ 50%] in 0.1s`` and ``PASSED id``.

    The id runs to the first `` in ``, so a FAILED summary line keeps its message in the name.
    """
    results: dict[str, str] = {}
    for raw in _split_all(log):
        line = _strip_bare_colours(raw).strip()
        if (match := _NEBO_WORKER_LINE.fullmatch(line)) and match.group(1) in STATUS_WORDS:
            results[_before_timing(match.group(2))] = match.group(1)
        elif match := _NEBO_TRAILING_LINE.fullmatch(line):
            results[match.group(1).strip()] = match.group(2).strip()
        elif match := _NEBO_LEADING_LINE.fullmatch(line):
            results[_before_timing(match.group(2))] = match.group(1).strip()
    return results


_CPP_FAILURES_BANNER = "=" * 35 + " FAILURES " + "=" * 35
_CPP_FAILURE_HEADING = re.compile(r"_{27} (.*?) _{27}")
_CPP_RESULT = tuple((re.compile(rf"(.*?)\s+{word}"), word) for word in (PASSED, FAILED, SKIPPED, ERROR))


def _last_node_part(node_id: str) -> str:
    return node_id.split("::")[-1]


def parse_log_cpp(log: str) -> dict[str, str]:
    """pytest ``-v`` lines of C/C++ bindings' suites, keyed by the last ``::`` part of the id.

    A pass is tentative; after the ``FAILURES`` banner only headings with exactly 27 underscores
    on each side are read (pytest centres headings in 80 columns, so only 24-character names fit).
    """
    results: dict[str, str] = {}
    in_failures = False
    for raw in _split_all(log):
        line = raw.strip()
        if not line:
            continue
        if line.startswith(_CPP_FAILURES_BANNER):
            in_failures = True
            continue
        if in_failures:
            if heading := _CPP_FAILURE_HEADING.fullmatch(line):
                results[heading.group(1)] = FAILED
            continue
        for pattern, status in _CPP_RESULT:
            if match := pattern.match(line):
                name = _last_node_part(match.group(1))
                if status == PASSED:
                    results.setdefault(name, status)
                else:
                    results[name] = status
                break
    return results


# --- JUnit XML ------------------------------------------------------------------------------------

TestcaseKey = Callable[[str | None, str | None], str]
"""How a reader spells a test from a ``<testcase>``'s classname and name attributes."""


def _read_testcases(
    elements: Iterable[ElementTree.Element],
    key: TestcaseKey,
    outcome_order: tuple[str, ...],
    results: dict[str, str],
) -> None:
    """Record each ``<testcase>``: the first child in ``outcome_order`` present decides, else PASSED."""
    outcome_status = {"failure": FAILED, "error": ERROR, "skipped": SKIPPED}
    for case in elements:
        status = PASSED
        for child in outcome_order:
            if case.find(child) is not None:
                status = outcome_status[child]
                break
        results[key(case.get("classname"), case.get("name"))] = status


def _parse_xml(text: str) -> ElementTree.Element | None:
    try:
        return ElementTree.fromstring(text)
    except ElementTree.ParseError:
        return None


def _double_colon_key(classname: str | None, name: str | None) -> str:
    return f"{classname}::{name}"


def parse_combined_test_reports(log: str) -> dict[str, str]:
    """Every ``<?xml ... </testsuites>`` report printed in the log, later reports winning.

    Ids are ``classname::name`` (``None`` for a missing attribute); a report that does not parse
    is left out.
    """
    results: dict[str, str] = {}
    position = 0
    while (start := log.find("<?xml", position)) != -1:
        end = log.find("</testsuites>", start)
        if end == -1:
            position = start + len("<?xml")
            continue
        end += len("</testsuites>")
        root = _parse_xml(log[start:end])
        if root is not None:
            _read_testcases(
                root.findall(".//testcase"), _double_colon_key, ("failure", "skipped", "error"), results
            )
        position = end
    return results


def _gradle_key(classname: str | None, name: str | None) -> str:
    name, classname = name or "", classname or ""
    return f"{name} ({classname})" if classname and name else name


def parse_log_gradlew_v1(log: str) -> dict[str, str]:
    """Gradle's ``TEST-*.xml`` files printed into the log, ids ``name (classname)``.

    A report runs from a line starting with ``<?xml`` to a line starting with ``</testsuite>``;
    reports that do not parse (an indented declaration, say) are left out.
    """
    results: dict[str, str] = {}
    block: list[str] | None = None
    for line in _split_newlines(log):
        if line.strip().startswith("<?xml"):
            block = [line]
        elif block is not None:
            block.append(line)
            if line.strip().startswith("</testsuite>"):
                root = _parse_xml("\n".join(block))
                if root is not None:
                    _read_testcases(
                        root.findall(".//testcase"), _gradle_key, ("skipped", "failure", "error"), results
                    )
                block = None
    return results


def _r_junit_key(classname: str | None, name: str | None) -> str:
    name, classname = name or "", classname or ""
    return f"{classname}::{name}" if classname else name


def parse_logs_r_junit(log: str) -> dict[str, str]:
    """testthat's JUnit reporter: the first ``<?xml`` up to ``</testsuites>``, ids ``classname::name``.

    Only ``<testsuite>`` elements below the root are read; a report that does not parse gives
    nothing.
    """
    start = log.find("<?xml")
    if start == -1:
        return {}
    report = log[start:]
    end = report.find("</testsuites>")
    if end != -1:
        report = report[: end + len("</testsuites>")]
    root = _parse_xml(report)
    results: dict[str, str] = {}
    if root is not None:
        for suite in root.findall(".//testsuite"):
            _read_testcases(suite.findall("testcase"), _r_junit_key, ("failure", "error", "skipped"), results)
    return results


_TESTCASE_OPEN = re.compile(r"<testcase\b([^>]*)>", re.DOTALL)
_XML_ATTRIBUTE = re.compile(r'(\w+)="([^"]*)"')
_UNCLOSED_TESTCASE_WINDOW = 4096


def parse_log_junit(log: str) -> dict[str, str]:
    """``<testcase>`` tags found as text anywhere in a noisy log (sbt and other JUnit XML writers).

    No XML parsing: attributes are read as written (entities stay escaped, single-quoted ones
    are not seen), ids are ``classname name``, and a case's body is searched for ``<failure``,
    ``<error`` and ``<skipped``, in that order. An unclosed case looks 4096 characters ahead.
    """
    results: dict[str, str] = {}
    position = 0
    while match := _TESTCASE_OPEN.search(log, position):
        raw_attributes = match.group(1) or ""
        attributes = dict(_XML_ATTRIBUTE.findall(raw_attributes))
        name = attributes.get("name")
        classname = attributes.get("classname", "")
        position = match.end()
        if not name:
            continue
        body = ""
        if not raw_attributes.strip().endswith("/"):
            close = log.find("</testcase>", match.end())
            if close != -1:
                body = log[match.end() : close]
                position = close + len("</testcase>")
            else:
                body = log[match.end() : match.end() + _UNCLOSED_TESTCASE_WINDOW]
        test_id = f"{classname} {name}".strip() if classname else name
        if "<failure" in body:
            results[test_id] = FAILED
        elif "<error" in body:
            results[test_id] = ERROR
        elif "<skipped" in body:
            results[test_id] = SKIPPED
        else:
            results[test_id] = PASSED
    return results


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
    for raw in _split_newlines(log):
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
    for raw in _split_all(log):
        line = raw.strip()
        if not line:
            continue
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
    for raw in _split_all(log):
        line = raw.strip()
        if not line:
            continue
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
    for raw in _split_all(log):
        line = raw.strip()
        if match := _PLAIN_RUNNING.fullmatch(line):
            running = match.group(1)
        elif _PLAIN_SUMMARY.match(line):
            counts = SurefireCounts.search(line, _PLAIN_SUMMARY)
            if running and counts:
                results[running] = _counts_status(counts)
                running = None
    return results


# --- Gradle, Jest, react-pdf, PHPUnit: V2's readings of SWE-bench names ----------------------------

parse_log_gradle_custom = LineReader(
    (
        _rule(
            r"([^>].+?)\s+(PASSED|FAILED)(?:\s+\(\d+(?:\.\d+)?s\))?$", lambda m: m.group(2), name=_group_one
        ),
    ),
    split=_split_newlines,
)
"""``Class > test() PASSED``, optionally followed by ``(1.2s)``; no pairing across lines."""

parse_log_jest = LineReader(
    (
        _rule(
            r"\s*([✓✕○])\s(.+?)(?:\s\((\d+\s*m?s)\))?$",
            _word_status({"✓": PASSED, "✕": FAILED, "○": SKIPPED}, group=1),
            name=lambda m: m.group(2),
        ),
    ),
    split=_split_newlines,
)
"""``jest --verbose`` titles; whitespace left before a duration stays part of the title."""

_JEST_FILE_DURATION = r"(?:\s\([\d.]+\s*(?:ms|s)\))?"
parse_log_react_pdf = LineReader(
    (
        _rule(rf"PASS\s(.*?){_JEST_FILE_DURATION}$", PASSED, name=lambda m: m.group(1).rstrip()),
        _rule(rf"FAIL\s(.*?){_JEST_FILE_DURATION}$", FAILED, name=lambda m: m.group(1).rstrip()),
    ),
    split=_split_newlines,
    prepare=lambda line: line,
    skip_blank=False,
)
"""Jest's per-file ``PASS|FAIL <file> (<duration>)`` lines; the file is the id."""

_TIMING_IN_BRACKETS = re.compile(r"\s*\[\s*\d+(?:\.\d+)?\s*(?:ms|s)\s*\]\s*$", re.IGNORECASE)
_TESTDOX_CLASS = re.compile(r"(\w.+) \(.+\)$")
_TESTDOX_TEST = re.compile(r"\s*([✔✘↩])\s*(.*)$")
_TESTDOX_MARKS = {"✔": PASSED, "✘": FAILED, "↩": SKIPPED}


def parse_log_phpunit(log: str) -> dict[str, str]:
    """PHPUnit ``--testdox``: ``<heading> > <test>``, a ``[1.3 ms]`` timing dropped from the test.

    Only headings of the form ``Title (Class\\Name)`` count; tests before one are keyed ``None > ...``.
    """
    results: dict[str, str] = {}
    heading: str | None = None
    for line in _split_newlines(log):
        if match := _TESTDOX_CLASS.match(line):
            heading = match.group(1)
        elif match := _TESTDOX_TEST.match(line):
            test = _TIMING_IN_BRACKETS.sub("", match.group(2)).strip()
            results[f"{heading} > {test}"] = _TESTDOX_MARKS[match.group(1)]
    return results


# --- Elixir, Ruby ---------------------------------------------------------------------------------

parse_log_elixir = LineReader(
    (
        _rule(r"\*\s+test\s+(.*?)\s+\(skipped\)\s+\[L#\d+\]$", SKIPPED),
        _rule(r"\d+\)\s+test\s+(.*?)\s+\([^)]+\)$", FAILED),
        _rule(r"\*\s+test\s+(.*?)\s+\([0-9]+(?:\.[0-9]+)?ms\)\s+\[L#\d+\]$", PASSED, "keep"),
        _rule(r"\*\s+test\s+(.*?)\s+\[L#\d+\]$", PASSED, "keep"),
    )
)
"""``mix test --trace``: ``* test name (1.2ms) [L#4]`` passes unless a ``1) test name (Module)``
failure heading or a ``(skipped)`` line says otherwise. Coloured lines are not read."""

_MINITEST_SPEC_STATUS = {
    "PASS": PASSED,
    "PASSED": PASSED,
    "FAIL": FAILED,
    "FAILURE": FAILED,
    "SKIP": SKIPPED,
    "SKIPPED": SKIPPED,
    "ERROR": ERROR,
}
_MINITEST_SPEC_RANK = {PASSED: 0, SKIPPED: 0, FAILED: 1, ERROR: 2}
_MINITEST_SPEC_LINE = re.compile(
    r"\s*(test[^A-Z\n]+?)\s+(PASS|PASS(?:ED)?|FAIL|FAILURE|ERROR|SKIP|SKIPPED)\b(?:\s*\([0-9.]+s\))?$"
)
_MINITEST_SPEC_SUITE = re.compile(r"[A-Z][A-Za-z0-9_]*")


def parse_log_ruby_v1(log: str) -> dict[str, str]:
    """minitest-reporters' SpecReporter: a ``SuiteName`` line, then ``  test_x   PASS (0.01s)`` lines.

    Ids are ``Suite::test_x``; test names with capitals are not read. A test reported twice keeps
    its worst status (ERROR over FAILED over PASSED/SKIPPED, first one winning a tie).
    """
    results: dict[str, str] = {}
    suite: str | None = None
    for raw in _split_all(log):
        line = raw.rstrip()
        if not line or line.startswith("Finished in "):
            continue
        if not line.startswith(" ") and _MINITEST_SPEC_SUITE.fullmatch(line):
            suite = line
            continue
        match = _MINITEST_SPEC_LINE.match(line)
        if not match:
            continue
        test = match.group(1).strip()
        name = f"{suite}::{test}" if suite else test
        status = _MINITEST_SPEC_STATUS[match.group(2)]
        previous = results.get(name)
        if previous is None or _MINITEST_SPEC_RANK[status] > _MINITEST_SPEC_RANK[previous]:
            results[name] = status
    return results


parse_log_ruby_v2 = LineReader(
    (
        _rule(
            r"(.+?#.+?)\s+=\s+[\d.]+\s+s\s+=\s+([.FES])$",
            _word_status({".": PASSED, "F": FAILED, "E": FAILED, "S": SKIPPED}, group=2),
        ),
    )
)
"""``ruby -Itest x_test.rb -v``: ``Class#test_x = 0.01 s = .``; an error (``E``) counts as FAILED."""


# --- C and C++ ------------------------------------------------------------------------------------

parse_log_cpp_v2 = LineReader(
    (
        _rule(r"Test\s+(.*?)\s+passed$", PASSED, "keep"),
        _rule(r"Test\s+(.*?)\s+failed$", FAILED),
        _rule(r"Test\s+(.*?)\s+skipped$", SKIPPED),
    )
)
"""``Test <name>   passed|failed|skipped`` lines; a failure or skip overrides a pass."""

_BOTAN_GROUP = re.compile(r"(.*?)\s+ran\s+(\d+)\s+tests\s+in\s+[\d.]+\s+(?:msec|sec)\s+(.+)$", re.IGNORECASE)
_WORD_FAILED = re.compile(r"\bfailed\b", re.IGNORECASE)
_ELLIPSIS_RESULT = re.compile(r"(?:\[[0-9]+/[0-9]+\]\s*)?(.*?)\s*\.\.\.\s*(\w+)$")
_SKIP_WORD = re.compile(r"\bSKIPPED\b", re.IGNORECASE)
_FAIL_WORD = re.compile(r"\bFAILED\b|\bFAIL\b|\bFailure\b", re.IGNORECASE)
_PASS_WORD = re.compile(r"\bOK\b|\bPASSED\b", re.IGNORECASE)


def _keyword_status(*texts: str) -> str | None:
    for pattern, status in ((_SKIP_WORD, SKIPPED), (_FAIL_WORD, FAILED), (_PASS_WORD, PASSED)):
        if any(pattern.search(text) for text in texts):
            return status
    return None


def parse_log_cpp_v3(log: str) -> dict[str, str]:
    """``[12/414] Name... OK`` lines, Botan's ``AES ran 17 tests in 3.1 msec all ok`` groups, and keywords.

    Botan groups are keyed without their timing (``AES ran 17 tests all ok``). Any other line
    holding a skip, failure or ``OK``/``PASSED`` word counts as a test named by the whole line.
    """
    results: dict[str, str] = {}
    for raw in _split_all(log):
        line = raw.strip()
        if not line:
            continue
        if group := _BOTAN_GROUP.match(line):
            tail = group.group(3).strip()
            key = f"{group.group(1).strip()} ran {group.group(2)} tests {tail}"
            results[key] = FAILED if _WORD_FAILED.search(tail) else PASSED
        elif match := _ELLIPSIS_RESULT.match(line):
            results[match.group(1).strip()] = _keyword_status(match.group(2).upper(), line) or ERROR
        elif status := _keyword_status(line):
            results[line] = status
    return results


parse_log_cpp_v4 = LineReader(
    (
        _rule(
            r"\s*\d+/\d+\s+Test\s+#\d+:\s+(.+?)\s+\.+\s+(Passed|Failed|Skipped|Timeout)\b",
            lambda m: {"PASSED": PASSED, "FAILED": FAILED, "TIMEOUT": FAILED}.get(
                m.group(2).upper(), SKIPPED
            ),
            flags=re.IGNORECASE,
            name=_stripped(),
        ),
    ),
    prepare=lambda line: line,
)
"""ctest's ``1/6 Test #1: name ....   Passed   0.01 sec`` lines. The status must follow blanks, so
ctest's ``***Failed``/``***Timeout`` lines are not read."""


# --- Lua (plenary.nvim busted) --------------------------------------------------------------------

parse_lue_nvim = LineReader(
    (
        _rule(r"(?!.*\|\|)[^\t]*:", None),
        _rule(r"(?:Fail|Failed)\s*\|\|\s*(.+?)\s*$", FAILED, name=_stripped()),
        _rule(r"(?:Skip|Skipped)\s*\|\|\s*(.+?)\s*$", SKIPPED, "keep", flags=re.IGNORECASE, name=_stripped()),
        _rule(r"Success\s*\|\|\s*(.+?)\s*$", PASSED, "keep", name=_stripped()),
    ),
    prepare=lambda line: _ANSI_SGR.sub("", line).rstrip(),
)
"""plenary.nvim's ``Success || name`` / ``Fail || name`` lines; a failure wins over a pass or skip.
Counter lines (``Success: 3``) are skipped."""


# --- PHP (Pest / collision) -----------------------------------------------------------------------

_CROSS = "\u2a2f"
_PEST_TIMING_WIDE = re.compile(r"\s{2,}\d+(?:\.\d+)?s\s*$")
_PEST_TIMING = re.compile(r"\s+\d+(?:\.\d+)?s\s*$")
_PEST_SUITE_FAIL = re.compile(r"\s*FAIL(?:ED)?\s+(?P<name>\S.+)$", re.IGNORECASE)
_PEST_FAIL = (
    re.compile(rf"\s*(?:{_CROSS}|x)\s+(?P<name>.+?)\s{{2,}}\d+\.?\d*s\b.*$", re.IGNORECASE),
    re.compile(rf"\s*(?:{_CROSS}|x)\s+(?P<name>.+?)\s*$", re.IGNORECASE),
)
_PEST_SKIP = (
    re.compile(r"\s*-\s+(?P<name>.+?)\s{2,}\d+\.?\d*s\b.*$"),
    re.compile(r"\s*-\s+(?P<name>.+?)\s*$"),
)
_PEST_PASS = (
    re.compile(r"\s*(?:✓|✔)\s+(?P<name>.+?)\s{2,}\d+\.?\d*s\b.*$"),
    re.compile(r"\s*(?:✓|✔)\s+(?P<name>.+?)\s*$"),
)
_PEST_INLINE_SKIP = re.compile(r"\(skipped\)|\bSKIPPED\b", re.IGNORECASE)
_PEST_MARK = re.compile(rf"^\s*(?:✓|✔|{_CROSS}|x|-)\s+")


def _pest_name(text: str) -> str:
    text = _PEST_TIMING_WIDE.sub("", text.rstrip())
    return _PEST_TIMING.sub("", text).strip()


def _first_match(patterns: Iterable[re.Pattern[str]], line: str) -> re.Match[str] | None:
    return next((match for pattern in patterns if (match := pattern.match(line))), None)


def parse_log_php_v1(log: str) -> dict[str, str]:
    """Pest/collision output: ``✓ name 0.02s``, a cross (U+2A2F) before a failed name, ``- name``
    (skipped), ``FAIL  Class``.

    Timings are dropped from names. ``PASS  Class`` lines are not tests; a ``FAIL  Class`` line is,
    as is any line that reads like one (``x = 1`` counts as a failed ``= 1``). A failure or skip
    overrides a pass; a line saying ``SKIPPED`` otherwise counts as a skip if not seen yet.
    """
    results: dict[str, str] = {}
    for raw in _split_all(log):
        line = raw.rstrip()
        if not line:
            continue
        stripped = line.strip()
        if stripped.startswith(("___", "---", "Tests:", "Duration:")):
            continue
        if match := _PEST_SUITE_FAIL.match(line):
            results[_pest_name(match.group("name"))] = FAILED
        elif match := _first_match(_PEST_FAIL, line):
            if name := _pest_name(match.group("name")):
                results[name] = FAILED
        elif match := _first_match(_PEST_SKIP, line):
            if name := _pest_name(match.group("name")):
                results[name] = SKIPPED
        elif match := _first_match(_PEST_PASS, line):
            if name := _pest_name(match.group("name")):
                results.setdefault(name, PASSED)
        elif _PEST_INLINE_SKIP.search(line):
            token = _pest_name(_PEST_MARK.sub("", line))
            if token and token not in results:
                results[token] = SKIPPED
    return results


# --- Haskell --------------------------------------------------------------------------------------

_TASTY_STATUS = {
    "OK": PASSED,
    "PASS": PASSED,
    "FAIL": FAILED,
    "ERROR": ERROR,
    "SKIP": SKIPPED,
    "PENDING": SKIPPED,
}

parse_log_haskell = LineReader(
    (
        _rule(r".*?(?:Test suite |Linking |Building |Running  )", None),
        _rule(
            r"\s*(?P<name>.+?)\s*:\s*(?P<status>OK|PASS|FAIL|ERROR|SKIP|PENDING)(?:\b|\s|$)",
            _word_status(_TASTY_STATUS),
            name=_stripped("name"),
        ),
        _rule(r"\s*(?P<name>.+?)\s*:\s*(?:SKIP|PENDING)\b.*$", SKIPPED, name=_stripped("name")),
        _rule(r"\s+(?P<name>.+?)\s+\[(?:✓|✔)\]\s*$", PASSED, "keep", name=_stripped("name")),
        _rule(r"\s+(?P<name>.+?)\s+\[(?:✗|✘)\]\s*$", FAILED, name=_stripped("name")),
        _rule(r"\s*(?:✓|✔)\s+(?P<name>.+?)(?:\s+\(.*?\))?\s*$", PASSED, "keep", name=_stripped("name")),
        _rule(r"\s*(?:✗|✘)\s+(?P<name>.+?)\s*$", FAILED, name=_stripped("name")),
        _rule(r"\s*\d+\)\s+(?P<name>.+?)\s*$", FAILED, name=_stripped("name")),
        _rule(r"###\s+Failure\s+in:\s+(?P<name>.+)$", FAILED, name=_stripped("name")),
        _rule(r"###\s+Error\s+in:\s+(?P<name>.+)$", ERROR, name=_stripped("name")),
    ),
    prepare=lambda line: _ANSI_SGR.sub("", line).rstrip(),
)
"""tasty's ``name: OK``, hspec's ``✔ name`` / ``name [✔]`` / ``1) name`` and HUnit's ``### Failure in:``.
Ids are the leaf titles only."""

_HSPEC_FAILURE_ENTRY = re.compile(r"\s*\d+\)\s+(.*)$")
_HSPEC_FAILURES_END = ("To rerun use:", "Randomized with seed", "Finished in ", "Test suite ")
_HSPEC_TREE_NOISE = (
    "Downloading",
    "Building",
    "Installing",
    "Completed",
    "Starting",
    "Preprocessing",
    "Configuring",
    "Linking",
    "Resolving dependencies",
    "Build profile",
    "In order, the following will be built",
    "Error:",
    "Test suite ",
    "Running ",
)
_HSPEC_INFO = "Golden and Actual output didn't change"
_HSPEC_INLINE_FAILED = re.compile(r"(.*?)\s+FAILED\s*\[\d+\]$")
_HSPEC_INLINE_PENDING = re.compile(r"(.*?)\s+(?:PENDING|SKIPPED)\b.*$", re.IGNORECASE)


def _spaces(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _hspec_failure_names(lines: list[str], start: int) -> set[str]:
    """The ``Failures:`` list: ``1) Group, sub group, example`` -> ``Group.sub group.example``."""
    names: set[str] = set()
    for line in lines[start:]:
        text = line.strip()
        if not text:
            continue
        if text.startswith(_HSPEC_FAILURES_END):
            break
        if match := _HSPEC_FAILURE_ENTRY.match(text):
            names.add(".".join(part.strip() for part in match.group(1).strip().split(",")))
    return names


def _hspec_tree_start(lines: list[str]) -> int:
    for index, line in enumerate(lines):
        if line.startswith("Test suite ") and ": RUNNING..." in line:
            return index + 1
    for index, line in enumerate(lines):
        if (
            line
            and not line.startswith(" ")
            and "." in line
            and not any(k in line for k in _HSPEC_TREE_NOISE)
        ):
            return index
    return 0


def parse_log_haskell_v2(log: str) -> dict[str, str]:
    """hspec's indented tree (two spaces a level) under ``Test suite x: RUNNING...``, ids ``Group.sub.example``.

    A line is an example when the next significant line is not indented deeper; ``FAILED [1]``
    and ``PENDING`` suffixes give its status, otherwise it passed. Entries of the ``Failures:``
    list are FAILED too. Everything from the tree's start to ``Failures:`` (or the end of the
    log) is read, summary lines included.
    """
    lines = _split_all(log)
    failures_at = next((i for i, line in enumerate(lines) if line.strip() == "Failures:"), None)
    failed = _hspec_failure_names(lines, failures_at + 1) if failures_at is not None else set()
    end = failures_at if failures_at is not None else len(lines)

    def significant(index: int) -> bool:
        text = lines[index].strip()
        return bool(text) and text != _HSPEC_INFO

    results: dict[str, str] = {}
    path: list[str] = []
    for index in range(_hspec_tree_start(lines), end):
        if not significant(index):
            continue
        line = lines[index]
        text = line.strip()
        indent = _spaces(line)
        level = indent // 2
        status = PASSED
        if match := _HSPEC_INLINE_FAILED.match(text):
            title, status = match.group(1).strip(), FAILED
        elif match := _HSPEC_INLINE_PENDING.match(text):
            title, status = match.group(1).strip(), SKIPPED
        else:
            title = text
        del path[level:]
        path.extend([""] * (level - len(path)))
        path.append(title)
        following = next((j for j in range(index + 1, end) if significant(j)), None)
        if following is None or _spaces(lines[following]) <= indent:
            results[".".join(part for part in path if part)] = status
    for name in failed:
        results[name] = FAILED
    return results


# --- mocha, node TAP and other JavaScript reporters -----------------------------------------------

_JS_DURATION = re.compile(r"\s*(?:\(\s*)?\d+(?:\.\d+)?\s*(?:ms|s)\s*(?:\))?\s*$", re.IGNORECASE)


def strip_js_duration(name: str) -> str:
    """``adds (53ms)`` -> ``adds``; also a bare ``53ms`` or ``2s`` at the end of a title."""
    return _JS_DURATION.sub("", name).strip()


def _js_title(group: int = 1) -> Callable[[re.Match[str]], str]:
    def name(match: re.Match[str]) -> str:
        return strip_js_duration(match.group(group))

    return name


_MOCHA_PENDING = _rule(r"\s*-\s+(.*?)$", SKIPPED, name=_js_title(), skip_empty=True)
_MOCHA_PASS = _rule(r"\s*✔\s+(.*?)$", PASSED, "keep", name=_js_title(), skip_empty=True)

parse_log_js = LineReader(
    (
        _MOCHA_PENDING,
        _rule(r"\s*\d+\)\s+(.*?):$", FAILED, name=_js_title(), skip_empty=True),
        _rule(
            r"\s*\[W\]\s*\d+\)\s+(.*?)$",
            FAILED,
            name=lambda m: strip_js_duration(m.group(1).rstrip()),
            skip_empty=True,
        ),
        _MOCHA_PASS,
    )
)
"""mocha spec titles: ``✔ title`` passes, ``- title`` pending, and ``1) title:`` or ``[W] 1) title``
failures (a failure listed as ``1) Suite`` then ``title:`` on the next line is not read)."""

parse_log_js_2 = LineReader(
    (
        _MOCHA_PENDING,
        _rule(r"\s*\d+\)\s+(.*?)$", FAILED, name=_js_title(), skip_empty=True),
        _MOCHA_PASS,
    )
)
"""mocha spec titles: ``✔ title``, ``- title`` pending, and every ``1) ...`` line as a failure
(including the first line of each entry in the failure list)."""

parse_log_npx = LineReader(
    (
        _rule(r"\s*✔\s+(.+?)(?:\s+\(\d+(?:ms)?\))?$", PASSED, name=_stripped()),
        _rule(r"\s*\d+\)\s+(.+)$", FAILED, name=lambda m: re.sub(r"\s+\([^)]+\)$", "", m.group(1).strip())),
    ),
    prepare=str.rstrip,
)
"""mocha through npx: ``✔ title (53ms)`` and ``1) title``, the last report of a title winning."""

_TAP_RESULT = re.compile(r"(?P<status>not ok|ok)\s+\d+\s+-\s+(?P<name>.*?)(?:\s+#.*)?$")
_TAP_SKIP_DIRECTIVES = ("# skip", "# skipped", "# todo")


def parse_log_js_3(log: str) -> dict[str, str]:
    """TAP ``ok 3 - name`` lines with TAP 14's buffered subtests (``ok 1 - suite {`` ... ``}``).

    Ids join open subtests with `` :: ``. A ``# SKIP`` directive after a blank is dropped with the
    rest of the comment (the line keeps its ok/not ok meaning); only a directive glued to the
    name (``name# skip``) marks a skip. A failure overrides; a pass never replaces a known result.
    """
    results: dict[str, str] = {}
    stack: list[str] = []
    for raw in _split_all(log):
        line = raw.strip()
        if not line:
            continue
        if not line.replace("}", ""):
            del stack[max(len(stack) - line.count("}"), 0) :]
            continue
        opens = line.endswith("{")
        if opens:
            line = line[:-1].rstrip()
        match = _TAP_RESULT.match(line)
        if not match:
            continue
        raw_name = match.group("name")
        name = strip_js_duration(re.split(r"\s+#", raw_name, maxsplit=1)[0].strip())
        if not name:
            continue
        full_name = " :: ".join((*stack, name))
        if any(directive in raw_name.lower() for directive in _TAP_SKIP_DIRECTIVES):
            results[full_name] = SKIPPED
        elif match.group("status") == "not ok" or full_name not in results:
            results[full_name] = PASSED if match.group("status") == "ok" else FAILED
        if opens:
            stack.append(name)
    return results


_JS4_SYMBOLS = {
    **dict.fromkeys(("✔", "✓"), PASSED),
    **dict.fromkeys(("✘", "✖", "\u00d7"), FAILED),
    **dict.fromkeys(("○", "◌", "◦", "⚪"), SKIPPED),
}
_JS4_SKIP_MARKERS = ("(skipped)", "[skip]", "[skipped]", "[pending]", "[todo]")


def _without_tag(payload: str) -> str:
    """``[chromium]: title`` -> ``title``: a runner's bracketed project tag is not part of the title."""
    payload = payload.strip()
    if payload.startswith("[") and "]:" in payload:
        payload = payload.split("]:", 1)[1].strip()
    if payload.startswith(":"):
        payload = payload[1:].strip()
    return payload


def parse_log_js_4(log: str) -> dict[str, str]:
    """Any reporter that starts a result line with a symbol (✔ ✓ pass; ✘, ✖ or the
    multiplication sign fail; ○ ◌ ◦ ⚪ skip).

    A pass is tentative. Lines with a lower-case ``(skipped)``, ``[skip]``, ``[pending]`` or
    ``[todo]`` marker count as skipped, the marker removed from the name.
    """
    results: dict[str, str] = {}
    for raw in _split_all(log):
        line = raw.strip()
        if not line:
            continue
        status = _JS4_SYMBOLS.get(line[0])
        if status is not None:
            name = strip_js_duration(_without_tag(line[1:]))
            if not name:
                continue
            if status == PASSED:
                results.setdefault(name, status)
            else:
                results[name] = status
            continue
        if any(marker in line.lower() for marker in _JS4_SKIP_MARKERS):
            candidate = line
            for marker in _JS4_SKIP_MARKERS:
                candidate = candidate.replace(marker, "")
            if name := strip_js_duration(candidate):
                results[name] = SKIPPED
    return results


# --- Julia ----------------------------------------------------------------------------------------

_JULIA_ROW = re.compile(r"(\s*)(.+?)\s+\|(.+)$")


def _julia_status(columns: str, has_fail: bool, has_error: bool) -> str | None:
    """A summary row's status from its integer columns (Pass, Fail, Error, Broken, Total, blanks omitted)."""
    try:
        counts = [int(part) for part in columns.split() if part.isdigit()]
    except ValueError as exc:  # a digit that is not ASCII (superscripts) passes isdigit only
        raise LogParseError(f"Julia summary row with an unreadable count: {columns!r}") from exc
    if len(counts) < 2:
        return None
    if len(counts) == 2:
        blank_pass = len(columns) - len(columns.lstrip()) >= 10
        return ERROR if blank_pass or counts[0] != counts[-1] else PASSED
    if len(counts) == 3:
        if counts[1] == 0:
            return PASSED
        return FAILED if has_fail and not has_error else ERROR
    if counts[2] > 0:
        return ERROR
    return FAILED if counts[1] > 0 else PASSED


def parse_log_julia(log: str) -> dict[str, str]:
    """Julia's ``Test Summary:`` tables: every ``name | counts`` row after the first header.

    Which columns a three-number row has comes from the latest header that lists ``Pass``; a row
    whose Pass column is blank, or whose Error column is non-zero, is ERROR.
    """
    results: dict[str, str] = {}
    in_summary = has_fail = has_error = False
    for raw in _split_all(log):
        if "Test Summary:" in raw:
            in_summary = True
            if "| Pass" in raw:
                header = raw.split("|")[1]
                has_fail, has_error = "Fail" in header, "Error" in header
            continue
        if not in_summary:
            continue
        if row := _JULIA_ROW.match(raw):
            status = _julia_status(row.group(3), has_fail, has_error)
            if status is not None:
                results[row.group(2).strip()] = status
    return results


# --- R --------------------------------------------------------------------------------------------

_R_TIMING = re.compile(r"\s*\[\s*\d+(?:\.\d+)?\s*[a-zA-Z]+\]$")
_TESTTHAT_CONTEXT = re.compile(r"([✔✖])\s+\|[^|]+\|\s+(.+)$")
_TESTTHAT_PROBLEM = re.compile(r"(Failure|Error)\s+\([^)]+\):\s+(.+)$")
_TESTTHAT_FAILED_SECTION = ("── Failed tests ──", "== Failed tests ==")
_TESTTHAT_SECTION_END = ("[ FAIL", "══ Results ══")


def _r_name(text: str) -> str:
    return _R_TIMING.sub("", text.strip()).strip()


def parse_log_r(log: str) -> dict[str, str]:
    """testthat's progress table (``✔ |  2 | context [0.1s]`` rows, ids are contexts) and its
    ``── Failed tests ──`` section (``Failure ('file.R:8'): test name`` entries)."""
    lines = _split_all(log)
    results: dict[str, str] = {}
    for raw in lines:
        if match := _TESTTHAT_CONTEXT.match(raw.strip()):
            results[_r_name(match.group(2))] = PASSED if match.group(1) == "✔" else FAILED
    in_section = False
    for raw in lines:
        line = raw.strip()
        if line.startswith(_TESTTHAT_FAILED_SECTION):
            in_section = True
            continue
        if in_section and line.startswith(_TESTTHAT_SECTION_END):
            break
        if in_section and (match := _TESTTHAT_PROBLEM.match(line)):
            results[_r_name(match.group(2))] = FAILED if match.group(1) == "Failure" else ERROR
    return results


_R_CHECK_STATUS = {
    "OK": PASSED,
    "NOTE": PASSED,
    "NOTES": PASSED,
    "WARNING": FAILED,
    "WARNINGS": FAILED,
    "ERROR": ERROR,
    "ERRORS": ERROR,
    "FAIL": FAILED,
    "FAILED": FAILED,
    "SKIPPED": SKIPPED,
}
_R_CHECK_DONE = re.compile(r"\* checking (.+?) \.\.\. ([A-Z]+)$")
_R_CHECK_OPEN = re.compile(r"\* checking (.+?) \.\.\.$")


def parse_log_r_v2(log: str) -> dict[str, str]:
    """``R CMD check``: each ``* checking X ... OK`` is a test; unknown words (``NONE``) pass.

    A check whose ``...`` ends its line takes its status from the first later line that starts
    with a status word (``Running 'testthat.R'`` lines are skipped); one still open at the end
    passed. A line of only dots or colons while a check is open is an error, as in V2's reader.
    """
    results: dict[str, str] = {}
    pending: str | None = None
    for raw in _split_all(log):
        text = raw.strip()
        if not text:
            continue
        if pending:
            words = text.strip(".:!").split()
            if not words:
                raise LogParseError(f"R CMD check line after {pending!r} has no word: {text!r}")
            if words[0].upper() in _R_CHECK_STATUS:
                results[pending] = _R_CHECK_STATUS[words[0].upper()]
                pending = None
            continue
        if match := _R_CHECK_DONE.match(text):
            results[match.group(1)] = _R_CHECK_STATUS.get(match.group(2).upper(), PASSED)
        elif match := _R_CHECK_OPEN.match(text):
            pending = match.group(1)
    if pending and pending not in results:
        results[pending] = PASSED
    return results


# --- Clojure (Leiningen) --------------------------------------------------------------------------

_LEIN_TEST = re.compile(r"lein test (.+)$")


def parse_log_lein(log: str) -> dict[str, str]:
    """``lein test my.ns`` lines name namespaces (the ids); a ``FAIL in``/``ERROR in`` after one marks it.

    ``lein test :only my.ns/test-x`` counts as namespace ``my.ns``.
    """
    results: dict[str, str] = {}
    current: str | None = None
    for raw in _split_all(log):
        line = raw.strip()
        if not line:
            continue
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


# --- Dart -----------------------------------------------------------------------------------------


def _json_events(log: str) -> Iterable[dict[str, Any]]:
    """Objects of ``dart test --reporter json`` (one JSON value a line; arrays are flattened)."""
    for raw in _split_all(log):
        line = raw.strip()
        if not line:
            continue
        try:
            decoded = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(decoded, dict):
            yield decoded
        elif isinstance(decoded, list):
            yield from (item for item in decoded if isinstance(item, dict))


def _dart_done_status(event: Mapping[str, Any]) -> str | None:
    result = event.get("result")
    if result in ("success", "failure", "error"):
        return {"success": PASSED, "failure": FAILED, "error": ERROR}[result]
    return SKIPPED if event.get("skipped", False) else None


def parse_log_dart(log: str) -> dict[str, str]:
    """The JSON reporter's ``testStart``/``testDone`` events, ids are test names.

    ``loading <file>`` pseudo-tests and hidden tests are left out. A skipped test reports
    ``result: success``, so it counts as PASSED.
    """
    names: dict[Any, str] = {}
    results: dict[str, str] = {}
    try:
        for event in _json_events(log):
            kind = event.get("type")
            if kind == "testStart":
                test = event.get("test")
                if not isinstance(test, dict):
                    continue
                test_id, name = test.get("id"), test.get("name")
                if test_id is None or not name:
                    continue
                if not isinstance(name, str):
                    raise LogParseError(f"dart test name is not text: {name!r}")
                if not name.startswith("loading "):
                    names[test_id] = name
            elif kind == "testDone":
                test_id = event.get("testID")
                if test_id is None or event.get("hidden", False) or test_id not in names:
                    continue
                if (status := _dart_done_status(event)) is not None:
                    results[names[test_id]] = status
    except TypeError as exc:  # an id that cannot be a key
        raise LogParseError(f"dart event with an unusable test id: {exc}") from exc
    return results


_DART_PACKAGE_LINE = re.compile(r"\[[\w_]+\]:\s+\d{2}:\d{2}\s+\+(\d+):\s+(/[^:]+\.dart):\s+(.+)$")


def parse_log_dart_v2(log: str) -> dict[str, str]:
    """``[pkg]: 00:01 +3: /abs/test.dart: name`` progress lines of a multi-package run.

    A test seen on two or more lines passed; seen once it is ERROR. Lines with ``loading`` and
    lines with a failure count (``+3 -1:``) are not read. Ids are ``<file>: <name>``.
    """
    seen: dict[str, int] = {}
    for raw in _split_all(log):
        line = raw.strip()
        if not line or "loading" in line.lower():
            continue
        if match := _DART_PACKAGE_LINE.match(line):
            key = f"{match.group(2)}: {match.group(3)}"
            seen[key] = seen.get(key, 0) + 1
    return {key: PASSED if count >= 2 else ERROR for key, count in seen.items()}


_DART_COMPACT_TEST = r"\d+:\d+\s+\+\d+(?:\s+-\d+)?:\s+(/[^:]+\.dart):\s+(.+?)(?:\s+\[E\])?$"


def _dart_compact_name(match: re.Match[str]) -> str:
    return f"{match.group(1)}: {match.group(2).strip()}"


parse_log_dart_v3 = LineReader(
    (
        _rule(r"\d+:\d+\s+\+\d+\s+-\d+:\s+loading\s+(/[^:]+\.dart)\s+\[E\]$", ERROR),
        _rule(rf"(?=.*\[E\]){_DART_COMPACT_TEST}", FAILED, name=_dart_compact_name),
        _rule(_DART_COMPACT_TEST, PASSED, "keep", name=_dart_compact_name),
    )
)
"""The compact reporter's ``00:01 +3: /abs/test.dart: name`` lines: ``[E]`` marks a failure,
anything else a tentative pass; a file that failed to load is ERROR under its path."""


# --- Scala ----------------------------------------------------------------------------------------

parse_log_scala = LineReader(
    (
        _rule(r"\[info\]\s+-\s+(.*?)\s+\*\*\*\s+FAILED\s+\*\*\*\s+\([^)]+\)$", FAILED),
        _rule(r"\[info\]\s+-\s+(.*?)\s+!!!\s+CANCELED\s+!!!\s+\([^)]+\)$", SKIPPED),
        _rule(r"\[info\]\s+-\s+(.*?)\s+!!!\s+IGNORED\s+!!!", SKIPPED),
        _rule(r"\[info\]\s+-\s+(.*?)\s+\([^)]+\)$", PASSED, "keep"),
    )
)
"""ScalaTest in sbt: ``[info] - title (5 milliseconds)``, ``*** FAILED ***``, ``!!! CANCELED !!!``,
``!!! IGNORED !!!``. A pass line needs its timing."""

_SCALA_COLOURS = re.compile(r"\x1b\[[0-9;]*m|\[(?:[0-9]{1,2}m)")
_SCALA_TIME = r"[\d.]+[mμn]?s"
parse_log_scala_v2 = LineReader(
    (
        _rule(rf"\s*x\s+\[0m\[31m(.*?)\[0m\s+\[90m{_SCALA_TIME}\[0m\s*$", FAILED, on_raw=True),
        _rule(rf"\s*x\s+(.*?)\s+{_SCALA_TIME}\s*$", FAILED),
        _rule(rf"\s*\+\s+\[0m\[32m(.*?)\[0m\s+\[90m{_SCALA_TIME}\[0m\s*$", PASSED, on_raw=True),
        _rule(rf"\s*\+\s+(.*?)\s+{_SCALA_TIME}\s*$", PASSED),
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
    for raw in _split_all(log):
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


# --- OCaml ----------------------------------------------------------------------------------------

_ALCOTEST_WORDS = {
    "OK": PASSED,
    "PASS": PASSED,
    "FAIL": FAILED,
    "FAILED": FAILED,
    "ERROR": ERROR,
    "ERR": ERROR,
    "SKIP": SKIPPED,
    "SKIPPED": SKIPPED,
    "TODO": SKIPPED,
}
_ALCOTEST_LINE = re.compile(r"\s*\[(?P<status>[A-Z]+)\]\s+(?P<suite>.*?)\s+(?P<index>\d+)\s+(?P<name>.+)$")


def parse_log_ocaml(log: str) -> dict[str, str]:
    """Alcotest's ``  [OK]   suite   0   title.`` lines, ids ``suite 0 title.``; unknown words are ERROR.

    The line for the failure being detailed (``> [FAIL] ...``) and the boxed repeat are not read.
    """
    results: dict[str, str] = {}
    for raw in _split_all(log):
        match = _ALCOTEST_LINE.match(raw.rstrip())
        if not match:
            continue
        name = " ".join(
            part for part in (match["suite"].strip(), match["index"], match["name"].strip()) if part
        )
        status = _ALCOTEST_WORDS.get(match["status"], ERROR)
        if status == PASSED:
            results.setdefault(name, status)
        else:
            results[name] = status
    return results


_DUNE_RUNNING = re.compile(r"Running\[(?P<id>\d+)\]:\s+\((?P<command>.+)\)$")
_DUNE_OUTPUT = re.compile(r"Output\[(?P<id>\d+)]:")
_DUNE_FAIL_WORDS = ("FAIL", "ERROR", "EXCEPTION", "CRASH", "FATAL")
_DUNE_SKIP_WORDS = ("SKIP", "SKIPPED")


def _dune_test_binary(command: str) -> str:
    """``cd _build/default/test && ./test_x.exe -v`` -> ``test_x.exe``."""
    command = command.split("&&")[-1].strip()
    command = command.removeprefix("exec ").strip() if command.startswith("exec ") else command
    command = command.removeprefix("./")
    words = command.split()
    return words[0].rsplit("/", 1)[-1] if words else ""


@dataclass
class _DuneRuns:
    """Which test binary each ``Output[N]:`` block of ``dune --display verbose`` belongs to."""

    binaries: dict[int, str] = field(default_factory=dict)
    active: str | None = None
    with_output: set[str] = field(default_factory=set)
    results: dict[str, str] = field(default_factory=dict)

    def read(self, raw: str) -> None:
        line = raw.strip()
        if not line:
            return
        if match := _DUNE_RUNNING.match(line):
            run = int(match["id"])
            self.binaries[run] = _dune_test_binary(match["command"]) or f"run_{run}"
            self.active = None
        elif match := _DUNE_OUTPUT.match(line):
            self.active = self.binaries.get(int(match["id"]))
        elif self.active:
            self.with_output.add(self.active)
            upper = line.upper()
            if any(word in upper for word in _DUNE_FAIL_WORDS):
                _escalate(self.results, self.active, FAILED)
            elif any(word in upper for word in _DUNE_SKIP_WORDS):
                _escalate(self.results, self.active, SKIPPED)
            elif upper == "OK":
                _escalate(self.results, self.active, PASSED)


def parse_log_ocaml_v2(log: str) -> dict[str, str]:
    """``dune test --display verbose``: one result per test binary, from its ``Output[N]:`` block.

    A block line containing FAIL/ERROR/EXCEPTION/CRASH/FATAL fails the binary, SKIP skips it,
    a bare ``OK`` passes it; a binary with output and no verdict passed. Blocks run until the
    next ``Running[N]:`` line. dune 2 prints no ``Output[N]:`` lines, so its logs give nothing.
    """
    runs = _DuneRuns()
    for raw in _split_all(log):
        runs.read(raw)
    for binary in runs.with_output:
        runs.results.setdefault(binary, PASSED)
    return runs.results


_BRACKET_WORDS = {
    **dict.fromkeys(("OK", "PASS", "PASSED", "SUCCESS"), PASSED),
    **dict.fromkeys(("SKIP", "SKIPPED", "TODO", "PENDING", "DISABLED"), SKIPPED),
    **dict.fromkeys(("FAIL", "FAILED", "ERROR", "EXCEPTION", "CRASH", "FATAL", "KO", "PANIC"), FAILED),
}
_BRACKET_LINE = re.compile(r"\[(?P<word>[A-Za-z][A-Za-z0-9_-]*)\]\s+(?P<body>.+)$")


def parse_log_ocaml_v3(log: str) -> dict[str, str]:
    """Lines starting ``[OK]``, ``[FAIL]``, ``[SKIP]`` (and synonyms, any case), ids the rest of the
    line with blanks collapsed; an error counts as FAILED and the worst report wins."""
    results: dict[str, str] = {}
    for raw in _split_all(log):
        line = raw.strip()
        if not line.startswith("["):
            continue
        match = _BRACKET_LINE.match(line)
        if not match or (status := _BRACKET_WORDS.get(match["word"].upper())) is None:
            continue
        if name := re.sub(r"\s+", " ", match["body"]).strip():
            _escalate(results, name, status)
    return results


_LEADING_STATUS = re.compile(rf"({_STATUS_ALTERNATIVES})\s+(.*)$")


def parse_log_ocaml_v4(log: str) -> dict[str, str]:
    """``PASSED name   0.1s`` lines (colour codes become blanks first): the name ends at two blanks.

    The worst report of a name wins; XFAIL only stands for a name not reported otherwise.
    """
    results: dict[str, str] = {}
    for raw in _split_all(log):
        line = _ANSI_ANY.sub("", _ANSI_SGR.sub(" ", raw)).strip()
        match = _LEADING_STATUS.match(line)
        if not match or not (rest := match.group(2).strip()):
            continue
        name = re.split(r"\s{2,}", rest, maxsplit=1)[0].strip()
        _escalate(results, name, match.group(1))
    return results


# --- Swift, C# ------------------------------------------------------------------------------------

parse_log_swift = LineReader(
    (
        _rule(
            r"Test Case '([^']+)'\s+(passed|failed)\s+\([0-9.]+\s+seconds\)$",
            lambda m: PASSED if m.group(2) == "passed" else FAILED,
        ),
    )
)
"""XCTest on Linux: ``Test Case 'Suite.testX' passed (0.001 seconds)``. Skips are not read; macOS's
trailing period stops a line from being read."""

parse_log_csharp = LineReader(
    (
        _rule(r"\[xUnit\.net\s+[\d:\.]+\]\s+(.+?)\s+\[FAIL\]$", FAILED),
        _rule(r"\s+Failed\s+(.+?)\s+\[.+?\]$", FAILED),
        _rule(r"\s+Skipped\s+(.+?)(?:\s+\[.+?\])?$", SKIPPED),
        _rule(r"\s+Passed\s+(.+?)\s+\[.+?\]$", PASSED, "keep"),
    ),
    prepare=str.rstrip,
)
"""``dotnet test`` detailed console lines (``  Passed Ns.Class.Test [3 ms]``) and xUnit's
``[xUnit.net 00:00:01.23]     Ns.Class.Test [FAIL]``. Names end at their first `` [``."""


# --- the table ------------------------------------------------------------------------------------

_OWN: dict[str, V2Parser] = {
    "parse_log_pytest_nebo": parse_log_pytest_nebo,
    "parse_combined_test_reports": parse_combined_test_reports,
    "parse_log_elixir": parse_log_elixir,
    "parse_log_ruby_v1": parse_log_ruby_v1,
    "parse_log_ruby_v2": parse_log_ruby_v2,
    "parse_log_cpp": parse_log_cpp,
    "parse_log_cpp_v2": parse_log_cpp_v2,
    "parse_log_cpp_v3": parse_log_cpp_v3,
    "parse_log_cpp_v4": parse_log_cpp_v4,
    "parse_lue_nvim": parse_lue_nvim,
    "parse_lua_nvim": parse_lue_nvim,
    "parse_log_lua_nvim": parse_lue_nvim,
    "parse_java_mvn": parse_java_mvn,
    "parse_log_java_mvn": parse_java_mvn,
    "parse_java_mvn_v2": parse_java_mvn_v2,
    "parse_log_java_mvn_v2": parse_java_mvn_v2,
    "parse_log_php_v1": parse_log_php_v1,
    "parse_log_haskell": parse_log_haskell,
    "parse_log_haskell_v2": parse_log_haskell_v2,
    "parse_log_js": parse_log_js,
    "parse_log_js_2": parse_log_js_2,
    "parse_log_js_3": parse_log_js_3,
    "parse_log_js_4": parse_log_js_4,
    "parse_log_gradlew_v1": parse_log_gradlew_v1,
    "parse_log_julia": parse_log_julia,
    "parse_log_npx": parse_log_npx,
    "parse_log_r": parse_log_r,
    "parse_log_r_v2": parse_log_r_v2,
    "parse_log_lein": parse_log_lein,
    "parse_log_dart": parse_log_dart,
    "parse_log_dart_v2": parse_log_dart_v2,
    "parse_log_dart_v3": parse_log_dart_v3,
    "parse_log_scala": parse_log_scala,
    "parse_log_scala_v2": parse_log_scala_v2,
    "parse_log_scala_v3": parse_log_scala_v3,
    "parse_log_ocaml": parse_log_ocaml,
    "parse_log_ocaml_v2": parse_log_ocaml_v2,
    "parse_log_ocaml_v3": parse_log_ocaml_v3,
    "parse_log_ocaml_v4": parse_log_ocaml_v4,
    "parse_log_ocaml_v5": parse_log_ocaml_v4,
    "parse_log_sbt": parse_log_junit,
    "parse_log_junit": parse_log_junit,
    "parse_logs_r_junit": parse_logs_r_junit,
    "parse_log_r_junit": parse_logs_r_junit,
    "parse_logs_kotlin_junit": parse_logs_kotlin_junit,
    "parse_log_kotlin_junit": parse_logs_kotlin_junit,
    "parse_log_swift": parse_log_swift,
    "parse_log_csharp": parse_log_csharp,
}

_SHARED_NAME_VARIANTS: dict[str, V2Parser] = {
    "parse_log_pytest": parse_log_pytest,
    "parse_log_pytest_options": parse_log_pytest_options,
    "parse_log_pytest_v2": parse_log_pytest_v2,
    "parse_log_maven": parse_log_maven,
    "parse_log_gradle_custom": parse_log_gradle_custom,
    "parse_log_jest": parse_log_jest,
    "parse_log_phpunit": parse_log_phpunit,
    "parse_log_react_pdf": parse_log_react_pdf,
}

V2_ONLY_NAMES = frozenset(_OWN)
"""Names only SWE-rebench V2 registers."""

V2_VARIANT_NAMES = frozenset(_SHARED_NAME_VARIANTS)
"""Names SWE-bench also registers, which V2 reads differently from SWE-bench 5.0.2."""

V2_PARSERS: Mapping[str, V2Parser] = MappingProxyType({**_OWN, **_SHARED_NAME_VARIANTS})
"""Every V2 parser name whose V2 reading this module provides."""


def v2_parser(name: str) -> V2Parser | None:
    """V2's own reader for ``name``, or None when V2 reads that name as SWE-bench does (or not at all)."""
    return V2_PARSERS.get(name)
