"""Shared vocabulary of the log parsers: the row context, the parser signature, status words.

Kept apart from ``__init__`` so the per-runner modules can import it without a cycle.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass

from pytest_swe.api.errors import SweError
from pytest_swe.api.verdict import TestStatus

PASSED = TestStatus.PASSED.value
FAILED = TestStatus.FAILED.value
SKIPPED = TestStatus.SKIPPED.value
ERROR = TestStatus.ERROR.value
XFAIL = TestStatus.XFAIL.value

STATUS_WORDS: tuple[str, ...] = tuple(status.value for status in TestStatus)
"""The five status words, in the order the official grader declares them."""


@dataclass(frozen=True)
class ParseContext:
    """What a few parsers need from the dataset row (the official parsers read a test spec).

    Only ``instance_id`` (immutable-js, jekyll pick a runner by PR number) and ``version``
    (next, lighthouse pick a format) change what a parser does; the rest travels along so a
    parser never has to reach back into the row.
    """

    instance_id: str = ""
    repo: str = ""
    version: str = ""
    fail_to_pass: tuple[str, ...] = ()
    pass_to_pass: tuple[str, ...] = ()
    test_cmds: tuple[str, ...] = ()


Parser = Callable[[str, ParseContext], dict[str, str]]
"""Log text and row context -> ``{test id: status}``; status values are :class:`TestStatus` values."""


class LogParseError(SweError, ValueError):
    """The log (or the row context) cannot be parsed the way the official parser would.

    Raised exactly where the official parser raises on the same input (an unknown instance
    for a per-instance dispatcher, a JSON or XML report that does not decode), so the grader
    can treat it as the official harness does: the evaluation errors, no status map exists.
    """


# ECMA-48 escape sequences: ESC followed by one Fe byte (0x40-0x5F except '['), or a CSI
# sequence ESC '[' parameters (0x30-0x3F) intermediates (0x20-0x2F) final (0x40-0x7E).
_ANSI_ESCAPE = re.compile(r"\x1b(?:[\x40-\x5a\x5c-\x5f]|\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e])")


def strip_ansi(text: str) -> str:
    """Remove terminal colour and cursor sequences, which runners emit when they think a TTY is attached."""
    return _ANSI_ESCAPE.sub("", text)


def log_lines(log: str) -> list[str]:
    """Split on ``\\n`` only: a ``\\r`` stays in the line, as the official grader sees it."""
    return log.split("\n")


def result_lines(
    log: str, pattern: re.Pattern[str], outcomes: Mapping[str, str], *, whole_line: bool = True
) -> dict[str, str]:
    """The statuses of a runner that prints one result per line.

    ``pattern`` is matched against each stripped line, whole or (``whole_line=False``) from its
    start, and names the ``test`` and its ``outcome`` word; ``outcomes`` maps that word to a
    status, and a word it lacks is not a result. A test reported twice keeps its last status.
    """
    statuses: dict[str, str] = {}
    for line in log_lines(log):
        stripped = line.strip()
        match = pattern.fullmatch(stripped) if whole_line else pattern.match(stripped)
        if match and (status := outcomes.get(match.group("outcome"))) is not None:
            statuses[match.group("test")] = status
    return statuses


def indentation(line: str) -> int:
    """Width of the leading whitespace; runners nest suites by indentation."""
    return len(line) - len(line.lstrip())


def pr_number(ctx: ParseContext, *, part: int) -> str:
    """The PR number of ``owner__repo-1234`` ids, taken the way the official dispatchers take it."""
    pieces = ctx.instance_id.split("-")
    try:
        return pieces[part]
    except IndexError:
        raise LogParseError(f"instance id {ctx.instance_id!r} has no PR number") from None
