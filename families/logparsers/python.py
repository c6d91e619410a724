"""Parsers for Python runners: pytest (``-rA`` summaries and verbose lines), Django, SymPy.

All pytest-based parsers share one :func:`parse_log_pytest`; the official harness's variants
(per-repo names, option normalization, ANSI handling, the older ``id STATUS`` form) and the
other harnesses' readings are :class:`PytestGrammar` values, so a fix to the line grammar lands
in every variant.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from .base import ERROR
from .base import FAILED
from .base import PASSED
from .base import SKIPPED
from .base import STATUS_WORDS
from .base import LogParseError
from .base import ParseContext
from .base import Parser
from .base import log_lines

# pytest's ``SKIPPED [3] path:line: reason`` summary line: ``[3]`` counts skips, it names no test.
_SKIP_COUNT = re.compile(r"\[\d+\]")

# ``\x1b[31m`` without its escape byte: the v2 reader deletes such codes, then every control byte.
_BARE_SGR_CODE = re.compile(r"\[\d+m")
_CONTROL_BYTES = str.maketrans("", "", "".join(chr(code) for code in range(1, 32)))


def _strip_colour_codes(line: str) -> str:
    """Colour handling of the v2 reader: single-number SGR codes go, then every control byte (tabs too)."""
    return _BARE_SGR_CODE.sub("", line).translate(_CONTROL_BYTES)


def _matplotlib_mouse_buttons(line: str) -> str:
    """matplotlib's expected ids spell MouseButton parameters by their integer value."""
    return line.replace("MouseButton.LEFT", "1").replace("MouseButton.RIGHT", "3")


def shorten_path_parameter(test_id: str) -> str:
    """Normalize a parametrize id whose parameter is an absolute path to ``[/<last component>]``.

    Expected ids of requests, pylint and pydicom were recorded on other machines, so a
    temporary directory in a parameter would never match. The parameter runs from the first
    ``[`` to the last ``]``; anything after that ``]`` is dropped, as the official reader does.
    """
    opening = test_id.find("[")
    closing = test_id.rfind("]")
    if opening == -1 or closing < opening:
        return test_id
    head, parameter = test_id[:opening], test_id[opening + 1 : closing]
    if parameter.startswith("/") and not parameter.startswith("//") and "*" not in parameter:
        parameter = "/" + parameter.rsplit("/", 1)[-1]
    return f"{head}[{parameter}]"


@dataclass(frozen=True)
class LineForm:
    """One line form another harness reads pytest output by: a pattern with a ``test`` group and
    a ``status`` group (or a fixed ``status``), as that harness's own regular expression has it."""

    pattern: re.Pattern[str]
    status: str | None = None
    """The status of every matching line; None: the ``status`` group, verbatim."""
    name: Callable[[str], str] | None = None
    """Applied to the ``test`` group."""
    whole_line: bool = False
    """The pattern must match the whole line, not only its start."""

    def read(self, line: str) -> tuple[str, str] | None:
        match = self.pattern.fullmatch(line) if self.whole_line else self.pattern.match(line)
        if match is None:
            return None
        test_id = match.group("test")
        return (self.name(test_id) if self.name else test_id), self.status or match.group("status")


