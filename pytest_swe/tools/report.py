"""Reading ledgers back: per-item records and resolved rates.

A ledger is a JUnit XML file written with ``--junitxml``, a run's ``ledger.jsonl``, or the run
directory holding it; :func:`read_ledger` turns each into the same :class:`Case` records.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from junitparser import Error
from junitparser import Failure
from junitparser import JUnitXml
from junitparser import JUnitXmlError
from junitparser import Properties
from junitparser import Skipped
from junitparser import TestSuite

from pytest_swe.runner.ledger import LEDGER_NAME
from pytest_swe.runner.ledger import LedgerFormatError
from pytest_swe.runner.ledger import read_entries
from pytest_swe.runner.properties import RUN_ID
from pytest_swe.runner.properties import RUN_LEVEL


@dataclass
class Case:
    """One testcase of a ledger with its outcome and pytest-swe properties."""

    name: str
    classname: str
    outcome: str
    properties: dict[str, str] = field(default_factory=dict)
    message: str = ""
    """The outcome's full text (see :func:`_outcome`)."""

    @property
    def instance_id(self) -> str:
        return self.properties.get("instance_id") or self.name

    @property
    def agent(self) -> str:
        return self.properties.get("agent", "")

    @property
    def key(self) -> tuple[str, str]:
        """The instance: what two runs being compared have in common."""
        return (self.properties.get("benchmark", ""), self.instance_id)

    @property
    def run_key(self) -> tuple[str, str, str]:
        """One agent's attempt at an instance: what a report or a merge counts once."""
        return (self.agent, *self.key)


def _outcome(case: Any) -> tuple[str, str]:
    """The outcome and its full text.

    For a failure or an error that is the element's text (pytest's whole report), never the
    ``message`` attribute, which pytest 9.1 and later shorten; the attribute stands in only when
    there is no text. For a skip it is the reason (the attribute: pytest does not shorten it).
    """
    for result in case.result:
        if isinstance(result, (Error, Failure)):
            text = (result.text or "").strip()
            return ("error" if isinstance(result, Error) else "failed"), text or result.message or ""
        if isinstance(result, Skipped):
            return "skipped", result.message or (result.text or "").strip()
    return "passed", ""


def _suites(xml: Any) -> list[TestSuite]:
    return list(xml) if isinstance(xml, JUnitXml) else [xml]


def suite_properties(suite: Any) -> list[tuple[str, str]]:
    """A suite's ``<properties>`` as (name, value) pairs in file order (junitparser's accessor is untyped)."""
    return [(prop.name, prop.value) for prop in suite.properties()]


def case_properties(case: Any) -> dict[str, str]:
    """A testcase's ``<properties>`` (junitparser exposes them only on suites)."""
    props = case.child(Properties)
    return {p.name: p.value for p in props} if props is not None else {}


class NotALedger(ValueError):
    """A path that is none of the ledgers the tools read; the message names it and what was expected."""


def describe_error(path: Path | str, exc: BaseException) -> str:
    """``<path>: <why>`` for an error of reading a ledger (a :class:`NotALedger` names its path already)."""
    return str(exc) if isinstance(exc, NotALedger) else f"{path}: {exc}"


#: What reading a ledger can raise: no such file, malformed XML (ElementTree's and lxml's parse
#: errors are both SyntaxErrors), a root that is not JUnit, a value that is not a number, a
#: ``ledger.jsonl`` line that is not an entry, a file that is no ledger at all.
LEDGER_ERRORS: tuple[type[Exception], ...] = (OSError, SyntaxError, JUnitXmlError, ValueError)

EXPECTED = f"a JUnit XML file (--junitxml), a {LEDGER_NAME} or a run directory holding one"


@dataclass
class LedgerData:
    """What one ledger holds: its pytest-swe cases and its run-level (suite) properties."""

    cases: list[Case]
    properties: dict[str, str]


def read_ledger(path: Path) -> LedgerData:
    """Read a JUnit file, a ``ledger.jsonl`` or a run directory into :class:`Case` records."""
    path = Path(path)
    if path.is_dir():
        inner = path / LEDGER_NAME
        if not inner.is_file():
            raise NotALedger(f"{path}: a directory without {LEDGER_NAME}; expected {EXPECTED}")
        return _read_jsonl(inner)
    head = _head(path)
    if head.startswith(b"<"):
        return _read_junit(path)
    if head.startswith(b"{"):
        return _read_jsonl(path)
    raise NotALedger(f"{path}: neither XML nor JSON lines; expected {EXPECTED}")


