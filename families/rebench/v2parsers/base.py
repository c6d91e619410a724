"""The vocabulary V2's readers share: status words, line splitting, colour stripping, and the
rule tables one :class:`LineReader` runs over a log."""

from __future__ import annotations

import re
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from typing import Literal

V2Parser = Callable[[str], dict[str, str]]
"""Whole log text -> ``{test name: status}``."""

PASSED = "PASSED"
FAILED = "FAILED"
SKIPPED = "SKIPPED"
ERROR = "ERROR"
XFAIL = "XFAIL"
STATUS_WORDS = (FAILED, PASSED, SKIPPED, ERROR, XFAIL)
"""V2's status vocabulary; pytest-style readers take a line's leading status word verbatim."""
STATUS_ALTERNATIVES = "|".join(STATUS_WORDS)

# Any ECMA-48 escape (a Fe byte, or a CSI sequence), and colour-only (SGR) sequences.
ANSI_ANY = re.compile(r"\x1b(?:[@-Z\\-_]|\[[0-?]*[ -/]*[@-~])")
ANSI_SGR = re.compile(r"\x1b\[[0-9;]*m")
# ``[31m`` left behind when a log lost its escape bytes, and every other control character.
_BARE_SGR = re.compile(r"\[(\d+)m")
_CONTROL_CHARS = str.maketrans("", "", "".join(chr(code) for code in range(1, 32)))


def split_newlines(log: str) -> list[str]:
    """Lines as SWE-bench-derived readers see them: ``\\r`` stays inside a line."""
    return log.split("\n")


def split_all(log: str) -> list[str]:
    """Lines as V2's newer readers see them: ``\\r`` (progress redraws) also ends a line."""
    return log.splitlines()


def nonblank_lines(log: str) -> Iterator[str]:
    """The :func:`split_all` lines that hold text, stripped: how most of V2's newer readers walk a log."""
    for raw in split_all(log):
        if line := raw.strip():
            yield line


def strip_bare_colours(line: str) -> str:
    return _BARE_SGR.sub("", line).translate(_CONTROL_CHARS)


# --- precedence -----------------------------------------------------------------------------------

_ESCALATION = {PASSED: 0, SKIPPED: 1, FAILED: 2, ERROR: 3}
"""OCaml readers let a later report replace an earlier one unless it is less severe."""


def escalate(results: dict[str, str], name: str, status: str) -> None:
    if not name:
        return
    current = results.get(name)
    if current is None or _ESCALATION.get(status, -1) >= _ESCALATION.get(current, -1):
        results[name] = status


# --- a table of line rules ------------------------------------------------------------------------

Write = Literal["set", "keep", "escalate"]
"""How a rule records a test: overwrite, only if not seen yet (a tentative pass), or by precedence."""


def group_one(match: re.Match[str]) -> str:
    return match.group(1)


@dataclass(frozen=True)
class Rule:
    """One line form of a runner: a pattern matched at the start of the line, and what it means.

    ``status`` is a status word, a function of the match (``None`` drops the line), or ``None``
    for lines that are consumed without recording anything (summary counters, noise).
    """

    pattern: re.Pattern[str]
    status: str | Callable[[re.Match[str]], str | None] | None
    write: Write = "set"
    name: Callable[[re.Match[str]], str] = group_one
    on_raw: bool = False
    """Match the line before ``LineReader.clean`` ran (forms that carry their own colour codes)."""
    skip_empty: bool = False
    """Record nothing for an empty name (the line is still consumed)."""


def make_rule(
    pattern: str,
    status: str | Callable[[re.Match[str]], str | None] | None,
    write: Write = "set",
    *,
    flags: int = 0,
    **options: Any,
) -> Rule:
    return Rule(re.compile(pattern, flags), status, write, **options)


@dataclass(frozen=True)
class LineReader:
    """Runs a rule table over every line: the first rule whose pattern matches decides the line."""

    rules: tuple[Rule, ...]
    split: Callable[[str], list[str]] = split_all
    prepare: Callable[[str], str] = str.strip
    clean: Callable[[str], str] | None = None
    skip_blank: bool = True

    def __call__(self, log: str) -> dict[str, str]:
        results: dict[str, str] = {}
        for raw in self.split(log):
            if self.skip_blank and not raw.strip():
                continue
            line = self.prepare(raw)
            cleaned = self.clean(line) if self.clean else line
            for rule in self.rules:
                match = rule.pattern.match(line if rule.on_raw else cleaned)
                if match is None:
                    continue
                self._record(results, rule, match)
                break
        return results

    @staticmethod
    def _record(results: dict[str, str], rule: Rule, match: re.Match[str]) -> None:
        if rule.status is None:
            return
        status = rule.status if isinstance(rule.status, str) else rule.status(match)
        if status is None:
            return
        name = rule.name(match)
        if rule.skip_empty and not name:
            return
        if rule.write == "set":
            results[name] = status
        elif rule.write == "keep":
            results.setdefault(name, status)
        else:
            escalate(results, name, status)


def word_status(table: Mapping[str, str], group: int | str = "status") -> Callable[[re.Match[str]], str]:
    """A status read from a captured word through a runner's own vocabulary."""

    def status(match: re.Match[str]) -> str:
        return table[match.group(group)]

    return status


def stripped_group(group: int | str = 1) -> Callable[[re.Match[str]], str]:
    def name(match: re.Match[str]) -> str:
        return match.group(group).strip()

    return name