@dataclass(frozen=True)
class PytestGrammar:
    """How one harness reads pytest's result lines: ``STATUS id [- message]`` (``-rA``) and,
    optionally, ``id STATUS``; or, for harnesses that read them by pattern, their ``forms``.

    A line counts when it *starts* with one of the five status words (so ``XPASS`` and
    ``ERRORS`` lines do not, but ``ERROR`` collection lines do); the status is the first word
    exactly as printed. An instance is a log parser: it calls :func:`parse_log_pytest` with itself.
    """

    clean: Callable[[str], str] | None = None
    """Applied to every line before it is read (colour stripping, id spelling)."""
    failure_message: Literal["blank_separators", "cut"] = "blank_separators"
    """How a FAILED line's `` - message`` is kept out of the id: every `` - `` becomes a space
    (the id is one word, so the message falls away), or the line is cut at the first `` - ``."""
    test_id_words: Literal["first", "all"] = "first"
    """The id is the first word after the status, or all remaining words (ids with spaces)."""
    skip_count_lines: bool = True
    """Drop ``SKIPPED [N] ...`` summary lines (5.x); 4.1 records them under the id ``[N]``."""
    trailing_status: Literal["none", "first_word", "leading_words"] = "none"
    """Also read lines that *end* with a status word, the verbose form older pytest and
    ``-o console_output_style=classic`` print: keyed by the first word, valued by the second
    (4.1), or keyed by every word but the last, valued by the last (5.x)."""
    rename: Callable[[str], str] | None = None
    """Applied to ids read from ``STATUS id`` lines."""
    strict: bool = False
    """A status line naming no test is an error (:class:`LogParseError`), not skipped."""
    lines: Callable[[str], list[str]] = log_lines
    """The log's lines (SWE-bench splits on ``\\n`` only; some harnesses on every line break,
    or only after a summary heading)."""
    forms: tuple[LineForm, ...] = ()
    """Pattern-read line forms, for harnesses whose own reader is a set of patterns: when given,
    they replace the word reading above, and the first form that matches decides the line."""

    def __call__(self, log: str, ctx: ParseContext | None = None) -> dict[str, str]:
        return parse_log_pytest(log, ctx, grammar=self)

    def results(self, log: str) -> Iterator[tuple[str, str]]:
        """Every ``(test id, status)`` the log reports, in log order (a test may come twice)."""
        for raw_line in self.lines(log):
            line = self.clean(raw_line) if self.clean else raw_line
            if self.forms:
                entry = next((found for form in self.forms if (found := form.read(line))), None)
            elif line.startswith(STATUS_WORDS):
                entry = self._status_first(line)
            elif self.trailing_status != "none" and line.endswith(STATUS_WORDS):
                entry = self._status_last(line)
            else:
                continue
            if entry is not None:
                yield entry

    def _words(self, line: str) -> list[str] | None:
        words = line.split()
        if len(words) >= 2:
            return words
        if self.strict:
            raise LogParseError(f"pytest result line names no test: {line!r}")
        return None

    def _status_first(self, line: str) -> tuple[str, str] | None:
        if line.startswith(FAILED):
            cut = self.failure_message == "cut"
            line = line.split(" - ", 1)[0] if cut else line.replace(" - ", " ")
        words = self._words(line)
        if words is None:
            return None
        status = words[0]
        if self.skip_count_lines and status == SKIPPED and _SKIP_COUNT.fullmatch(words[1]):
            return None
        test_id = words[1] if self.test_id_words == "first" else " ".join(words[1:])
        if self.rename is not None:
            test_id = self.rename(test_id)
        return test_id, status

    def _status_last(self, line: str) -> tuple[str, str] | None:
        words = self._words(line)
        if words is None:
            return None
        if self.trailing_status == "first_word":
            # 4.1's reading: an id with spaces is cut at its first space and the value is
            # whatever word follows, which is not always a status word.
            return words[0], words[1]
        return " ".join(words[:-1]), words[-1]


def parse_log_pytest(
    log: str, ctx: ParseContext | None = None, *, grammar: PytestGrammar | None = None
) -> dict[str, str]:
    """pytest's result lines as ``{test id: status}``, a later line about a test winning.

    The one reader of pytest output for every family: the official harness's variants and the
    other harnesses' readings (SWE-smith, R2E-Gym, Multi-SWE-bench, SWE-rebench V2) are
    :class:`PytestGrammar` values, so a fix to the line grammar lands in every one of them.
    ``grammar`` defaults to SWE-bench 5.x's ``parse_log_pytest``.
    """
    return dict((grammar or SWEBENCH).results(log))


SWEBENCH = PytestGrammar()
"""SWE-bench 5.x's ``parse_log_pytest``."""

