"""Haskell runners: tasty and hspec."""

from __future__ import annotations

import re

from .base import ANSI_SGR
from .base import ERROR
from .base import FAILED
from .base import PASSED
from .base import SKIPPED
from .base import LineReader
from .base import make_rule
from .base import split_all
from .base import stripped_group
from .base import word_status

# --- Haskell --------------------------------------------------------------------------------------

_TASTY_STATUS = {
    "OK": PASSED,
    "PASS": PASSED,
    "FAIL": FAILED,
    "ERROR": ERROR,
    "SKIP": SKIPPED,
    "PENDING": SKIPPED,
}

parse_log_haskell = LineReader(
    (
        make_rule(r".*?(?:Test suite |Linking |Building |Running  )", None),
        make_rule(
            r"\s*(?P<name>.+?)\s*:\s*(?P<status>OK|PASS|FAIL|ERROR|SKIP|PENDING)(?:\b|\s|$)",
            word_status(_TASTY_STATUS),
            name=stripped_group("name"),
        ),
        make_rule(r"\s*(?P<name>.+?)\s*:\s*(?:SKIP|PENDING)\b.*$", SKIPPED, name=stripped_group("name")),
        make_rule(r"\s+(?P<name>.+?)\s+\[(?:✓|✔)\]\s*$", PASSED, "keep", name=stripped_group("name")),
        make_rule(r"\s+(?P<name>.+?)\s+\[(?:✗|✘)\]\s*$", FAILED, name=stripped_group("name")),
        make_rule(
            r"\s*(?:✓|✔)\s+(?P<name>.+?)(?:\s+\(.*?\))?\s*$", PASSED, "keep", name=stripped_group("name")
        ),
        make_rule(r"\s*(?:✗|✘)\s+(?P<name>.+?)\s*$", FAILED, name=stripped_group("name")),
        make_rule(r"\s*\d+\)\s+(?P<name>.+?)\s*$", FAILED, name=stripped_group("name")),
        make_rule(r"###\s+Failure\s+in:\s+(?P<name>.+)$", FAILED, name=stripped_group("name")),
        make_rule(r"###\s+Error\s+in:\s+(?P<name>.+)$", ERROR, name=stripped_group("name")),
    ),
    prepare=lambda line: ANSI_SGR.sub("", line).rstrip(),
)
"""tasty's ``name: OK``, hspec's ``✔ name`` / ``name [✔]`` / ``1) name`` and HUnit's ``### Failure in:``.
Ids are the leaf titles only."""

_HSPEC_FAILURE_ENTRY = re.compile(r"\s*\d+\)\s+(.*)$")
_HSPEC_FAILURES_END = ("To rerun use:", "Randomized with seed", "Finished in ", "Test suite ")
_HSPEC_TREE_NOISE = (
    "Downloading",
    "Building",
    "Installing",
    "Completed",
    "Starting",
    "Preprocessing",
    "Configuring",
    "Linking",
    "Resolving dependencies",
    "Build profile",
    "In order, the following will be built",
    "Error:",
    "Test suite ",
    "Running ",
)
_HSPEC_INFO = "Golden and Actual output didn't change"
_HSPEC_INLINE_FAILED = re.compile(r"(.*?)\s+FAILED\s*\[\d+\]$")
_HSPEC_INLINE_PENDING = re.compile(r"(.*?)\s+(?:PENDING|SKIPPED)\b.*$", re.IGNORECASE)


def _spaces(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _hspec_failure_names(lines: list[str], start: int) -> set[str]:
    """The ``Failures:`` list: ``1) Group, sub group, example`` -> ``Group.sub group.example``."""
    names: set[str] = set()
    for line in lines[start:]:
        text = line.strip()
        if not text:
            continue
        if text.startswith(_HSPEC_FAILURES_END):
            break
        if match := _HSPEC_FAILURE_ENTRY.match(text):
            names.add(".".join(part.strip() for part in match.group(1).strip().split(",")))
    return names


def _hspec_tree_start(lines: list[str]) -> int:
    for index, line in enumerate(lines):
        if line.startswith("Test suite ") and ": RUNNING..." in line:
            return index + 1
    for index, line in enumerate(lines):
        if (
            line
            and not line.startswith(" ")
            and "." in line
            and not any(k in line for k in _HSPEC_TREE_NOISE)
        ):
            return index
    return 0


def parse_log_haskell_v2(log: str) -> dict[str, str]:
    """hspec's indented tree (two spaces a level) under ``Test suite x: RUNNING...``, ids ``Group.sub.example``.

    A line is an example when the next significant line is not indented deeper; ``FAILED [1]``
    and ``PENDING`` suffixes give its status, otherwise it passed. Entries of the ``Failures:``
    list are FAILED too. Everything from the tree's start to ``Failures:`` (or the end of the
    log) is read, summary lines included.
    """
    lines = split_all(log)
    failures_at = next((i for i, line in enumerate(lines) if line.strip() == "Failures:"), None)
    failed = _hspec_failure_names(lines, failures_at + 1) if failures_at is not None else set()
    end = failures_at if failures_at is not None else len(lines)

    def significant(index: int) -> bool:
        text = lines[index].strip()
        return bool(text) and text != _HSPEC_INFO

    results: dict[str, str] = {}
    path: list[str] = []
    for index in range(_hspec_tree_start(lines), end):
        if not significant(index):
            continue
        line = lines[index]
        text = line.strip()
        indent = _spaces(line)
        level = indent // 2
        status = PASSED
        if match := _HSPEC_INLINE_FAILED.match(text):
            title, status = match.group(1).strip(), FAILED
        elif match := _HSPEC_INLINE_PENDING.match(text):
            title, status = match.group(1).strip(), SKIPPED
        else:
            title = text
        del path[level:]
        path.extend([""] * (level - len(path)))
        path.append(title)
        following = next((j for j in range(index + 1, end) if significant(j)), None)
        if following is None or _spaces(lines[following]) <= indent:
            results[".".join(part for part in path if part)] = status
    for name in failed:
        results[name] = FAILED
    return results
