"""Readers written for single JavaScript repositories of SWE-bench Multilingual and Multimodal.

Each project runs its own reporter (mocha spec or JSON, jasmine, karma with Chrome or
PhantomJS, deno, cypress), so each has its own id format; several only ever report failures.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from .base import FAILED
from .base import PASSED
from .base import LogParseError
from .base import ParseContext
from .base import Parser
from .base import indentation
from .base import log_lines
from .base import strip_ansi


class SuiteStack:
    """The describe-block path of a spec-style report, tracked by indentation.

    A line opens a suite at its indentation after closing every open suite indented as deep
    or deeper; blank-but-indented lines open an empty-titled suite, as in the official readers.
    """

    def __init__(self) -> None:
        self._open: list[tuple[str, int]] = []

    def enter(self, line: str) -> None:
        depth = indentation(line)
        while self._open and self._open[-1][1] >= depth:
            self._open.pop()
        self._open.append((line.strip(), depth))

    @property
    def titles(self) -> list[str]:
        return [title for title, _ in self._open]


def _collapse_whitespace(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _record(statuses: dict[str, str], names: Iterable[str], status: str) -> None:
    for name in names:
        statuses[name] = status


# --- wp-calypso: jest --verbose after each traced ``./node_modules/.bin/jest`` command --------

_CALYPSO_RUN_SEPARATOR = " ./node_modules/.bin/jest "
_DURATION_MS = re.compile(r"\(\d+ms\)")


def _calypso_title(line: str, mark: str) -> str:
    if _DURATION_MS.search(line):
        match = re.fullmatch(rf"\s+{mark}\s(.*)\(\d+ms\)", line)
    else:
        match = re.match(rf"\s+{mark}\s(.*)", line)
    if match is None:
        raise LogParseError(f"calypso result line without the expected layout: {line!r}")
    return match.group(1)


def parse_calypso(log: str, ctx: ParseContext) -> dict[str, str]:
    """Ids are ``suite - ... - title`` from Jest's indented verbose tree.

    The suite path carries over from one traced run to the next, and a run's tree ends at its
    ``Test Suites`` summary or at the first failure detail (``  ● ``).
    """
    statuses: dict[str, str] = {}
    suites = SuiteStack()
    for run in log.split(_CALYPSO_RUN_SEPARATOR)[1:]:
        for line in log_lines(run):
            if line.startswith(("Test Suites", "  ● ")):
                break
            stripped = line.strip()
            if stripped.startswith(("✓", "✕")):
                mark = stripped[0]
                title = _calypso_title(line, mark)
                test_id = " - ".join([" - ".join(suites.titles), title]).strip()
                statuses[test_id] = PASSED if mark == "✓" else FAILED
            elif indentation(line) > 0:
                suites.enter(line)
    return statuses


# --- Chart.js, bpmn-js, openlayers: karma's progress reporter only names failures ---------------

_CHART_JS_FAILURE = re.compile(r"Chrome\s[\d.]+[^\S\r\n]\(.+?\)[^\S\r\n](?P<test>.*)FAILED$", re.MULTILINE)


def parse_chart_js(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read ``Chrome <version> (<platform>) <suite> <test> FAILED`` lines (the id keeps its trailing space)."""
    statuses: dict[str, str] = {}
    _record(statuses, (m.group("test") for m in _CHART_JS_FAILURE.finditer(strip_ansi(log))), FAILED)
    return statuses


_BPMN_FAILURES = (
    re.compile(r"2KPhantomJS\s[\d.]+\s\(Linux\s[\d.]+\)\s(?P<test>.*)FAILED\n"),
    re.compile(r"2KPhantomJS\s[\d.]+\s\(Linux\sx86_64\)\s(?P<test>.*)FAILED\n"),
    re.compile(r"Chrome\sHeadless\s.*\s\(Linux\sx86_64\)\s(?P<test>.*)FAILED\n"),
    re.compile(r"HeadlessChrome\s[\d.]+\s\(Linux\s[\d.]+\)\s(?P<test>.*)FAILED\n"),
)


