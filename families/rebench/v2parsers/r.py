"""R: testthat's console reporter and ``R CMD check``."""

from __future__ import annotations

import re

from pytest_swe.families.logparsers import LogParseError

from .base import ERROR
from .base import FAILED
from .base import PASSED
from .base import SKIPPED
from .base import split_all

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
    lines = split_all(log)
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
    for raw in split_all(log):
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