parse_pytest = SWEBENCH
parse_pytest_options = PytestGrammar(rename=shorten_path_parameter)
parse_matplotlib = PytestGrammar(clean=_matplotlib_mouse_buttons)
parse_pytest_v2 = PytestGrammar(
    clean=_strip_colour_codes,
    failure_message="cut",
    test_id_words="all",
    trailing_status="leading_words",
)

parse_pytest_v4 = PytestGrammar(skip_count_lines=False)
parse_pytest_options_v4 = PytestGrammar(rename=shorten_path_parameter, skip_count_lines=False)
parse_matplotlib_v4 = PytestGrammar(clean=_matplotlib_mouse_buttons, skip_count_lines=False)
parse_pytest_v2_v4 = PytestGrammar(
    clean=_strip_colour_codes, skip_count_lines=False, trailing_status="first_word"
)


def parse_seaborn(log: str, ctx: ParseContext) -> dict[str, str]:
    """seaborn: ``FAILED id`` and ``PASSED id`` summary lines plus verbose ``id PASSED [ 5%]`` lines.

    Only passes and failures are read; skips, errors and xfails never appear.
    """
    statuses: dict[str, str] = {}
    for line in log_lines(log):
        words = line.split()
        if len(words) < 2:
            continue
        if line.startswith(FAILED):
            statuses[words[1]] = FAILED
        elif f" {PASSED} " in line:
            if words[1] == PASSED:
                statuses[words[0]] = PASSED
        elif line.startswith(PASSED):
            statuses[words[1]] = PASSED
    return statuses


def parse_seaborn_v4(log: str, ctx: ParseContext) -> dict[str, str]:
    """4.1.0's reading, which fails on a ``FAILED`` or ``PASSED`` line that names no test."""
    for line in log_lines(log):
        if len(line.split()) < 2 and (line.startswith((FAILED, PASSED)) or f" {PASSED} " in line):
            raise LogParseError(f"seaborn result line names no test: {line!r}")
    return parse_seaborn(log, ctx)


# --- Django --------------------------------------------------------------------------------

_DJANGO_PASS_ENDINGS = (" ... ok", " ... OK", " ...  OK")
_DJANGO_VERSION_TEST = "--version is equivalent to version"
# django__django-7188: a migration message and the test line share one line of output.
_DJANGO_MIGRATION_PREFIX = "Applying sites.0002_alter_domain_unique...test_no_migrations"
# A test whose "ok" was pushed to the next line by output written while it ran.
_DJANGO_INTERRUPTED_PASSES = tuple(
    re.compile(pattern, re.MULTILINE)
    for pattern in (
        r"^(?P<test>.*?)\s\.\.\.\sTesting against Django installed in (?s:.*?) silenced\)\.\nok$",
        r"^(?P<test>.*?)\s\.\.\.\sInternal Server Error: /.*/\nok$",
        r"^(?P<test>.*?)\s\.\.\.\sSystem check identified no issues \(0 silenced\)\nok$",
    )
)


def _header_test_name(line: str) -> str:
    """``FAIL: test_x (module.Class)`` -> ``test_x``: the official reader keys headers by their first word."""
    words = line.split()
    if len(words) < 2:
        raise LogParseError(f"Django failure header names no test: {line!r}")
    return words[1].strip()


