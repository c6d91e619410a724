"""OCaml runners: alcotest, dune, bracketed status words and leading status words."""

from __future__ import annotations

import re
from dataclasses import dataclass
from dataclasses import field

from .base import ANSI_ANY
from .base import ANSI_SGR
from .base import ERROR
from .base import FAILED
from .base import PASSED
from .base import SKIPPED
from .base import STATUS_ALTERNATIVES
from .base import escalate
from .base import split_all

# --- OCaml ----------------------------------------------------------------------------------------

_ALCOTEST_WORDS = {
    "OK": PASSED,
    "PASS": PASSED,
    "FAIL": FAILED,
    "FAILED": FAILED,
    "ERROR": ERROR,
    "ERR": ERROR,
    "SKIP": SKIPPED,
    "SKIPPED": SKIPPED,
    "TODO": SKIPPED,
}
_ALCOTEST_LINE = re.compile(r"\s*\[(?P<status>[A-Z]+)\]\s+(?P<suite>.*?)\s+(?P<index>\d+)\s+(?P<name>.+)$")


def parse_log_ocaml(log: str) -> dict[str, str]:
    """Alcotest's ``  [OK]   suite   0   title.`` lines, ids ``suite 0 title.``; unknown words are ERROR.

    The line for the failure being detailed (``> [FAIL] ...``) and the boxed repeat are not read.
    """
    results: dict[str, str] = {}
    for raw in split_all(log):
        match = _ALCOTEST_LINE.match(raw.rstrip())
        if not match:
            continue
        name = " ".join(
            part for part in (match["suite"].strip(), match["index"], match["name"].strip()) if part
        )
        status = _ALCOTEST_WORDS.get(match["status"], ERROR)
        if status == PASSED:
            results.setdefault(name, status)
        else:
            results[name] = status
    return results


_DUNE_RUNNING = re.compile(r"Running\[(?P<id>\d+)\]:\s+\((?P<command>.+)\)$")
_DUNE_OUTPUT = re.compile(r"Output\[(?P<id>\d+)]:")
_DUNE_FAIL_WORDS = ("FAIL", "ERROR", "EXCEPTION", "CRASH", "FATAL")
_DUNE_SKIP_WORDS = ("SKIP", "SKIPPED")


def _dune_test_binary(command: str) -> str:
    """``cd _build/default/test && ./test_x.exe -v`` -> ``test_x.exe``."""
    command = command.split("&&")[-1].strip()
    command = command.removeprefix("exec ").strip() if command.startswith("exec ") else command
    command = command.removeprefix("./")
    words = command.split()
    return words[0].rsplit("/", 1)[-1] if words else ""


@dataclass
class _DuneRuns:
    """Which test binary each ``Output[N]:`` block of ``dune --display verbose`` belongs to."""

    binaries: dict[int, str] = field(default_factory=dict)
    active: str | None = None
    with_output: set[str] = field(default_factory=set)
    results: dict[str, str] = field(default_factory=dict)

    def read(self, raw: str) -> None:
        line = raw.strip()
        if not line:
            return
        if match := _DUNE_RUNNING.match(line):
            run = int(match["id"])
            self.binaries[run] = _dune_test_binary(match["command"]) or f"run_{run}"
            self.active = None
        elif match := _DUNE_OUTPUT.match(line):
            self.active = self.binaries.get(int(match["id"]))
        elif self.active:
            self.with_output.add(self.active)
            upper = line.upper()
            if any(word in upper for word in _DUNE_FAIL_WORDS):
                escalate(self.results, self.active, FAILED)
            elif any(word in upper for word in _DUNE_SKIP_WORDS):
                escalate(self.results, self.active, SKIPPED)
            elif upper == "OK":
                escalate(self.results, self.active, PASSED)


def parse_log_ocaml_v2(log: str) -> dict[str, str]:
    """``dune test --display verbose``: one result per test binary, from its ``Output[N]:`` block.

    A block line containing FAIL/ERROR/EXCEPTION/CRASH/FATAL fails the binary, SKIP skips it,
    a bare ``OK`` passes it; a binary with output and no verdict passed. Blocks run until the
    next ``Running[N]:`` line. dune 2 prints no ``Output[N]:`` lines, so its logs give nothing.
    """
    runs = _DuneRuns()
    for raw in split_all(log):
        runs.read(raw)
    for binary in runs.with_output:
        runs.results.setdefault(binary, PASSED)
    return runs.results


_BRACKET_WORDS = {
    **dict.fromkeys(("OK", "PASS", "PASSED", "SUCCESS"), PASSED),
    **dict.fromkeys(("SKIP", "SKIPPED", "TODO", "PENDING", "DISABLED"), SKIPPED),
    **dict.fromkeys(("FAIL", "FAILED", "ERROR", "EXCEPTION", "CRASH", "FATAL", "KO", "PANIC"), FAILED),
}
_BRACKET_LINE = re.compile(r"\[(?P<word>[A-Za-z][A-Za-z0-9_-]*)\]\s+(?P<body>.+)$")


def parse_log_ocaml_v3(log: str) -> dict[str, str]:
    """Lines starting ``[OK]``, ``[FAIL]``, ``[SKIP]`` (and synonyms, any case), ids the rest of the
    line with blanks collapsed; an error counts as FAILED and the worst report wins."""
    results: dict[str, str] = {}
    for raw in split_all(log):
        line = raw.strip()
        if not line.startswith("["):
            continue
        match = _BRACKET_LINE.match(line)
        if not match or (status := _BRACKET_WORDS.get(match["word"].upper())) is None:
            continue
        if name := re.sub(r"\s+", " ", match["body"]).strip():
            escalate(results, name, status)
    return results


_LEADING_STATUS = re.compile(rf"({STATUS_ALTERNATIVES})\s+(.*)$")


def parse_log_ocaml_v4(log: str) -> dict[str, str]:
    """``PASSED name   0.1s`` lines (colour codes become blanks first): the name ends at two blanks.

    The worst report of a name wins; XFAIL only stands for a name not reported otherwise.
    """
    results: dict[str, str] = {}
    for raw in split_all(log):
        line = ANSI_ANY.sub("", ANSI_SGR.sub(" ", raw)).strip()
        match = _LEADING_STATUS.match(line)
        if not match or not (rest := match.group(2).strip()):
            continue
        name = re.split(r"\s{2,}", rest, maxsplit=1)[0].strip()
        escalate(results, name, match.group(1))
    return results
