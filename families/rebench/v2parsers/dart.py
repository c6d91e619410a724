"""Dart: ``dart test`` JSON events, package lines and the compact reporter."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from collections.abc import Mapping
from typing import Any

from pytest_swe.families.logparsers import LogParseError

from .base import ERROR
from .base import FAILED
from .base import PASSED
from .base import SKIPPED
from .base import LineReader
from .base import make_rule
from .base import nonblank_lines
from .base import split_all

# --- Dart -----------------------------------------------------------------------------------------


def _json_events(log: str) -> Iterable[dict[str, Any]]:
    """Objects of ``dart test --reporter json`` (one JSON value a line; arrays are flattened)."""
    for line in nonblank_lines(log):
        try:
            decoded = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(decoded, dict):
            yield decoded
        elif isinstance(decoded, list):
            yield from (item for item in decoded if isinstance(item, dict))


def _dart_done_status(event: Mapping[str, Any]) -> str | None:
    result = event.get("result")
    if result in ("success", "failure", "error"):
        return {"success": PASSED, "failure": FAILED, "error": ERROR}[result]
    return SKIPPED if event.get("skipped", False) else None


def parse_log_dart(log: str) -> dict[str, str]:
    """The JSON reporter's ``testStart``/``testDone`` events, ids are test names.

    ``loading <file>`` pseudo-tests and hidden tests are left out. A skipped test reports
    ``result: success``, so it counts as PASSED.
    """
    names: dict[Any, str] = {}
    results: dict[str, str] = {}
    try:
        for event in _json_events(log):
            kind = event.get("type")
            if kind == "testStart":
                test = event.get("test")
                if not isinstance(test, dict):
                    continue
                test_id, name = test.get("id"), test.get("name")
                if test_id is None or not name:
                    continue
                if not isinstance(name, str):
                    raise LogParseError(f"dart test name is not text: {name!r}")
                if not name.startswith("loading "):
                    names[test_id] = name
            elif kind == "testDone":
                test_id = event.get("testID")
                if test_id is None or event.get("hidden", False) or test_id not in names:
                    continue
                if (status := _dart_done_status(event)) is not None:
                    results[names[test_id]] = status
    except TypeError as exc:  # an id that cannot be a key
        raise LogParseError(f"dart event with an unusable test id: {exc}") from exc
    return results


_DART_PACKAGE_LINE = re.compile(r"\[[\w_]+\]:\s+\d{2}:\d{2}\s+\+(\d+):\s+(/[^:]+\.dart):\s+(.+)$")


def parse_log_dart_v2(log: str) -> dict[str, str]:
    """``[pkg]: 00:01 +3: /abs/test.dart: name`` progress lines of a multi-package run.

    A test seen on two or more lines passed; seen once it is ERROR. Lines with ``loading`` and
    lines with a failure count (``+3 -1:``) are not read. Ids are ``<file>: <name>``.
    """
    seen: dict[str, int] = {}
    for raw in split_all(log):
        line = raw.strip()
        if not line or "loading" in line.lower():
            continue
        if match := _DART_PACKAGE_LINE.match(line):
            key = f"{match.group(2)}: {match.group(3)}"
            seen[key] = seen.get(key, 0) + 1
    return {key: PASSED if count >= 2 else ERROR for key, count in seen.items()}


_DART_COMPACT_TEST = r"\d+:\d+\s+\+\d+(?:\s+-\d+)?:\s+(/[^:]+\.dart):\s+(.+?)(?:\s+\[E\])?$"


def _dart_compact_name(match: re.Match[str]) -> str:
    return f"{match.group(1)}: {match.group(2).strip()}"


parse_log_dart_v3 = LineReader(
    (
        make_rule(r"\d+:\d+\s+\+\d+\s+-\d+:\s+loading\s+(/[^:]+\.dart)\s+\[E\]$", ERROR),
        make_rule(rf"(?=.*\[E\]){_DART_COMPACT_TEST}", FAILED, name=_dart_compact_name),
        make_rule(_DART_COMPACT_TEST, PASSED, "keep", name=_dart_compact_name),
    )
)
"""The compact reporter's ``00:01 +3: /abs/test.dart: name`` lines: ``[E]`` marks a failure,
anything else a tentative pass; a file that failed to load is ERROR under its path."""
