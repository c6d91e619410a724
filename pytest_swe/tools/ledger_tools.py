"""Tools over finished ledgers: join shard files into one JUnit file, and compare two runs.

Inputs are anything :func:`pytest_swe.tools.report.read_ledger` reads. A merge keys a pytest-swe
testcase by (agent, benchmark, instance id) and a diff by (benchmark, instance id), so the same
instance in two files is recognised whatever its node id, and both settle duplicates with the rule of
:data:`pytest_swe.tools.report.OUTCOME_RANK` (graded beats error beats skipped; later wins ties).
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from junitparser import Error
from junitparser import Failure
from junitparser import JUnitXml
from junitparser import Properties
from junitparser import Property
from junitparser import Skipped
from junitparser import TestCase
from junitparser import TestSuite

from pytest_swe.tools import report
from pytest_swe.tools.report import Case

MERGED_FROM = "merged_from"


# --- merge ------------------------------------------------------------------------------------


@dataclass
class MergeResult:
    """What a merge kept and dropped, for the command to report."""

    output: Path
    cases: int = 0
    other_testcases: int = 0
    replaced: list[tuple[Case, Case]] = field(default_factory=list)
    """(kept, dropped) pairs for instances that appeared more than once."""
    conflicting_properties: dict[str, list[str]] = field(default_factory=dict)


def _merge_key(case: Case) -> tuple[str, ...]:
    if "reward" in case.properties:
        return ("swe", *case.run_key)
    return ("test", case.classname, case.name)


def _suite_property_values(values: list[str]) -> str:
    """Differing run-level values are joined the way the ledger joins them: distinct, sorted, commas."""
    parts = {part for value in values for part in value.split(",") if part}
    return ",".join(sorted(parts))


def merge_ledgers(inputs: list[Path], output: Path) -> MergeResult:
    """Join JUnit ledgers (shards, resumed or retried runs) into one file at ``output``.

    Testcases keep their XML as written (properties, failure/error/skipped elements, output);
    an instance present in several inputs keeps one testcase by :func:`report.supersedes`.
    Suite properties equal in every input are kept as they are; differing ones are joined
    (distinct comma-separated values, sorted) and named in the result; ``merged_from`` lists
    the inputs.
    """
    result = MergeResult(output)
    chosen: dict[tuple[str, ...], tuple[Case, Any]] = {}
    order: list[tuple[str, ...]] = []
    suite_props: dict[str, list[str]] = {}
    names: list[str] = []
    timestamps: list[str] = []
    hostnames: list[str] = []
    for path in inputs:
        for suite in _input_suites(path):
            names.append(suite.name or "pytest")
            if suite.timestamp:
                timestamps.append(suite.timestamp)
            if suite.hostname:
                hostnames.append(suite.hostname)
            for name, value in report.suite_properties(suite):
                if name != MERGED_FROM:
                    suite_props.setdefault(name, [])
                    if value not in suite_props[name]:
                        suite_props[name].append(value)
            for element in suite:
                outcome, message = report._outcome(element)
                case = Case(
                    element.name, element.classname or "", outcome, report.case_properties(element), message
                )
                key = _merge_key(case)
                previous = chosen.get(key)
                if previous is None:
                    chosen[key] = (case, element)
                    order.append(key)
                elif report.supersedes(case, previous[0]):
                    chosen[key] = (case, element)
                    result.replaced.append((case, previous[0]))
                else:
                    result.replaced.append((previous[0], case))
    merged = TestSuite(names[0] if len(set(names)) == 1 else "pytest")
    if timestamps:
        merged.timestamp = min(timestamps)
    if len(set(hostnames)) == 1:
        merged.hostname = hostnames[0]
    for name, values in suite_props.items():
        if len(values) > 1:
            result.conflicting_properties[name] = values
        merged.add_property(name, values[0] if len(values) == 1 else _suite_property_values(values))
    merged.add_property(MERGED_FROM, ",".join(str(p) for p in inputs))
    for key in order:
        case, element = chosen[key]
        merged.add_testcase(element)
        if key[0] == "swe":
            result.cases += 1
        else:
            result.other_testcases += 1
    xml_out: Any = JUnitXml("pytest tests")  # junitparser's update_statistics is untyped
    xml_out.add_testsuite(merged)
    xml_out.update_statistics()
    output.parent.mkdir(parents=True, exist_ok=True)
    xml_out.write(str(output))
    return result


def _input_suites(path: Path) -> list[Any]:
    """A merge input's suites: a JUnit file's as written, a ``ledger.jsonl``'s rebuilt from its cases."""
    if report.is_junit(path):
        xml = JUnitXml.fromfile(str(path))
        return list(xml) if isinstance(xml, JUnitXml) else [xml]
    data = report.read_ledger(path)
    suite = TestSuite("pytest")
    for name, value in data.properties.items():
        suite.add_property(name, value)
    for case in data.cases:
        suite.add_testcase(_element(case))
    return [suite]


_RESULT_ELEMENTS = {"failed": Failure, "error": Error, "skipped": Skipped}


def _element(case: Case) -> Any:
    """The JUnit testcase of a case read from a ``ledger.jsonl``, as pytest would have written it."""
    element: Any = TestCase(case.name, classname=case.classname)  # junitparser's append is untyped
    props = Properties()  # type: ignore[no-untyped-call]  # junitparser leaves it unannotated
    for name, value in case.properties.items():
        props.add_property(Property(name, value))
    element.append(props)
    result = _RESULT_ELEMENTS.get(case.outcome)
    if result is not None:
        first_line = case.message.splitlines()[0] if case.message else ""
        item = result(first_line)
        if result is not Skipped:
            item.text = case.message
        element.result = [item]
    return element