def parse_bpmn_js(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read karma failure lines of PhantomJS (behind a cursor-erase ``2K``) and headless Chrome."""
    statuses: dict[str, str] = {}
    for pattern in _BPMN_FAILURES:
        _record(statuses, (m.group("test") for m in pattern.finditer(log)), FAILED)
    return statuses


_OPENLAYERS_FAILURES = (
    re.compile(r"Chrome\sHeadless\s[\d.]+\s\(Linux\s[\d._\S]+\)\s(?P<test>.*)\sFAILED\n", re.MULTILINE),
    re.compile(r"Chrome\s[\d.]+\s\(Linux\s[\d._\S]+\)\s(?P<test>.*)FAILED\n", re.MULTILINE),
    # mocha's failure list (``  1) suite\n       test:\n     Error: ...``) of the node tests
    re.compile(r"^\s{2}\d+\)(?P<test>[\s\S]*?)Error:", re.MULTILINE),
    # the rendering tests' ``case <name>: mismatch`` report
    re.compile(r"^case\s(?P<test>.*):\smismatch", re.MULTILINE),
)


def parse_openlayers(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read failures from karma (Chrome), mocha's failure list and the rendering tests."""
    statuses: dict[str, str] = {}
    for pattern in _OPENLAYERS_FAILURES:
        _record(statuses, (_collapse_whitespace(m.group("test")) for m in pattern.finditer(log)), FAILED)
    return statuses


# --- marked: jasmine's numbered failure list ---------------------------------------------------

_NUMBERED_FAILURE = re.compile(r"\d+\)\s(?P<test>.*)")


def parse_marked(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read jasmine's ``1) <suite> <spec>`` failure headings; passes are never listed."""
    statuses: dict[str, str] = {}
    for line in log_lines(log):
        match = _NUMBERED_FAILURE.match(line)
        if match:
            statuses[match.group("test").strip()] = FAILED
    return statuses


# --- p5.js: mocha's failure list, with logged JSON and XML dropped first -------------------------


def _drop_logged_json(text: str) -> str:
    """Remove JSON a test logged (multi-line objects and arrays, one-line ``{...}``/``[...]``)."""
    kept: list[str] = []
    in_object = in_array = False
    for line in text.split("\n"):
        trimmed = line.rstrip()
        if trimmed.endswith("{"):
            in_object = True
            continue
        if trimmed.endswith("["):
            in_array = True
            continue
        if trimmed == "}" and in_object:
            in_object = False
            continue
        if trimmed == "]" and in_array:
            in_array = False
            continue
        if in_object or in_array:
            continue
        if (trimmed.startswith("{") and trimmed.endswith("}")) or (
            trimmed.startswith("[") and trimmed.endswith("]")
        ):
            continue
        kept.append(line)
    return "\n".join(kept)


_XML_ELEMENT = re.compile(r"<(\w+)>[\s\S]*?</\1>")


def _drop_logged_xml(text: str) -> str:
    """Remove ``<tag>...</tag>`` elements a test logged, innermost-first, leaving unclosed openings."""
    while match := _XML_ELEMENT.search(text):
        opening = f"<{match.group(1)}>"
        unclosed = max(match.group().count(opening) - 1, 0)
        text = text[: match.start()] + opening * unclosed + text[match.end() :]
    return text


_MOCHA_FAILURE_HEADING = re.compile(r"^\s*\d+\)(?P<titles>.{0,1000}?):", re.MULTILINE | re.DOTALL)


def _titles_nest(titles: str) -> bool:
    """mocha prints a failure's suite path one title per line, each indented deeper than the last."""
    previous = 0
    for line in titles.split("\n"):
        depth = indentation(line)
        if depth <= previous:
            return False
        previous = depth
    return True


def parse_p5js(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read mocha's failure list as ``suite:...:test`` ids; only failures are reported."""
    text = _drop_logged_xml(_drop_logged_json(strip_ansi(log)))
    statuses: dict[str, str] = {}
    for match in _MOCHA_FAILURE_HEADING.finditer(text):
        if _titles_nest(match.group("titles")):
            statuses[":".join(part.strip() for part in match.group("titles").split("\n"))] = FAILED
    return statuses


# --- react-pdf, carbon (and lighthouse >= 3): Jest's per-file PASS/FAIL lines -------------------

_FILE_DURATIONS = (r"\s\([\d.]+ms\)", r"\s\([\d.]+\ss\)", r"\s\([\d.]+s\)", "")
_JEST_FILE_RESULTS = tuple(
    (re.compile(rf"{word}\s(?P<test>.*){duration}"), status)
    for word, status in (("PASS", PASSED), ("FAIL", FAILED))
    for duration in _FILE_DURATIONS
)


def parse_jest_files(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read ``PASS|FAIL <test file> (<duration>)`` lines: the ids are test files, not tests."""
    statuses: dict[str, str] = {}
    for line in log_lines(log):
        for pattern, status in _JEST_FILE_RESULTS:
            match = pattern.match(line)
            if match:
                statuses[match.group("test")] = status
                break
    return statuses


_GROMMET_FAIL = re.compile(r"^FAIL\s(?P<test>.*)", re.MULTILINE)
_GROMMET_PASS = re.compile(r"^PASS\s(?P<test>.*)", re.MULTILINE)
_GROMMET_DURATION = re.compile(r"\s\([\d.]+\s?(?:ms|s)\)$")


def parse_grommet(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read Jest's per-file lines over the whole log; a file listed as both ends up passed."""
    statuses: dict[str, str] = {}
    for pattern, status in ((_GROMMET_FAIL, FAILED), (_GROMMET_PASS, PASSED)):
        for match in pattern.finditer(log):
            statuses[_GROMMET_DURATION.sub("", match.group("test").strip())] = status
    return statuses


# --- eslint: mocha's failure list -----------------------------------------------------------------

_ESLINT_FAILURE = re.compile(r"\s\s\d+\)(?P<test>[\s\S]*?)\s+.*Error")


def parse_eslint(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read ``  1) <suite path and title>`` up to the next line naming an ``...Error``; failures only."""
    statuses: dict[str, str] = {}
    _record(statuses, (_collapse_whitespace(m.group("test")) for m in _ESLINT_FAILURE.finditer(log)), FAILED)
    return statuses


# --- highlight.js: mocha spec reporter ------------------------------------------------------------

_MOCHA_EPILOGUE = re.compile(r"\n[ \t]*\d+ passing")


def _without_ms_timing(title: str) -> str:
    return _DURATION_MS.sub("", title).strip()


def parse_highlightjs(log: str, ctx: ParseContext) -> dict[str, str]:
    """Ids are ``<innermost suite>.<title>``; the failure details after ``N passing`` are not read."""
    report = _MOCHA_EPILOGUE.split(log)[0]
    statuses: dict[str, str] = {}
    suite: list[str] = []
    for line in log_lines(report):
        stripped = line.strip()
        if stripped.startswith(("✓", "✔")):
            title = _without_ms_timing(line.split(stripped[0], 1)[1])
            statuses[".".join([*suite, title])] = PASSED
        elif re.match(r"\d+\)", stripped):
            title = _without_ms_timing(line.split(")", 1)[1])
            statuses[".".join([*suite, title])] = FAILED
        elif line.startswith("  "):
            suite = [stripped]
    return statuses


# --- lighthouse: three eras of test output, chosen by version -------------------------------

_LIGHTHOUSE_MOCHA_VERSIONS = frozenset({"9.5", "10.0", "10.2"})
_LIGHTHOUSE_RUN_START = re.compile(r"running\s\d+\stest\sfiles")
_LIGHTHOUSE_RUN_END = re.compile(r"\d+\spassing")
_LIGHTHOUSE_RESULTS = (
    (re.compile(r"✔\s(?P<test>.*)\s\(\d+m+s\)"), PASSED),
    (re.compile(r"✔\s(?P<test>.*)"), PASSED),
    (re.compile(r"\d+\)\s(?P<test>.*)\s\(\d+m+s\)"), FAILED),
    (re.compile(r"\d+\)\s(?P<test>.*)"), FAILED),
)
_MOCHA_JSON_FULL_TITLE = re.compile(r"\"fullTitle\":\s\"(?P<test>.*)\",\n", re.MULTILINE)


def _lighthouse_mocha_spec(log: str) -> dict[str, str]:
    statuses: dict[str, str] = {}
    for run in _LIGHTHOUSE_RUN_START.split(log)[1:]:
        report = _LIGHTHOUSE_RUN_END.split(run)[0].strip()
        suites = SuiteStack()
        for line in log_lines(report):
            for pattern, status in _LIGHTHOUSE_RESULTS:
                match = pattern.match(line.strip())
                if match:
                    statuses[" - ".join([*suites.titles, match.group("test")])] = status
                    break
            else:
                if indentation(line) > 0:
                    suites.enter(line)
    return statuses


def _lighthouse_mocha_json(log: str) -> dict[str, str]:
    statuses: dict[str, str] = {}
    for run in log.split("./node_modules/.bin/mocha --reporter json")[1:]:
        passes = run.split('"passes": [')[-1].rsplit("]", 1)[0]
        _record(statuses, (m.group("test") for m in _MOCHA_JSON_FULL_TITLE.finditer(passes)), PASSED)
        failures = run.split('"failures": [')[-1].rsplit("],", 1)[0]
        _record(statuses, (m.group("test") for m in _MOCHA_JSON_FULL_TITLE.finditer(failures)), FAILED)
    return statuses


def parse_lighthouse(log: str, ctx: ParseContext) -> dict[str, str]:
    """9.5/10.0/10.2 ran mocha's spec reporter, 3 and later Jest (per file), older mocha's JSON reporter."""
    if ctx.version in _LIGHTHOUSE_MOCHA_VERSIONS:
        return _lighthouse_mocha_spec(log)
    try:
        version = float(ctx.version)
    except ValueError:
        raise LogParseError(f"lighthouse version {ctx.version!r} is not a number") from None
    if version >= 3:
        return parse_jest_files(log, ctx)
    return _lighthouse_mocha_json(log)


# --- alibaba-fusion/next: karma under xvfb-run, or cypress for 1.27 ---------------------------------

_ASSERTION_DUMP = re.compile(r"AssertionError:\s+#([\s\S]*?)\n\n", re.DOTALL)
_NEXT_SKIPPED_PREFIXES = ("ERROR", "LOG", "WARN", "Check", "in")
_NEXT_FAIL = re.compile(r".*?✗\s*(?P<test>.*)")
_NEXT_PASS = re.compile(r".*?✓\s*(?P<test>.*)")


def _next_karma(log: str) -> dict[str, str]:
    text = _ASSERTION_DUMP.sub("", strip_ansi(log))
    statuses: dict[str, str] = {}
    suites = SuiteStack()
    for run in text.split(" xvfb-run ")[1:]:
        run = run.split("Starting browser Chrome")[-1]
        for line in log_lines(run):
            if line.startswith("TOTAL"):
                break
            if line.strip().startswith(_NEXT_SKIPPED_PREFIXES):
                continue
            if match := _NEXT_FAIL.match(line):
                statuses[" - ".join([*suites.titles, match.group("test")])] = FAILED
            elif match := _NEXT_PASS.match(line):
                statuses[" - ".join([*suites.titles, match.group("test")])] = PASSED
            elif indentation(line) > 0:
                suites.enter(line)
    return statuses


_CYPRESS_SPEC_START = re.compile(r"Running\:(.*)\)\n{3}\s{2}(.*)\n")
_CYPRESS_FAILURE = re.compile(r"^\s{4}\d+\)\s(?P<test>.*)", re.MULTILINE)
_CYPRESS_PASS = re.compile(r"^\s{4}✓\s(?P<test>.*)\(", re.MULTILINE)


def _next_cypress(log: str) -> dict[str, str]:
    statuses: dict[str, str] = {}
    pieces = _CYPRESS_SPEC_START.split(log)
    for index, (_, suite) in enumerate(_CYPRESS_SPEC_START.findall(log)):
        section = pieces[(index + 1) * 3]
        for pattern, status in ((_CYPRESS_FAILURE, FAILED), (_CYPRESS_PASS, PASSED)):
            for match in pattern.finditer(section):
                statuses[f"{suite}: {match.group('test').strip()}"] = status
    return statuses


def parse_next(log: str, ctx: ParseContext) -> dict[str, str]:
    """Version 1.27 ran cypress (``<spec title>: <test>``), the others karma (``suite - test``)."""
    if ctx.version == "1.27":
        return _next_cypress(log)
    return _next_karma(log)


# --- PrismJS: mocha's JSON reporter after the traced command ---------------------------------------

_PRISM_TEST_COMMAND = "./node_modules/.bin/mocha tests/run.js --reporter json"


def parse_prismjs(log: str, ctx: ParseContext) -> dict[str, str]:
    """Decode the JSON report that follows each traced test command; ids are mocha full titles."""
    statuses: dict[str, str] = {}
    for run in log.split(_PRISM_TEST_COMMAND)[1:]:
        body = "{" + run.split("{", 1)[-1].rsplit("}", 1)[0] + "}"
        try:
            report = json.loads(body)
            failures = [test["fullTitle"] for test in report["failures"]]
            passes = [test["fullTitle"] for test in report["passes"]]
        except (ValueError, KeyError, TypeError) as exc:
            raise LogParseError(f"PrismJS mocha JSON report does not decode: {exc}") from exc
        _record(statuses, failures, FAILED)
        _record(statuses, passes, PASSED)
    return statuses


# --- quarto-cli: deno test output --------------------------------------------------------------------

_QUARTO_TEST_PREFIX = re.compile(r"\[(smoke|unit)\]")
_QUARTO_TEMP_PATHS = (re.compile(r"/tmp/(\w+)\.qmd"), re.compile(r"/tmp/(\w+)/"))


def _quarto_rejects(line: str) -> bool:
    """Summary and log lines that mention a test but report no result of one."""
    return (
        line.startswith("test result:")
        or ("passed" in line and "failed" in line and "steps" in line)
        or "34mINFO" in line
    )


def parse_quarto_cli(log: str, ctx: ParseContext) -> dict[str, str]:
    """Read deno's ``[unit] name ... ok|FAILED`` lines (coloured), numbering temporary paths in ids.

    A test line without a green ``ok`` or red ``FAILED`` counts as failed unless it was seen
    before; reading stops at deno's ``ERRORS`` report or a ``failures:`` list.
    """
    statuses: dict[str, str] = {}
    temp_numbers: dict[str, int] = {}
    for line in log_lines(log):
        if "ERRORS" in line or "failures:" in line:
            break
        if not _QUARTO_TEST_PREFIX.search(line):
            continue
        for temp_path in _QUARTO_TEMP_PATHS:
            match = temp_path.search(line)
            if match:
                number = temp_numbers.setdefault(match.group(0), len(temp_numbers))
                line = temp_path.sub(f"/tmp/{number}", line)
        if _quarto_rejects(line):
            continue
        name = line.split("...")[0].strip()
        if "32mok" in line:
            statuses[name] = PASSED
        elif "31mFAILED" in line or name not in statuses:
            statuses[name] = FAILED
    return statuses


PARSERS: dict[str, Parser] = {
    "parse_log_calypso": parse_calypso,
    "parse_log_bpmn_js": parse_bpmn_js,
    "parse_log_carbon": parse_jest_files,
    "parse_log_eslint": parse_eslint,
    "parse_log_grommet": parse_grommet,
    "parse_log_highlightjs": parse_highlightjs,
    "parse_log_lighthouse": parse_lighthouse,
    "parse_log_next": parse_next,
    "parse_log_openlayers": parse_openlayers,
    "parse_log_prismjs": parse_prismjs,
    "parse_log_quarto_cli": parse_quarto_cli,
    "parse_log_chart_js": parse_chart_js,
    "parse_log_marked": parse_marked,
    "parse_log_p5js": parse_p5js,
    "parse_log_react_pdf": parse_jest_files,
}
