"""C and C++ runners: ``Test name passed`` lines, Botan and keyword logs, ctest."""

from __future__ import annotations

import re

from .base import ERROR
from .base import FAILED
from .base import PASSED
from .base import SKIPPED
from .base import LineReader
from .base import make_rule
from .base import nonblank_lines
from .base import stripped_group

# --- C and C++ ------------------------------------------------------------------------------------

parse_log_cpp_v2 = LineReader(
    (
        make_rule(r"Test\s+(.*?)\s+passed$", PASSED, "keep"),
        make_rule(r"Test\s+(.*?)\s+failed$", FAILED),
        make_rule(r"Test\s+(.*?)\s+skipped$", SKIPPED),
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
    for line in nonblank_lines(log):
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
        make_rule(
            r"\s*\d+/\d+\s+Test\s+#\d+:\s+(.+?)\s+\.+\s+(Passed|Failed|Skipped|Timeout)\b",
            lambda m: {"PASSED": PASSED, "FAILED": FAILED, "TIMEOUT": FAILED}.get(
                m.group(2).upper(), SKIPPED
            ),
            flags=re.IGNORECASE,
            name=stripped_group(),
        ),
    ),
    prepare=lambda line: line,
)
"""ctest's ``1/6 Test #1: name ....   Passed   0.01 sec`` lines. The status must follow blanks, so
ctest's ``***Failed``/``***Timeout`` lines are not read."""
