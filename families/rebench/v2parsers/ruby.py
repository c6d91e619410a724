"""Elixir's ``mix test --trace`` and Ruby's minitest reporters."""

from __future__ import annotations

import re

from .base import ERROR
from .base import FAILED
from .base import PASSED
from .base import SKIPPED
from .base import LineReader
from .base import make_rule
from .base import split_all
from .base import word_status

# --- Elixir, Ruby ---------------------------------------------------------------------------------

parse_log_elixir = LineReader(
    (
        make_rule(r"\*\s+test\s+(.*?)\s+\(skipped\)\s+\[L#\d+\]$", SKIPPED),
        make_rule(r"\d+\)\s+test\s+(.*?)\s+\([^)]+\)$", FAILED),
        make_rule(r"\*\s+test\s+(.*?)\s+\([0-9]+(?:\.[0-9]+)?ms\)\s+\[L#\d+\]$", PASSED, "keep"),
        make_rule(r"\*\s+test\s+(.*?)\s+\[L#\d+\]$", PASSED, "keep"),
    )
)
"""``mix test --trace``: ``* test name (1.2ms) [L#4]`` passes unless a ``1) test name (Module)``
failure heading or a ``(skipped)`` line says otherwise. Coloured lines are not read."""

_MINITEST_SPEC_STATUS = {
    "PASS": PASSED,
    "PASSED": PASSED,
    "FAIL": FAILED,
    "FAILURE": FAILED,
    "SKIP": SKIPPED,
    "SKIPPED": SKIPPED,
    "ERROR": ERROR,
}
_MINITEST_SPEC_RANK = {PASSED: 0, SKIPPED: 0, FAILED: 1, ERROR: 2}
_MINITEST_SPEC_LINE = re.compile(
    r"\s*(test[^A-Z\n]+?)\s+(PASS|PASS(?:ED)?|FAIL|FAILURE|ERROR|SKIP|SKIPPED)\b(?:\s*\([0-9.]+s\))?$"
)
_MINITEST_SPEC_SUITE = re.compile(r"[A-Z][A-Za-z0-9_]*")


def parse_log_ruby_v1(log: str) -> dict[str, str]:
    """minitest-reporters' SpecReporter: a ``SuiteName`` line, then ``  test_x   PASS (0.01s)`` lines.

    Ids are ``Suite::test_x``; test names with capitals are not read. A test reported twice keeps
    its worst status (ERROR over FAILED over PASSED/SKIPPED, first one winning a tie).
    """
    results: dict[str, str] = {}
    suite: str | None = None
    for raw in split_all(log):
        line = raw.rstrip()
        if not line or line.startswith("Finished in "):
            continue
        if not line.startswith(" ") and _MINITEST_SPEC_SUITE.fullmatch(line):
            suite = line
            continue
        match = _MINITEST_SPEC_LINE.match(line)
        if not match:
            continue
        test = match.group(1).strip()
        name = f"{suite}::{test}" if suite else test
        status = _MINITEST_SPEC_STATUS[match.group(2)]
        previous = results.get(name)
        if previous is None or _MINITEST_SPEC_RANK[status] > _MINITEST_SPEC_RANK[previous]:
            results[name] = status
    return results


parse_log_ruby_v2 = LineReader(
    (
        make_rule(
            r"(.+?#.+?)\s+=\s+[\d.]+\s+s\s+=\s+([.FES])$",
            word_status({".": PASSED, "F": FAILED, "E": FAILED, "S": SKIPPED}, group=2),
        ),
    )
)
"""``ruby -Itest x_test.rb -v``: ``Class#test_x = 0.01 s = .``; an error (``E``) counts as FAILED."""
