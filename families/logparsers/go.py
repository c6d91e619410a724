"""Parser for ``go test -v`` output."""

from __future__ import annotations

import re

from .base import FAILED
from .base import PASSED
from .base import SKIPPED
from .base import ParseContext
from .base import Parser
from .base import result_lines

# ``--- PASS: TestName/sub_test (0.00s)``; subtests are indented, the name runs to the last " (".
_RESULT_LINE = re.compile(r"--- (?P<outcome>PASS|FAIL|SKIP): (?P<test>.+) \(.+\)")
_STATUSES = {"PASS": PASSED, "FAIL": FAILED, "SKIP": SKIPPED}


def parse_gotest(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read the ``--- PASS|FAIL|SKIP:`` result line that ``go test -v`` prints for each (sub)test.

    Package-level ``FAIL``/``ok`` lines and build failures name no test and are not read.
    """
    return result_lines(log, _RESULT_LINE, _STATUSES)


PARSERS: dict[str, Parser] = {"parse_log_gotest": parse_gotest}
