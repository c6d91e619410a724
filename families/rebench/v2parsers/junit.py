"""JUnit XML reports printed into a log: combined reports, Gradle's ``TEST-*.xml``, testthat's
JUnit reporter, and ``<testcase>`` tags in noisy sbt output."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from collections.abc import Iterable

from junitparser import Error
from junitparser import Failure
from junitparser import Skipped
from junitparser import TestCase

from .base import ERROR
from .base import FAILED
from .base import PASSED
from .base import SKIPPED
from .base import split_newlines

# --- JUnit XML ------------------------------------------------------------------------------------

TestcaseKey = Callable[[str | None, str | None], str]
"""How a reader spells a test from a ``<testcase>``'s classname and name attributes."""


_OUTCOMES: dict[str, tuple[type[Failure | Error | Skipped], str]] = {
    "failure": (Failure, FAILED),
    "error": (Error, ERROR),
    "skipped": (Skipped, SKIPPED),
}


def _read_testcases(
    elements: Iterable[ElementTree.Element],
    key: TestcaseKey,
    outcome_order: tuple[str, ...],
    results: dict[str, str],
) -> None:
    """Record each ``<testcase>``: the first child in ``outcome_order`` present decides, else PASSED."""
    for element in elements:
        case = TestCase.fromelem(element)  # type: ignore[no-untyped-call]  # junitparser leaves it unannotated
        status = PASSED
        for child in outcome_order:
            kind, child_status = _OUTCOMES[child]
            if case.child(kind) is not None:
                status = child_status
                break
        results[key(case.classname, case.name)] = status


def _parse_xml(text: str) -> ElementTree.Element | None:
    """The standard library's parser: junitparser's own switches to lxml when that is installed,
    and lxml refuses a ``str`` that carries an encoding declaration, as printed reports do."""
    try:
        return ElementTree.fromstring(text)
    except ElementTree.ParseError:
        return None


def _read_report(
    text: str, key: TestcaseKey, outcome_order: tuple[str, ...], results: dict[str, str]
) -> None:
    """Record every ``<testcase>`` of one printed report; a report that does not parse gives nothing."""
    root = _parse_xml(text)
    if root is not None:
        _read_testcases(root.findall(".//testcase"), key, outcome_order, results)


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
        _read_report(log[start:end], _double_colon_key, ("failure", "skipped", "error"), results)
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
    for line in split_newlines(log):
        if line.strip().startswith("<?xml"):
            block = [line]
        elif block is not None:
            block.append(line)
            if line.strip().startswith("</testsuite>"):
                _read_report("\n".join(block), _gradle_key, ("skipped", "failure", "error"), results)
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

    No XML parsing, on purpose: V2 reads these tags as text and grades by that reading, and the
    logs are rarely well-formed around them. Attributes are read as written (entities stay escaped, single-quoted ones
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
