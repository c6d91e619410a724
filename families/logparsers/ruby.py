"""Parsers for Ruby runners: minitest and test-unit verbose output, RSpec JSON turned into lines, cucumber."""

from __future__ import annotations

import re

from .base import FAILED
from .base import PASSED
from .base import SKIPPED
from .base import LogParseError
from .base import ParseContext
from .base import Parser
from .base import pr_number
from .base import result_lines

# minitest -v: ``TestSite#test_: static files. should be sorted. = 0.01 s = .``. The id runs to
# the last ". " and the outcome is the last ``.``, ``F`` or ``E`` after an ``=``: a skip
# (``= S``) therefore reads as the dot of its timing, a pass, as in the official reader.
_MINITEST_RESULT = re.compile(r"(?P<test>.+)\. .*=.*(?P<outcome>[.FE]).*")
_MINITEST_OUTCOMES = {".": PASSED, "F": FAILED, "E": FAILED}


def parse_minitest(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read ``minitest -v`` lines of tests whose names end in a sentence (``... .``)."""
    return result_lines(log, _MINITEST_RESULT, _MINITEST_OUTCOMES)


# cucumber with a per-scenario progress formatter: ``Scenario name ....F`` (read from the start
# of the line: the name runs to the last `` .``, the outcome is the character after the dots).
_CUCUMBER_RESULT = re.compile(r"(?P<test>.*) \.+(?P<outcome>[.F])")


def parse_cucumber(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read scenario progress lines; a scenario whose dots run into ``F`` failed."""
    return result_lines(log, _CUCUMBER_RESULT, {".": PASSED, "F": FAILED}, whole_line=False)


# test-unit -v: ``  test_foo:\t\t\t.: (0.000123)``; ``test: `` prefixes block-style names.
_TEST_UNIT_RESULT = re.compile(r"\s*(?:test: )?(?P<test>.+):\s+(?P<outcome>\.|E\b|F\b|O\b)")
_TEST_UNIT_OUTCOMES = {".": PASSED, "E": FAILED, "F": FAILED, "O": SKIPPED}


def parse_ruby_unit(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read test-unit's verbose result lines; omissions (``O``) count as skipped, pendings are not read."""
    return result_lines(log, _TEST_UNIT_RESULT, _TEST_UNIT_OUTCOMES, whole_line=False)


# ``rspec --format json | jq`` prints ``<description>[ - <id>] - passed|failed`` per example.
_RSPEC_RESULT = re.compile(r"(?P<test>.+) - (?P<outcome>passed|failed)")


def parse_rspec_transformed_json(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read the jq-flattened RSpec report; pending examples are not read."""
    return result_lines(log, _RSPEC_RESULT, {"passed": PASSED, "failed": FAILED}, whole_line=False)


_JEKYLL_MINITEST_PRS = frozenset({"9141", "8047", "8167"})
_JEKYLL_CUCUMBER_PRS = frozenset({"8761", "8771"})


def parse_jekyll(log: str, ctx: ParseContext) -> dict[str, str]:
    """Jekyll's instances test either with minitest or with cucumber; the PR number says which."""
    number = pr_number(ctx, part=1)
    if number in _JEKYLL_MINITEST_PRS:
        return parse_minitest(log, ctx)
    if number in _JEKYLL_CUCUMBER_PRS:
        return parse_cucumber(log, ctx)
    raise LogParseError(f"no known jekyll test runner for instance {ctx.instance_id!r}")


PARSERS: dict[str, Parser] = {
    "parse_log_minitest": parse_minitest,
    "parse_log_cucumber": parse_cucumber,
    "parse_log_ruby_unit": parse_ruby_unit,
    "parse_log_rspec_transformed_json": parse_rspec_transformed_json,
    "parse_log_jekyll": parse_jekyll,
}
