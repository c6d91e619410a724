"""``pytest-swe regrade RUN_DIR``: grade a finished run's saved eval logs again, with today's
parsers and grading rules and no sandbox, into a new ledger (``ledger.jsonl`` and a JUnit file).

Each graded item's directory holds what the live run saved: ``task.json`` and ``settings.json``
(the normalized row and the benchmark's settings), ``verdict.json``, and the eval log
(``graded.log`` when the probe's canary lines were taken out of ``eval.log``). The family's own
:meth:`~pytest_swe.api.family.Regrading.regrade` parses and grades it; the integrity findings of
the live run are kept. Errors, skips, items whose tests never ran and families that cannot
regrade keep their original outcome, and say why in the ``regraded`` property.
"""

from __future__ import annotations

import json
import time
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from pytest_swe.api.agent import AgentResult
from pytest_swe.api.agent import ExitStatus
from pytest_swe.api.agent import Usage
from pytest_swe.api.errors import NotApplicable
from pytest_swe.api.errors import SweError
from pytest_swe.api.family import Regrading
from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.api.task import Task
from pytest_swe.api.verdict import Verdict
from pytest_swe.grading import GRADED_LOG
from pytest_swe.runner.fixtures import SETTINGS_NAME
from pytest_swe.runner.fixtures import TASK_NAME
from pytest_swe.runner.ledger import LEDGER_NAME
from pytest_swe.runner.outcome import failure_message
from pytest_swe.runner.properties import as_user_properties
from pytest_swe.runner.properties import verdict_properties
from pytest_swe.runner.registry import Registry
from pytest_swe.runner.resume import load_ledger
from pytest_swe.runner.session import safe_name

EVAL_LOG = "eval.log"
JUNIT_NAME = "regrade.xml"
REGRADED = "regraded"
"""The property saying what became of each item: ``yes``, or why its original outcome stands."""


@dataclass
class RegradeResult:
    output: Path
    counts: Counter[str] = field(default_factory=Counter)
    """``regraded``, ``changed``, ``kept`` (not regradable)."""
    changed: list[str] = field(default_factory=list)
    """``benchmark/instance``: outcome before -> after, for each item whose outcome changed."""
    cannot: dict[str, str] = field(default_factory=dict)
    """Family name -> why it cannot regrade."""


def default_output(run_dir: Path) -> Path:
    return run_dir / f"regrade-{time.strftime('%Y%m%d-%H%M%S')}"


def regrade_run(run_dir: Path, output: Path, registry: Registry) -> RegradeResult:
    """Regrade every item of ``run_dir``'s ledger into ``output`` (created)."""
    from pytest import UsageError  # load_ledger's error for a directory without a ledger

    try:
        entries = list(load_ledger(run_dir, reader="pytest-swe regrade").values())
    except UsageError as exc:
        raise SweError(str(exc)) from None
    result = RegradeResult(output)
    output.mkdir(parents=True, exist_ok=True)
    regraded = [_regrade_entry(entry, run_dir, output, registry, result) for entry in entries]
    with open(output / LEDGER_NAME, "w", encoding="utf-8") as fh:
        for entry in regraded:
            fh.write(json.dumps(entry, sort_keys=True) + "\n")
    write_junit(regraded, output / JUNIT_NAME, regraded_from=str(run_dir))
    return result


def _kept(entry: dict[str, Any], why: str, result: RegradeResult) -> dict[str, Any]:
    result.counts["kept"] += 1
    return {**entry, "properties": {**entry.get("properties", {}), REGRADED: f"no: {why}"}}


def _item_dir(root: Path, props: dict[str, Any]) -> Path:
    """An item's directory under a run directory (as the run names it), wherever the run was moved."""
    return root / safe_name(str(props.get("benchmark", ""))) / safe_name(str(props.get("instance_id", "")))


def _regrade_entry(
    entry: dict[str, Any], run_dir: Path, output: Path, registry: Registry, result: RegradeResult
) -> dict[str, Any]:
    props = entry.get("properties", {})
    if entry.get("outcome") not in ("passed", "failed"):
        return _kept(entry, f"the item was not graded ({entry.get('outcome') or 'no outcome'})", result)
    item_dir = _item_dir(run_dir, props)
    family_name = str(props.get("family", ""))
    try:
        family = registry.families.get(family_name)
    except SweError as exc:
        return _kept(entry, str(exc), result)
    if not isinstance(family, Regrading):
        return _kept(entry, f"family {family_name!r} cannot regrade from a saved log", result)
    missing = [n for n in ("verdict.json", TASK_NAME, SETTINGS_NAME) if not (item_dir / n).is_file()]
    if missing:
        return _kept(
            entry, f"{', '.join(missing)} not saved in {item_dir} (a run before regrade existed?)", result
        )
    original = Verdict.model_validate_json((item_dir / "verdict.json").read_text(encoding="utf-8"))
    log_path = next((item_dir / n for n in (GRADED_LOG, EVAL_LOG) if (item_dir / n).is_file()), None)
    if log_path is None:
        return _kept(entry, "the tests never ran (no eval log): the verdict stands", result)
    task = Task.model_validate_json((item_dir / TASK_NAME).read_text(encoding="utf-8"))
    settings = BenchmarkSettings.model_validate_json((item_dir / SETTINGS_NAME).read_text(encoding="utf-8"))
    log = log_path.read_bytes().decode("utf-8", errors="surrogateescape")
    try:
        verdict = family.regrade(task, log, original, settings)
    except NotApplicable as exc:
        result.cannot.setdefault(family_name, str(exc))
        return _kept(entry, str(exc), result)
    except SweError as exc:
        return _kept(entry, f"cannot regrade: {exc}", result)
    return _regraded_entry(entry, verdict, original, output, result)


