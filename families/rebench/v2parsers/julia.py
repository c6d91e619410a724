"""Julia: ``Test.@testset`` summary tables."""

from __future__ import annotations

import re

from pytest_swe.families.logparsers import LogParseError

from .base import ERROR
from .base import FAILED
from .base import PASSED
from .base import split_all

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
    for raw in split_all(log):
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
