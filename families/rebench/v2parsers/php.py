"""PHP runners: PHPUnit ``--testdox`` and Pest (collision)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .base import FAILED
from .base import PASSED
from .base import SKIPPED
from .base import split_all
from .base import split_newlines

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
    for line in split_newlines(log):
        if match := _TESTDOX_CLASS.match(line):
            heading = match.group(1)
        elif match := _TESTDOX_TEST.match(line):
            test = _TIMING_IN_BRACKETS.sub("", match.group(2)).strip()
            results[f"{heading} > {test}"] = _TESTDOX_MARKS[match.group(1)]
    return results


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
    for raw in split_all(log):
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