def _regraded_entry(
    entry: dict[str, Any], verdict: Verdict, original: Verdict, output: Path, result: RegradeResult
) -> dict[str, Any]:
    props = dict(entry.get("properties", {}))
    benchmark, instance = str(props.get("benchmark", "")), str(props.get("instance_id", ""))
    item_dir = _item_dir(output, props)
    item_dir.mkdir(parents=True, exist_ok=True)
    verdict.artifacts = {**original.artifacts, "verdict": str(item_dir / "verdict.json")}
    (item_dir / "verdict.json").write_text(json.dumps(verdict.model_dump(mode="json"), indent=2))
    outcome = "passed" if verdict.resolved else "failed"
    props.update(verdict_properties(verdict))
    for name in ("tamper", "neutralized", "suspicious"):  # only present when non-empty
        if name not in verdict_properties(verdict):
            props.pop(name, None)
    props.update(
        reward=1.0 if verdict.resolved else 0.0,
        resolved=verdict.resolved,
        outcome=outcome,
        grader_version=verdict.grader,
        verdict_path=str(item_dir / "verdict.json"),
    )
    props[REGRADED] = "yes"
    result.counts["regraded"] += 1
    if outcome != entry.get("outcome"):
        result.counts["changed"] += 1
        result.changed.append(f"{benchmark}/{instance}: {entry.get('outcome')} -> {outcome}")
    message = "" if verdict.resolved else failure_message(verdict, _agent_of(props))
    return {
        **entry,
        "outcome": outcome,
        "properties": dict(as_user_properties(props)),
        "message": message,
        "phase": None if verdict.resolved else "call",
        "longrepr": {} if verdict.resolved else {"kind": "text", "text": message},
    }


def _case_names(nodeid: str) -> tuple[str, str]:
    """(classname, name) as pytest's JUnit writer makes them from a node id."""
    path, *rest = nodeid.split("::")
    path = path.replace("/", ".")
    names = [path.removesuffix(".py"), *rest]
    return ".".join(names[:-1]), names[-1]


def write_junit(entries: list[dict[str, Any]], path: Path, *, regraded_from: str) -> None:
    """A JUnit file of ledger entries, in the shape pytest writes (what ``pytest-swe report`` reads)."""
    counts = Counter(str(e.get("outcome")) for e in entries)
    suite = ET.Element(
        "testsuite",
        name="pytest",
        tests=str(len(entries)),
        failures=str(counts["failed"]),
        errors=str(counts["error"]),
        skipped=str(counts["skipped"]),
        time=f"{sum(float(e.get('duration') or 0) for e in entries):.3f}",
    )
    suite_props = ET.SubElement(suite, "properties")
    ET.SubElement(suite_props, "property", name="regraded_from", value=regraded_from)
    for entry in entries:
        classname, name = _case_names(str(entry.get("nodeid", "")))
        case = ET.SubElement(
            suite, "testcase", classname=classname, name=name, time=f"{float(entry.get('duration') or 0):.3f}"
        )
        props = ET.SubElement(case, "properties")
        for key, value in entry.get("properties", {}).items():
            ET.SubElement(props, "property", name=str(key), value=str(value))
        outcome, message = str(entry.get("outcome")), str(entry.get("message") or "")
        tag = {"failed": "failure", "error": "error", "skipped": "skipped"}.get(outcome)
        if tag is not None:
            element = ET.SubElement(case, tag, message=message.split("\n", 1)[0][:500])
            if tag != "skipped":
                element.text = message
    root = ET.Element("testsuites")
    root.append(suite)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def _agent_of(props: dict[str, Any]) -> AgentResult | None:
    """How the run's agent ended, read back from its recorded properties (for the failure message)."""
    status = props.get("agent_exit_status")
    if not status:
        return None
    cost = props.get("agent_cost")
    return AgentResult(
        exit_status=ExitStatus(str(status)),
        steps=int(props.get("agent_steps") or 0),
        usage=Usage(
            calls=int(props.get("agent_calls") or 0), cost=float(cost) if cost not in (None, "") else None
        ),
        trajectory_path=str(props.get("trajectory_path") or "") or None,
    )
