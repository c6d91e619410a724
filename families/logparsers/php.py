"""Parser for PHPUnit's ``--testdox`` output."""

from __future__ import annotations

import re

from .base import FAILED
from .base import PASSED
from .base import SKIPPED
from .base import ParseContext
from .base import Parser
from .base import log_lines

# A class heading: ``Calculator (Tests\Calculator)``: the readable name, then the class in parentheses.
_CLASS_HEADING = re.compile(r"(?P<title>\w.+) \(.+\)")
# A test line: ``✔ Adds two numbers``, ``✘ ...`` failed or errored, ``↩ ...`` skipped.
_TEST_LINE = re.compile(r"\s*(?P<mark>[✔✘↩])\s*(?P<test>.*)")
_MARKS = {"✔": PASSED, "✘": FAILED, "↩": SKIPPED}


def parse_phpunit(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read testdox lines as ``<class heading> > <test>``.

    Incomplete (``∅``) and risky (``☢``) tests are not read. A test line before any heading is
    keyed ``None > <test>``, which is what the official reader produces.
    """
    statuses: dict[str, str] = {}
    heading: str | None = None
    for line in log_lines(log):
        if match := _CLASS_HEADING.fullmatch(line):
            heading = match.group("title")
        elif match := _TEST_LINE.fullmatch(line):
            statuses[f"{heading} > {match.group('test')}"] = _MARKS[match.group("mark")]
    return statuses


PARSERS: dict[str, Parser] = {"parse_log_phpunit": parse_phpunit}