# --- diff -------------------------------------------------------------------------------------

FIXED = "fixed"
BROKEN = "broken"
CHANGED = "changed"
ONLY_A = "only_a"
ONLY_B = "only_b"


@dataclass
class Flip:
    """One instance whose result differs between run A and run B."""

    kind: str
    benchmark: str
    instance_id: str
    a: Case | None
    b: Case | None

    def as_dict(self) -> dict[str, Any]:
        def side(case: Case | None) -> dict[str, Any] | None:
            if case is None:
                return None
            return {
                "outcome": case.outcome,
                "resolved": case.outcome == "passed",
                "reward": case.properties.get("reward", ""),
                "error_kind": case.properties.get("error_kind", ""),
                "f2p": f"{case.properties.get('f2p_passed', '')}/{case.properties.get('f2p_total', '')}",
                "p2p": f"{case.properties.get('p2p_passed', '')}/{case.properties.get('p2p_total', '')}",
            }

        return {
            "benchmark": self.benchmark,
            "instance_id": self.instance_id,
            "a": side(self.a),
            "b": side(self.b),
        }


@dataclass
class LedgerDiff:
    """Instances that flipped between two runs, with each run's summary."""

    a: dict[str, Any]
    b: dict[str, Any]
    flips: list[Flip]
    unchanged: int

    def of_kind(self, kind: str) -> list[Flip]:
        return [flip for flip in self.flips if flip.kind == kind]

    def as_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            **{
                kind: [f.as_dict() for f in self.of_kind(kind)]
                for kind in (FIXED, BROKEN, CHANGED, ONLY_A, ONLY_B)
            },
            "unchanged": self.unchanged,
        }


def _kind(a: Case | None, b: Case | None) -> str | None:
    if a is None:
        return ONLY_B
    if b is None:
        return ONLY_A
    if a.outcome == "failed" and b.outcome == "passed":
        return FIXED
    if a.outcome == "passed" and b.outcome == "failed":
        return BROKEN
    if a.outcome != b.outcome:
        return CHANGED
    return None


def diff_cases(
    a_cases: list[Case], b_cases: list[Case], *, a_name: str = "A", b_name: str = "B"
) -> LedgerDiff:
    """Compare two runs instance by instance (duplicates inside a run settled as in a merge).

    ``fixed``: unresolved (failed) in A, resolved in B; ``broken``: the reverse; ``changed``:
    any other change of outcome (an error or skip on either side); ``only_a``/``only_b``:
    instances one run did not have.
    """
    a_unique, _ = report.unique_cases(a_cases)
    b_unique, _ = report.unique_cases(b_cases)
    a_by_key = {case.key: case for case in a_unique}
    b_by_key = {case.key: case for case in b_unique}
    flips: list[Flip] = []
    unchanged = 0
    for key in sorted(set(a_by_key) | set(b_by_key)):
        a, b = a_by_key.get(key), b_by_key.get(key)
        kind = _kind(a, b)
        if kind is None:
            unchanged += 1
        else:
            flips.append(Flip(kind, key[0], key[1], a, b))
    return LedgerDiff(
        a={"name": a_name, **report.summarize(a_unique)["overall"]},
        b={"name": b_name, **report.summarize(b_unique)["overall"]},
        flips=flips,
        unchanged=unchanged,
    )


def _describe(case: Case | None) -> str:
    if case is None:
        return "absent"
    kind = case.properties.get("error_kind", "")
    return f"{case.outcome} ({kind})" if case.outcome == "error" and kind else case.outcome


def format_diff(diff: LedgerDiff) -> list[str]:
    """The human-readable diff: a summary line per run, then each kind of flip with its instances."""
    several_benchmarks = len({flip.benchmark for flip in diff.flips}) > 1

    def label(flip: Flip) -> str:
        return (
            f"{flip.benchmark}/{flip.instance_id}"
            if several_benchmarks and flip.benchmark
            else flip.instance_id
        )

    lines = []
    for side, stats in (("A", diff.a), ("B", diff.b)):
        lines.append(
            f"{side}: {stats['name']}: resolved {stats['resolved']}/{stats['graded']} "
            f"({report.percent(stats['resolved_rate'])} of graded; "
            f"{report.percent(stats['resolved_rate_total'])} of {stats['total']}), "
            f"unresolved {stats['unresolved']}, errors {stats['errors']}, skipped {stats['skipped']}"
        )
    titles = {
        FIXED: "fixed (unresolved in A, resolved in B)",
        BROKEN: "broken (resolved in A, unresolved in B)",
        CHANGED: "other outcome changes",
        ONLY_A: "only in A",
        ONLY_B: "only in B",
    }
    for kind, title in titles.items():
        flips = diff.of_kind(kind)
        if not flips:
            continue
        lines.append(f"{title}: {len(flips)}")
        width = max(len(label(flip)) for flip in flips)
        lines += [f"  {label(flip):<{width}}  {_describe(flip.a)} -> {_describe(flip.b)}" for flip in flips]
    counts = ", ".join(f"{kind} {len(diff.of_kind(kind))}" for kind in titles)
    lines.append(f"summary: {counts}, unchanged {diff.unchanged}")
    return lines
