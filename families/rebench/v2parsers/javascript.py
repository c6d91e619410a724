"""JavaScript reporters: Jest, react-pdf's per-file lines, mocha, node TAP and npx."""

from __future__ import annotations

import re
from collections.abc import Callable

from .base import FAILED
from .base import PASSED
from .base import SKIPPED
from .base import LineReader
from .base import make_rule
from .base import nonblank_lines
from .base import split_newlines
from .base import stripped_group
from .base import word_status

parse_log_jest = LineReader(
    (
        make_rule(
            r"\s*([✓✕○])\s(.+?)(?:\s\((\d+\s*m?s)\))?$",
            word_status({"✓": PASSED, "✕": FAILED, "○": SKIPPED}, group=1),
            name=lambda m: m.group(2),
        ),
    ),
    split=split_newlines,
)
"""``jest --verbose`` titles; whitespace left before a duration stays part of the title."""

_JEST_FILE_DURATION = r"(?:\s\([\d.]+\s*(?:ms|s)\))?"
parse_log_react_pdf = LineReader(
    (
        make_rule(rf"PASS\s(.*?){_JEST_FILE_DURATION}$", PASSED, name=lambda m: m.group(1).rstrip()),
        make_rule(rf"FAIL\s(.*?){_JEST_FILE_DURATION}$", FAILED, name=lambda m: m.group(1).rstrip()),
    ),
    split=split_newlines,
    prepare=lambda line: line,
    skip_blank=False,
)
"""Jest's per-file ``PASS|FAIL <file> (<duration>)`` lines; the file is the id."""

# --- mocha, node TAP and other JavaScript reporters -----------------------------------------------

_JS_DURATION = re.compile(r"\s*(?:\(\s*)?\d+(?:\.\d+)?\s*(?:ms|s)\s*(?:\))?\s*$", re.IGNORECASE)


def strip_js_duration(name: str) -> str:
    """``adds (53ms)`` -> ``adds``; also a bare ``53ms`` or ``2s`` at the end of a title."""
    return _JS_DURATION.sub("", name).strip()


def _js_title(group: int = 1) -> Callable[[re.Match[str]], str]:
    def name(match: re.Match[str]) -> str:
        return strip_js_duration(match.group(group))

    return name


_MOCHA_PENDING = make_rule(r"\s*-\s+(.*?)$", SKIPPED, name=_js_title(), skip_empty=True)
_MOCHA_PASS = make_rule(r"\s*✔\s+(.*?)$", PASSED, "keep", name=_js_title(), skip_empty=True)

parse_log_js = LineReader(
    (
        _MOCHA_PENDING,
        make_rule(r"\s*\d+\)\s+(.*?):$", FAILED, name=_js_title(), skip_empty=True),
        make_rule(
            r"\s*\[W\]\s*\d+\)\s+(.*?)$",
            FAILED,
            name=lambda m: strip_js_duration(m.group(1).rstrip()),
            skip_empty=True,
        ),
        _MOCHA_PASS,
    )
)
"""mocha spec titles: ``✔ title`` passes, ``- title`` pending, and ``1) title:`` or ``[W] 1) title``
failures (a failure listed as ``1) Suite`` then ``title:`` on the next line is not read)."""

parse_log_js_2 = LineReader(
    (
        _MOCHA_PENDING,
        make_rule(r"\s*\d+\)\s+(.*?)$", FAILED, name=_js_title(), skip_empty=True),
        _MOCHA_PASS,
    )
)
"""mocha spec titles: ``✔ title``, ``- title`` pending, and every ``1) ...`` line as a failure
(including the first line of each entry in the failure list)."""

parse_log_npx = LineReader(
    (
        make_rule(r"\s*✔\s+(.+?)(?:\s+\(\d+(?:ms)?\))?$", PASSED, name=stripped_group()),
        make_rule(
            r"\s*\d+\)\s+(.+)$", FAILED, name=lambda m: re.sub(r"\s+\([^)]+\)$", "", m.group(1).strip())
        ),
    ),
    prepare=str.rstrip,
)
"""mocha through npx: ``✔ title (53ms)`` and ``1) title``, the last report of a title winning."""

_TAP_RESULT = re.compile(r"(?P<status>not ok|ok)\s+\d+\s+-\s+(?P<name>.*?)(?:\s+#.*)?$")
_TAP_SKIP_DIRECTIVES = ("# skip", "# skipped", "# todo")


def parse_log_js_3(log: str) -> dict[str, str]:
    """TAP ``ok 3 - name`` lines with TAP 14's buffered subtests (``ok 1 - suite {`` ... ``}``).

    Ids join open subtests with `` :: ``. A ``# SKIP`` directive after a blank is dropped with the
    rest of the comment (the line keeps its ok/not ok meaning); only a directive glued to the
    name (``name# skip``) marks a skip. A failure overrides; a pass never replaces a known result.
    """
    results: dict[str, str] = {}
    stack: list[str] = []
    for line in nonblank_lines(log):
        if not line.replace("}", ""):
            del stack[max(len(stack) - line.count("}"), 0) :]
            continue
        opens = line.endswith("{")
        if opens:
            line = line[:-1].rstrip()
        match = _TAP_RESULT.match(line)
        if not match:
            continue
        raw_name = match.group("name")
        name = strip_js_duration(re.split(r"\s+#", raw_name, maxsplit=1)[0].strip())
        if not name:
            continue
        full_name = " :: ".join((*stack, name))
        if any(directive in raw_name.lower() for directive in _TAP_SKIP_DIRECTIVES):
            results[full_name] = SKIPPED
        elif match.group("status") == "not ok" or full_name not in results:
            results[full_name] = PASSED if match.group("status") == "ok" else FAILED
        if opens:
            stack.append(name)
    return results


_JS4_SYMBOLS = {
    **dict.fromkeys(("✔", "✓"), PASSED),
    **dict.fromkeys(("✘", "✖", "\u00d7"), FAILED),
    **dict.fromkeys(("○", "◌", "◦", "⚪"), SKIPPED),
}
_JS4_SKIP_MARKERS = ("(skipped)", "[skip]", "[skipped]", "[pending]", "[todo]")


def _without_tag(payload: str) -> str:
    """``[chromium]: title`` -> ``title``: a runner's bracketed project tag is not part of the title."""
    payload = payload.strip()
    if payload.startswith("[") and "]:" in payload:
        payload = payload.split("]:", 1)[1].strip()
    if payload.startswith(":"):
        payload = payload[1:].strip()
    return payload


def parse_log_js_4(log: str) -> dict[str, str]:
    """Any reporter that starts a result line with a symbol (✔ ✓ pass; ✘, ✖ or the
    multiplication sign fail; ○ ◌ ◦ ⚪ skip).

    A pass is tentative. Lines with a lower-case ``(skipped)``, ``[skip]``, ``[pending]`` or
    ``[todo]`` marker count as skipped, the marker removed from the name.
    """
    results: dict[str, str] = {}
    for line in nonblank_lines(log):
        status = _JS4_SYMBOLS.get(line[0])
        if status is not None:
            name = strip_js_duration(_without_tag(line[1:]))
            if not name:
                continue
            if status == PASSED:
                results.setdefault(name, status)
            else:
                results[name] = status
            continue
        if any(marker in line.lower() for marker in _JS4_SKIP_MARKERS):
            candidate = line
            for marker in _JS4_SKIP_MARKERS:
                candidate = candidate.replace(marker, "")
            if name := strip_js_duration(candidate):
                results[name] = SKIPPED
    return results
