"""pytest and its relatives: ``STATUS id`` lines, pytest-xdist's worker lines, and the ``-v``
lines of C/C++ bindings' pytest suites."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from pytest_swe.families.logparsers import LogParseError

from .base import ERROR
from .base import FAILED
from .base import PASSED
from .base import SKIPPED
from .base import STATUS_ALTERNATIVES
from .base import STATUS_WORDS
from .base import split_all
from .base import split_newlines
from .base import strip_bare_colours

# --- pytest and its relatives ---------------------------------------------------------------------

_OPTION_PARAMETER = re.compile(r"(.*?)\[(.*)\]")


def _shorten_path_option(test_id: str) -> str:
    """``test[/tmp/x/data.csv]`` -> ``test[/data.csv]``: path parameters differ between machines."""
    found = _OPTION_PARAMETER.search(test_id)
    if not found:
        return test_id
    head, option = found.groups()
    if option.startswith("/") and not option.startswith("//") and "*" not in option:
        option = "/" + option.split("/")[-1]
    return f"{head}[{option}]"


@dataclass(frozen=True)
class PytestLines:
    """pytest's ``STATUS id`` result lines as V2 reads them.

    A line counts when it starts with a status word (so ``ERRORS`` and ``XFAILED`` lines count
    too, keyed by their second word and valued by their first). ``SKIPPED [1] file:3: reason``
    lines are read like any other, under the id ``[1]`` (SWE-bench 5.0.2 drops them). A FAILED
    line's `` - message`` falls away because every `` - `` becomes a space.
    """

    clean: Callable[[str], str] | None = None
    rename: Callable[[str], str] | None = None
    trailing_status: bool = False
    """Also read ``id STATUS`` lines (older pytest, classic console style)."""
    strict: bool = False
    """A status line with a single word is an error, as in V2's ``parse_log_pytest_v2``."""

    def __call__(self, log: str) -> dict[str, str]:
        results: dict[str, str] = {}
        for raw in split_newlines(log):
            line = self.clean(raw) if self.clean else raw
            if line.startswith(STATUS_WORDS):
                if line.startswith(FAILED):
                    line = line.replace(" - ", " ")
                words = self._words(line)
                if words is None:
                    continue
                test_id = self.rename(words[1]) if self.rename else words[1]
                results[test_id] = words[0]
            elif self.trailing_status and line.endswith(STATUS_WORDS):
                words = self._words(line)
                if words is not None:
                    results[words[0]] = words[1]
        return results

    def _words(self, line: str) -> list[str] | None:
        words = line.split()
        if len(words) >= 2:
            return words
        if self.strict:
            raise LogParseError(f"pytest result line names no test: {line!r}")
        return None


parse_log_pytest = PytestLines()
parse_log_pytest_options = PytestLines(rename=_shorten_path_option)
parse_log_pytest_v2 = PytestLines(clean=strip_bare_colours, trailing_status=True, strict=True)

_NEBO_WORKER_LINE = re.compile(r"\[gw\d+\]\s+\[[^\]]*\]\s+(\w+)\s+(.*)")
_NEBO_TRAILING_LINE = re.compile(rf"([^\s].*?)\s+({STATUS_ALTERNATIVES})\s+\[[^\]]*\]\s+in\s+\d+(?:\.\d+)?s")
_NEBO_LEADING_LINE = re.compile(rf"({STATUS_ALTERNATIVES})\s+(.*)")


def _before_timing(text: str) -> str:
    return text.split(" in ")[0].strip()


def parse_log_pytest_nebo(log: str) -> dict[str, str]:
    """pytest-xdist's ``[gw0] [ 50%] PASSED id`` lines, ``id PASSED [ 50%] in 0.1s`` and ``PASSED id``.

    The id runs to the first `` in ``, so a FAILED summary line keeps its message in the name.
    """
    results: dict[str, str] = {}
    for raw in split_all(log):
        line = strip_bare_colours(raw).strip()
        if (match := _NEBO_WORKER_LINE.fullmatch(line)) and match.group(1) in STATUS_WORDS:
            results[_before_timing(match.group(2))] = match.group(1)
        elif match := _NEBO_TRAILING_LINE.fullmatch(line):
            results[match.group(1).strip()] = match.group(2).strip()
        elif match := _NEBO_LEADING_LINE.fullmatch(line):
            results[_before_timing(match.group(2))] = match.group(1).strip()
    return results


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
    for raw in split_all(log):
        line = raw.strip()
        if not line:
            continue
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
