"""Parsers for JavaScript runners: Jest (verbose, per-file and JSON via jq), Vitest, Karma, TAP.

Repo-specific readers (mocha, jasmine, deno, cypress outputs of single projects) live in
:mod:`.javascript_repos`.
"""

from __future__ import annotations

import re

from .base import FAILED
from .base import PASSED
from .base import SKIPPED
from .base import LogParseError
from .base import ParseContext
from .base import Parser
from .base import log_lines
from .base import pr_number
from .base import result_lines

# ``jest --verbose``: ``✓ adds numbers (3 ms)``; ``✕`` failed, ``○ skipped ...`` skipped. The
# name is the shortest text that leaves at most one trailing duration.
_JEST_VERBOSE_RESULT = re.compile(r"(?P<mark>[✓✕○])\s(?P<test>.+?)(?:\s\(\d+\s*m?s\))?")
_JEST_MARKS = {"✓": PASSED, "✕": FAILED, "○": SKIPPED}


def _read_jest_verbose(log: str, *, trim_names: bool) -> dict[str, str]:
    statuses: dict[str, str] = {}
    for line in log_lines(log):
        match = _JEST_VERBOSE_RESULT.fullmatch(line.strip())
        if match:
            test = match.group("test").strip() if trim_names else match.group("test")
            statuses[test] = _JEST_MARKS[match.group("mark")]
    return statuses


def parse_jest(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read ``jest --verbose`` result lines by test title (describe blocks are not part of the id)."""
    return _read_jest_verbose(log, trim_names=True)


def parse_jest_v4(log: str, ctx: ParseContext) -> dict[str, str]:
    """4.1.0's reading keeps whitespace left between a title and its duration."""
    return _read_jest_verbose(log, trim_names=False)


# ``jest --json | jq`` lines: ``[PASSED] Outer > inner > title``; pending and todo are not read.
_JEST_JSON_RESULT = re.compile(r"\[(?P<outcome>PASSED|FAILED)\]\s(?P<test>.+)")


def parse_jest_json(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read the jq-flattened Jest JSON report, whose ids keep the describe path."""
    return result_lines(log, _JEST_JSON_RESULT, {"PASSED": PASSED, "FAILED": FAILED})


# ``vitest --reporter=verbose``: ``✓ file > suite > test 2ms``, a multiplication sign for a failure,
# ``↓ ... [skipped]``. A trailing number is taken for a duration even without its unit, as officially.
_VITEST_FAIL_MARK = "\u00d7"
_VITEST_RESULT = re.compile(
    rf"(?P<outcome>[✓{_VITEST_FAIL_MARK}↓])\s(?P<test>.+?)(?:\s(?:\d+\s*m?s?|\[skipped\]))?"
)
_VITEST_MARKS = {"✓": PASSED, _VITEST_FAIL_MARK: FAILED, "↓": SKIPPED}


def parse_vitest(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read Vitest's verbose reporter lines."""
    return result_lines(log, _VITEST_RESULT, _VITEST_MARKS)


# karma-mocha-reporter: suites are indented titles, tests ``✔ title`` / ``✖ title``.
_KARMA_LINE = re.compile(r"(?P<indent>\s*)(?P<mark>[✔✖])?\s(?P<title>.*)")


def parse_karma(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read karma-mocha-reporter's tree between ``Starting browser`` and ``SUMMARY:``.

    The suite path follows indentation one level per line: a deeper title opens a suite, a
    shallower one closes the innermost suite (and is not itself opened), which is how the
    official reader nests; ids are ``suite > ... > test``.
    """
    statuses: dict[str, str] = {}
    started = False
    depth = -1
    suites: list[str] = []
    for line in log_lines(log):
        if line.startswith("SUMMARY:"):
            break
        if "Starting browser" in line:
            started = True
            continue
        if not started:
            continue
        match = _KARMA_LINE.fullmatch(line)
        if not match:
            continue
        indent, mark, title = match.group("indent", "mark", "title")
        if indent and not mark:
            if len(indent) > depth:
                depth = len(indent)
                suites.append(title)
            elif len(indent) < depth:
                depth = len(indent)
                if not suites:
                    raise LogParseError(f"karma report closes more suites than it opened at {line!r}")
                suites.pop()
                continue
        if mark:
            statuses[" > ".join([*suites, title])] = PASSED if mark == "✔" else FAILED
    return statuses


# TAP: ``ok 1 name`` / ``not ok 2 name``; directives (``# SKIP``) stay part of the name.
_TAP_RESULT = re.compile(r"(?P<outcome>ok|not ok) \d+ (?P<test>.+)")


def parse_tap(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read TAP result lines (mocha ``-R tap``, QUnit's CLI), nested subtests included."""
    return result_lines(log, _TAP_RESULT, {"ok": PASSED, "not ok": FAILED})


def _immutable_js(jest_verbose: Parser) -> Parser:
    def parse_immutable_js(log: str, ctx: ParseContext) -> dict[str, str]:
        """immutable-js's instances ran Jest either verbosely (PR 2006) or as JSON (PR 2005)."""
        number = pr_number(ctx, part=-1)
        if number == "2006":
            return jest_verbose(log, ctx)
        if number == "2005":
            return parse_jest_json(log, ctx)
        raise LogParseError(f"no known immutable-js test runner for instance {ctx.instance_id!r}")

    return parse_immutable_js


parse_immutable_js = _immutable_js(parse_jest)
parse_immutable_js_v4 = _immutable_js(parse_jest_v4)

PARSERS: dict[str, Parser] = {
    "parse_log_jest": parse_jest,
    "parse_log_jest_json": parse_jest_json,
    "parse_log_vitest": parse_vitest,
    "parse_log_karma": parse_karma,
    "parse_log_tap": parse_tap,
    "parse_log_immutable_js": parse_immutable_js,
}

V4_PARSERS: dict[str, Parser] = {
    **PARSERS,
    "parse_log_jest": parse_jest_v4,
    "parse_log_immutable_js": parse_immutable_js_v4,
}
