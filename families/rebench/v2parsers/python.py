"""pytest and its relatives: ``STATUS id`` lines, pytest-xdist's worker lines, and the ``-v``
lines of C/C++ bindings' pytest suites."""

from __future__ import annotations

import re

from pytest_swe.families.logparsers import LineForm
from pytest_swe.families.logparsers import PytestGrammar
from pytest_swe.families.logparsers import shorten_path_parameter

from .base import ERROR
from .base import FAILED
from .base import PASSED
from .base import SKIPPED
from .base import STATUS_ALTERNATIVES
from .base import nonblank_lines
from .base import split_all
from .base import strip_bare_colours

# --- pytest and its relatives ---------------------------------------------------------------------

# V2's pytest readers are SWE-bench 4.1.0's (skip-count lines kept, one-word ids), and its
# parse_log_pytest_v2 refuses a status line that names no test.
parse_log_pytest = PytestGrammar(skip_count_lines=False)
parse_log_pytest_options = PytestGrammar(rename=shorten_path_parameter, skip_count_lines=False)
parse_log_pytest_v2 = PytestGrammar(
    clean=strip_bare_colours, skip_count_lines=False, trailing_status="first_word", strict=True
)


def _before_timing(text: str) -> str:
    return text.split(" in ")[0].strip()


parse_log_pytest_nebo = PytestGrammar(
    lines=split_all,
    clean=lambda line: strip_bare_colours(line).strip(),
    forms=(
        LineForm(
            re.compile(rf"\[gw\d+\]\s+\[[^\]]*\]\s+(?P<status>{STATUS_ALTERNATIVES})\s+(?P<test>.*)"),
            name=_before_timing,
            whole_line=True,
        ),
        LineForm(
            re.compile(
                rf"(?P<test>[^\s].*?)\s+(?P<status>{STATUS_ALTERNATIVES})\s+\[[^\]]*\]\s+in\s+\d+(?:\.\d+)?s"
            ),
            name=str.strip,
            whole_line=True,
        ),
        LineForm(
            re.compile(rf"(?P<status>{STATUS_ALTERNATIVES})\s+(?P<test>.*)"),
            name=_before_timing,
            whole_line=True,
        ),
    ),
)
"""pytest-xdist's ``[gw0] [ 50%] PASSED id`` lines, ``id PASSED [ 50%] in 0.1s`` and ``PASSED id``.

The id runs to the first `` in ``, so a FAILED summary line keeps its message in the name."""


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
    for line in nonblank_lines(log):
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
