"""Test-log parsers that reproduce the official SWE-bench harness's status maps.

A parser turns the text a test run printed into ``{test id: status}``, the map the grader
compares with a row's FAIL_TO_PASS and PASS_TO_PASS lists, so its ids must be spelled exactly
as the official parser spells them. Every name the official harness registers is here
(``parse_log_pytest``, ``parse_log_django``, ``parse_log_gotest``, ...), with the behaviour of
the official package 5.0.2 by default; ``harness_version="4.1.0"`` gives the few readers whose
behaviour changed between the two releases (pytest skip counts, pytest_v2 ids with spaces,
Maven and Gradle pairing, Jest title whitespace) their 4.1.0 behaviour.

Where the official parser raises on an input (a per-instance dispatcher meets an unknown
instance, an embedded JSON or XML report does not decode, a reporter's nesting cannot be
followed), these raise :class:`LogParseError`.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable
from collections.abc import Mapping
from types import MappingProxyType

from pytest_swe.api.errors import SweError
from pytest_swe.grading import ProbeSpec

from . import python as python_parsers
from .base import LogParseError
from .base import ParseContext
from .base import Parser
from .base import strip_ansi
from .python import LineForm
from .python import PytestGrammar
from .python import parse_log_pytest
from .python import shorten_path_parameter
from .repos import parser_name_for_repo

__all__ = [
    "DEFAULT_HARNESS_VERSION",
    "HARNESS_VERSIONS",
    "PARSERS",
    "LineForm",
    "LogParseError",
    "ParseContext",
    "Parser",
    "PytestGrammar",
    "UnknownParserError",
    "check_parser",
    "get_parser",
    "parse_log",
    "parse_log_pytest",
    "parser_name_for_repo",
    "parsers_for",
    "probe_spec",
    "runner_of",
    "shorten_path_parameter",
    "strip_ansi",
]

DEFAULT_HARNESS_VERSION = "5.0.2"
HARNESS_VERSIONS = ("5.0.2", "4.1.0")
"""Official harness releases whose parser behaviour is reproduced."""


@functools.cache
def _by_version() -> dict[str, Mapping[str, Parser]]:
    """Every release's table, built on first use: a run replayed from the verdict cache parses
    no log, and a family's own parsers need none of the other languages'."""
    from . import c
    from . import go
    from . import java
    from . import javascript
    from . import javascript_repos
    from . import php
    from . import python
    from . import ruby
    from . import rust

    current: dict[str, Parser] = {
        **python.PARSERS,
        **javascript_repos.PARSERS,
        **javascript.PARSERS,
        **c.PARSERS,
        **go.PARSERS,
        **java.PARSERS,
        **php.PARSERS,
        **ruby.PARSERS,
        **rust.PARSERS,
    }
    release_4_1: dict[str, Parser] = {
        **current,
        **python.V4_PARSERS,
        **javascript.V4_PARSERS,
        **java.V4_PARSERS,
    }
    return {"5.0.2": MappingProxyType(current), "4.1.0": MappingProxyType(release_4_1)}


def __getattr__(name: str) -> Mapping[str, Parser]:
    if name == "PARSERS":  # every official parser name -> its parser, with 5.0.2 behaviour
        return _by_version()[DEFAULT_HARNESS_VERSION]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class UnknownParserError(SweError, KeyError):
    """A row names a log parser that the official harness does not register."""

    def __init__(self, name: str, suggestions: list[str]) -> None:
        hint = f"; did you mean {', '.join(repr(s) for s in suggestions)}?" if suggestions else ""
        super().__init__(f"unknown log parser {name!r}{hint} ({len(parsers_for())} parsers are known)")
        self.name = name
        self.suggestions = suggestions

    def __str__(self) -> str:  # KeyError would show the message quoted
        return str(self.args[0])


def parsers_for(harness_version: str = DEFAULT_HARNESS_VERSION) -> Mapping[str, Parser]:
    """All parsers with the behaviour of one official harness release."""
    try:
        return _by_version()[harness_version]
    except KeyError:
        known = ", ".join(HARNESS_VERSIONS)
        raise ValueError(f"no parsers for harness version {harness_version!r}; known: {known}") from None


def _close_names(name: str) -> list[str]:
    """Suggestions for a misspelt name, also when the ``parse_log_`` prefix was left off."""
    known_names = list(parsers_for())
    short_names = {known.removeprefix("parse_log_"): known for known in known_names}
    candidates = difflib.get_close_matches(name, known_names, n=3, cutoff=0.6)
    for short in difflib.get_close_matches(
        name.removeprefix("parse_log_"), list(short_names), n=3, cutoff=0.6
    ):
        if short_names[short] not in candidates:
            candidates.append(short_names[short])
    return candidates[:3]


def get_parser(name: str, *, harness_version: str = DEFAULT_HARNESS_VERSION) -> Parser:
    """The parser registered under ``name``; :class:`UnknownParserError` names close matches."""
    parsers = parsers_for(harness_version)
    try:
        return parsers[name]
    except KeyError:
        raise UnknownParserError(name, _close_names(name)) from None


def check_parser(name: str) -> None:
    """Raise :class:`UnknownParserError` unless ``name`` is a registered parser. A Python parser's
    name (most rows') is checked without building the other languages' tables."""
    if name not in python_parsers.PARSERS:
        get_parser(name)


def parse_log(
    name: str,
    log: str,
    ctx: ParseContext | None = None,
    *,
    harness_version: str = DEFAULT_HARNESS_VERSION,
) -> dict[str, str]:
    """Parse ``log`` with the parser registered under ``name``."""
    return get_parser(name, harness_version=harness_version)(log, ctx or ParseContext())


# The runner each Python parser reads, for the grading probe's canary tests and result channel.
_DJANGO_PARSERS = frozenset({"parse_log_django"})
_SYMPY_PARSERS = frozenset({"parse_log_sympy"})
_PYTEST_PARSERS = frozenset(
    {
        "parse_log_pytest", "parse_log_pytest_options", "parse_log_pytest_v2", "parse_log_astropy",
        "parse_log_scikit", "parse_log_sphinx", "parse_log_matplotlib", "parse_log_seaborn",
        "parse_log_xarray", "parse_log_flask", "parse_log_requests", "parse_log_pylint",
        "parse_log_pydicom", "parse_log_pvlib", "parse_log_pyvista", "parse_log_sqlfluff",
        "parse_log_astroid", "parse_log_marshmallow", "parse_log_pytest_pytest",
    }
)  # fmt: skip
NORMALIZING_PARSERS = frozenset(
    {
        "parse_log_pytest_options",
        "parse_log_requests",
        "parse_log_pylint",
        "parse_log_pydicom",
        "parse_log_matplotlib",
        "parse_log_seaborn",
    }
)
"""Parsers whose ids are not pytest's node ids as printed."""


def runner_of(parser_name: str) -> str | None:
    """The test runner whose output a parser reads, where the grading probe knows it."""
    if parser_name in _DJANGO_PARSERS:
        return "django"
    if parser_name in _SYMPY_PARSERS:
        return "sympy"
    if parser_name in _PYTEST_PARSERS:
        return "pytest"
    return None


def probe_spec(parser_name: str, parse: Callable[[str], Mapping[str, str]]) -> ProbeSpec:
    """What the grading probe needs to check a run graded by ``parser_name``."""
    return ProbeSpec(
        runner=runner_of(parser_name), parse=parse, exact_ids=parser_name not in NORMALIZING_PARSERS
    )