def _head(path: Path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(512).lstrip()


def is_junit(path: Path) -> bool:
    """Whether ``path`` is an XML file (what :func:`read_ledger` reads as JUnit)."""
    return Path(path).is_file() and _head(path).startswith(b"<")


def read_cases(path: Path) -> list[Case]:
    """Every pytest-swe item (a testcase with a ``reward`` property) of a ledger."""
    return read_ledger(path).cases


def read_suite_properties(path: Path) -> dict[str, str]:
    return read_ledger(path).properties


def _read_junit(path: Path) -> LedgerData:
    xml = JUnitXml.fromfile(str(path))
    cases = []
    props: dict[str, str] = {}
    for suite in _suites(xml):
        props.update(suite_properties(suite))
        for case in suite:
            case_props = case_properties(case)
            if "reward" not in case_props:
                continue
            outcome, message = _outcome(case)
            cases.append(Case(case.name, case.classname or "", outcome, case_props, message))
    return LedgerData(cases, props)


def junit_names(nodeid: str) -> tuple[str, str]:
    """The (classname, name) pytest's JUnit writer gives a node id."""
    path, bracket, params = nodeid.partition("[")
    names = path.split("::")
    names[0] = re.sub(r"\.py$", "", names[0].replace("/", "."))
    names[-1] += bracket + params
    return ".".join(names[:-1]), names[-1]


def _read_jsonl(path: Path) -> LedgerData:
    try:
        entries = read_entries(path)
    except UnicodeDecodeError:
        raise NotALedger(f"{path}: not text; expected {EXPECTED}") from None
    except LedgerFormatError as exc:
        raise NotALedger(f"{exc}; expected {EXPECTED}") from None
    cases = []
    for entry in entries.values():
        props = {str(k): "" if v is None else str(v) for k, v in (entry.get("properties") or {}).items()}
        if "reward" not in props:
            continue
        classname, name = junit_names(str(entry["nodeid"]))
        outcome, message = str(entry.get("outcome", "")), str(entry.get("message", ""))
        if outcome == "skipped":
            message = message.removeprefix("Skipped: ")  # as pytest's JUnit writer states a skip
        cases.append(Case(name, classname, outcome, props, message))
    run_level: dict[str, set[str]] = {}
    for case in cases:
        for key in (*RUN_LEVEL, RUN_ID):
            if case.properties.get(key):
                run_level.setdefault(key, set()).add(case.properties[key])
    return LedgerData(cases, {key: ",".join(sorted(values)) for key, values in run_level.items()})


#: When one instance appears more than once (shards that overlap, a retried run), the case kept is
#: the one with the highest rank: a graded outcome beats an infrastructure error, which beats a
#: skip; among equal ranks the later one wins (later file on the command line, later in a file).
OUTCOME_RANK = {"passed": 2, "failed": 2, "error": 1, "skipped": 0}


def supersedes(new: Case, old: Case) -> bool:
    """Whether ``new`` replaces ``old`` for the same instance, given that ``new`` came later."""
    return OUTCOME_RANK.get(new.outcome, 0) >= OUTCOME_RANK.get(old.outcome, 0)


def unique_cases(cases: list[Case]) -> tuple[list[Case], list[tuple[Case, Case]]]:
    """One case per (agent, benchmark, instance) by :data:`OUTCOME_RANK`; also the (kept, dropped) pairs."""
    kept: dict[tuple[str, str, str], Case] = {}
    dropped: list[tuple[Case, Case]] = []
    for case in cases:
        old = kept.get(case.run_key)
        if old is None:
            kept[case.run_key] = case
        elif supersedes(case, old):
            kept[case.run_key] = case
            dropped.append((case, old))
        else:
            dropped.append((old, case))
    winners = {id(case) for case in kept.values()}
    return [case for case in cases if id(case) in winners], dropped


def summarize(cases: list[Case], by: str | None = None) -> dict[str, Any]:
    """Counts and resolved rate; ``by`` groups by a property (family, benchmark, repo, ...)."""

    def stats(group: list[Case]) -> dict[str, Any]:
        counts = Counter(c.outcome for c in group)
        graded = counts["passed"] + counts["failed"] + counts["error"]
        exit_statuses = Counter(c.properties.get("agent_exit_status", "") for c in group)
        exit_statuses.pop("", None)
        errors = Counter(c.properties.get("error_kind", "") for c in group if c.outcome == "error")
        return {
            "total": len(group),
            "resolved": counts["passed"],
            "unresolved": counts["failed"],
            "errors": counts["error"],
            "skipped": counts["skipped"],
            "graded": graded,
            "resolved_rate": round(counts["passed"] / graded, 4) if graded else None,
            "resolved_rate_total": round(counts["passed"] / len(group), 4) if group else None,
            "reward_sum": round(sum(float(c.properties.get("reward", 0) or 0) for c in group), 4),
            "error_kinds": dict(errors),
            "agent_exit_statuses": dict(exit_statuses),
        }

    result: dict[str, Any] = {"overall": stats(cases)}
    if by:
        groups: dict[str, list[Case]] = {}
        for case in cases:
            groups.setdefault(_group_value(case, by), []).append(case)
        result[f"by_{by}"] = {name: stats(group) for name, group in sorted(groups.items())}
    return result


#: What ``report --by`` groups by: properties every pytest-swe item records.
GROUP_BY = ("family", "benchmark", "repo", "agent", "model", "provider", "dataset", "split", "error_kind")


def _group_value(case: Case, by: str) -> str:
    return case.properties.get(by, "") or "(none)"


def percent(rate: float | None) -> str:
    return "n/a" if rate is None else f"{100 * rate:.1f}%"


def format_stats(name: str, stats: dict[str, Any]) -> str:
    line = (
        f"{name:<28} resolved {stats['resolved']:>5}/{stats['graded']:<5} {percent(stats['resolved_rate']):>7} "
        f"of graded, {stats['resolved']:>5}/{stats['total']:<5} {percent(stats['resolved_rate_total']):>7} of total   "
        f"unresolved {stats['unresolved']:>5}   errors {stats['errors']:>4}   skipped {stats['skipped']:>4}"
    )
    if stats["error_kinds"]:
        line += "   error kinds: " + ", ".join(f"{k}={v}" for k, v in sorted(stats["error_kinds"].items()))
    if stats["agent_exit_statuses"]:
        line += "   exit statuses: " + ", ".join(
            f"{k}={v}" for k, v in sorted(stats["agent_exit_statuses"].items())
        )
    return line
