"""Reading JUnit reward ledgers back: per-item records and resolved rates."""

from __future__ import annotations

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
    def key(self) -> tuple[str, str]:
        return (self.properties.get("benchmark", ""), self.instance_id)


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


#: What reading a ledger can raise: no such file, malformed XML (ElementTree's and lxml's parse
#: errors are both SyntaxErrors), a root that is not JUnit, a value that is not a number.
LEDGER_ERRORS: tuple[type[Exception], ...] = (OSError, SyntaxError, JUnitXmlError, ValueError)


def read_cases(path: Path) -> list[Case]:
    """Every testcase carrying a ``reward`` property (pytest-swe items) in a JUnit file."""
    xml = JUnitXml.fromfile(str(path))
    cases = []
    for suite in _suites(xml):
        for case in suite:
            props = case_properties(case)
            if "reward" not in props:
                continue
            outcome, message = _outcome(case)
            cases.append(Case(case.name, case.classname or "", outcome, props, message))
    return cases


def read_suite_properties(path: Path) -> dict[str, str]:
    xml = JUnitXml.fromfile(str(path))
    props: dict[str, str] = {}
    for suite in _suites(xml):
        props.update(suite_properties(suite))
    return props


#: When one instance appears more than once (shards that overlap, a retried run), the case kept is
#: the one with the highest rank: a graded outcome beats an infrastructure error, which beats a
#: skip; among equal ranks the later one wins (later file on the command line, later in a file).
OUTCOME_RANK = {"passed": 2, "failed": 2, "error": 1, "skipped": 0}


def supersedes(new: Case, old: Case) -> bool:
    """Whether ``new`` replaces ``old`` for the same instance, given that ``new`` came later."""
    return OUTCOME_RANK.get(new.outcome, 0) >= OUTCOME_RANK.get(old.outcome, 0)


def unique_cases(cases: list[Case]) -> tuple[list[Case], list[tuple[Case, Case]]]:
    """One case per (benchmark, instance) by :data:`OUTCOME_RANK`; also the (kept, dropped) pairs."""
    kept: dict[tuple[str, str], Case] = {}
    dropped: list[tuple[Case, Case]] = []
    for case in cases:
        old = kept.get(case.key)
        if old is None:
            kept[case.key] = case
        elif supersedes(case, old):
            kept[case.key] = case
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


def _group_value(case: Case, by: str) -> str:
    if by == "repo":
        repo = case.properties.get("repo")
        if repo:
            return repo
        instance = case.instance_id
        return instance.rsplit("-", 1)[0] if "-" in instance else instance
    return case.properties.get(by, "") or "(none)"


def format_stats(name: str, stats: dict[str, Any]) -> str:
    rate = "n/a" if stats["resolved_rate"] is None else f"{100 * stats['resolved_rate']:.1f}%"
    line = (
        f"{name:<28} resolved {stats['resolved']:>5}/{stats['graded']:<5} {rate:>7}   "
        f"unresolved {stats['unresolved']:>5}   errors {stats['errors']:>4}   skipped {stats['skipped']:>4}"
    )
    if stats["error_kinds"]:
        line += "   error kinds: " + ", ".join(f"{k}={v}" for k, v in sorted(stats["error_kinds"].items()))
    if stats["agent_exit_statuses"]:
        line += "   exit statuses: " + ", ".join(
            f"{k}={v}" for k, v in sorted(stats["agent_exit_statuses"].items())
        )
    return line
