"""Parser for ``cargo test`` (libtest) output."""

from __future__ import annotations

import re

from .base import FAILED
from .base import PASSED
from .base import ParseContext
from .base import Parser
from .base import result_lines

# ``test path::to::name ... ok``. The id is one word, so doc tests (``src/lib.rs - f (line 3)``)
# are not read; ``ignored`` and other outcomes are matched but recorded as nothing.
_RESULT_LINE = re.compile(r"test\s+(?P<test>\S+)\s+\.\.\.\s+(?P<outcome>\w+)")
_OUTCOMES = {"ok": PASSED, "FAILED": FAILED}


def parse_cargo(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read libtest's ``test name ... ok|FAILED`` lines; ignored tests are left out, as officially."""
    return result_lines(log, _RESULT_LINE, _OUTCOMES)


PARSERS: dict[str, Parser] = {"parse_log_cargo": parse_cargo}