def parse_django(log: str, ctx: ParseContext) -> dict[str, str]:
    """Django's runtests.py at verbosity 2: unittest's ``name ... ok|FAIL|ERROR|skipped`` lines.

    Also reads the ``FAIL:``/``ERROR:`` headers of the failure report (keyed by their first
    word), a lone ``ok`` that belongs to the last started test, and three known cases where
    output printed by a test splits its line.
    """
    statuses: dict[str, str] = {}
    last_started: str | None = None
    for raw_line in log_lines(log):
        line = raw_line.strip()
        if _DJANGO_VERSION_TEST in line:
            statuses[_DJANGO_VERSION_TEST] = PASSED
        if " ... " in line:
            last_started = line.split(" ... ")[0]
        ending = next((suffix for suffix in _DJANGO_PASS_ENDINGS if line.endswith(suffix)), None)
        if ending is not None:
            if line.startswith(_DJANGO_MIGRATION_PREFIX):
                line = line.split("...", 1)[-1].strip()
            statuses[line[: -len(ending)]] = PASSED
        if " ... skipped" in line:
            statuses[line.split(" ... skipped")[0]] = SKIPPED
        if line.endswith(" ... FAIL"):
            statuses[line.split(" ... FAIL")[0]] = FAILED
        if line.startswith("FAIL:"):
            statuses[_header_test_name(line)] = FAILED
        if line.endswith(" ... ERROR"):
            statuses[line.split(" ... ERROR")[0]] = ERROR
        if line.startswith("ERROR:"):
            statuses[_header_test_name(line)] = ERROR
        if line.startswith("ok") and last_started is not None:
            statuses[last_started] = PASSED
    for pattern in _DJANGO_INTERRUPTED_PASSES:
        for match in pattern.finditer(log):
            statuses[match.group("test")] = PASSED
    return statuses


# --- SymPy ---------------------------------------------------------------------------------

# The failure report's ``____ sympy/core/tests/test_x.py:test_y ____`` headers.
_SYMPY_FAILURE_HEADER = re.compile(r"_* (?P<path>.*)\.py:(?P<test>.*) _*")


def parse_sympy(log: str, ctx: ParseContext) -> dict[str, str]:
    """SymPy's bin/test --verbose: ``test_name ok|F|E`` lines and the failure report's headers."""
    statuses: dict[str, str] = {}
    for match in _SYMPY_FAILURE_HEADER.finditer(log):
        statuses[f"{match.group('path')}.py:{match.group('test')}"] = FAILED
    for raw_line in log_lines(log):
        line = raw_line.strip()
        if not line.startswith("test_"):
            continue
        if line.endswith(" E"):
            statuses[line.split()[0]] = ERROR
        elif line.endswith(" F"):
            statuses[line.split()[0]] = FAILED
        elif line.endswith(" ok"):
            statuses[line.split()[0]] = PASSED
    return statuses


PARSERS: dict[str, Parser] = {
    "parse_log_pytest": parse_pytest,
    "parse_log_pytest_options": parse_pytest_options,
    "parse_log_pytest_v2": parse_pytest_v2,
    "parse_log_django": parse_django,
    "parse_log_seaborn": parse_seaborn,
    "parse_log_sympy": parse_sympy,
    "parse_log_matplotlib": parse_matplotlib,
    # Per-repo names: the same readers under the names rows and the repo table use.
    "parse_log_astroid": parse_pytest,
    "parse_log_flask": parse_pytest,
    "parse_log_marshmallow": parse_pytest,
    "parse_log_pvlib": parse_pytest,
    "parse_log_pyvista": parse_pytest,
    "parse_log_sqlfluff": parse_pytest,
    "parse_log_xarray": parse_pytest,
    "parse_log_pydicom": parse_pytest_options,
    "parse_log_requests": parse_pytest_options,
    "parse_log_pylint": parse_pytest_options,
    "parse_log_astropy": parse_pytest_v2,
    "parse_log_scikit": parse_pytest_v2,
    "parse_log_sphinx": parse_pytest_v2,
}

_V4_REPLACEMENTS: dict[Parser, Parser] = {
    parse_pytest: parse_pytest_v4,
    parse_pytest_options: parse_pytest_options_v4,
    parse_matplotlib: parse_matplotlib_v4,
    parse_pytest_v2: parse_pytest_v2_v4,
    parse_seaborn: parse_seaborn_v4,
}

V4_PARSERS: dict[str, Parser] = {
    name: _V4_REPLACEMENTS.get(parser, parser) for name, parser in PARSERS.items()
}
"""The same names with 4.1.0's behaviour: no skip-count filtering, v2 keeps one-word ids."""
