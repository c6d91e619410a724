"""Export of JUnit reward ledgers in the official SWE-bench formats, so numbers compare with other tools.

The run report is the JSON the official harness (``swebench`` 5.0.2, ``reporting.py``) writes to
``<model>.<run id>.json`` (``schema_version`` 2). The official harness sorts each instance into
one of five buckets; a pytest-swe testcase lands in the same bucket as the official harness
would have put the same prediction:

==========================  =====================================================================
official bucket             pytest-swe testcase
==========================  =====================================================================
incomplete (not submitted)  skipped (no prediction, not applicable), or an error before the agent
                            produced a patch (no ``patch_sha256`` property: model endpoint down...)
empty_patch (submitted)     a recorded patch of zero bytes (``patch_bytes`` 0), whatever the outcome
error (submitted)           error after the patch existed (eval timeout, sandbox or image fault),
                            or failed because the patch did not apply (``patch_applied`` false;
                            the official harness writes no report then), or a whitespace-only
                            patch (not empty to the official harness, and it cannot apply it)
resolved (completed)        passed
unresolved (completed)      failed after the patch applied (invalid test logs included)
==========================  =====================================================================

``total`` counts every instance of the ledger, ``submitted`` every instance with a recorded
patch (empty ones included). Testcases without an ``instance_id`` property (a benchmark that
could not be loaded) are not instances and are left out. The advisory
``infra_failure``/``ambiguous_failure`` classes are found the way the official harness finds
them, by signatures in the instance's test output and harness log.

The per-instance ``report.json`` (``get_eval_report``'s shape) is written from each item's
``verdict.json`` for completed instances, with the eval log, patch and eval script beside it,
in the official layout ``<logs>/run_evaluation/<run id>/<model>/<instance id>/``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from pytest_swe.api.errors import SweError
from pytest_swe.tools import report
from pytest_swe.tools.report import Case

SCHEMA_VERSION = 2

RESOLVED = "resolved"
UNRESOLVED = "unresolved"
ERROR = "error"
EMPTY_PATCH = "empty_patch"
INCOMPLETE = "incomplete"

FAIL_TO_PASS = "FAIL_TO_PASS"
PASS_TO_PASS = "PASS_TO_PASS"
FAIL_TO_FAIL = "FAIL_TO_FAIL"
PASS_TO_FAIL = "PASS_TO_FAIL"
LOG_REPORT = "report.json"
LOG_TEST_OUTPUT = "test_output.txt"
LOG_INSTANCE = "run_instance.log"

TIER_ENVIRONMENT = "environment"
TIER_AMBIGUOUS = "ambiguous"
#: The official harness's advisory failure classes: (reason, tier, signature); the first match wins.
INFRA_SIGNATURES: tuple[tuple[str, str, re.Pattern[str]], ...] = tuple(
    (reason, tier, re.compile(pattern, re.MULTILINE))
    for reason, tier, pattern in (
        ("browser_launch_failed", TIER_ENVIRONMENT, r"Failed to launch|Failed to connect to the bus"),
        (
            "display_unavailable",
            TIER_ENVIRONMENT,
            r"cannot open display|Missing X server|unable to open X display",
        ),
        ("out_of_memory", TIER_ENVIRONMENT, r"Cannot allocate memory|OutOfMemoryError|^Killed$"),
        (
            "container_unavailable",
            TIER_ENVIRONMENT,
            r"Error response from daemon|Cannot connect to the Docker daemon",
        ),
        (
            "network_unreachable",
            TIER_ENVIRONMENT,
            r"Could not resolve host|Temporary failure in name resolution",
        ),
        ("missing_module", TIER_AMBIGUOUS, r"Cannot find module|MODULE_NOT_FOUND|ModuleNotFoundError"),
        ("no_tests_collected", TIER_AMBIGUOUS, r"no tests ran|collected 0 items"),
        ("tests_timed_out", TIER_AMBIGUOUS, r"Timeout error: \d+ seconds exceeded"),
    )
)
#: What the official harness's own logs say for our infrastructure error kinds, so that its
#: classifier and ours read the same evidence in the exported harness log.
_ERROR_KIND_EVIDENCE = {
    "oom": "Killed",
    "sandbox_start": "Error response from daemon: the sandbox did not start",
    "sandbox_died": "Error response from daemon: the sandbox died",
    "image_missing": "Error response from daemon: no such image",
    "provider_unavailable": "Cannot connect to the Docker daemon",
}
_TIMEOUT_SECONDS = re.compile(r"within (\d+)(?:\.\d+)?s")


class ExportError(SweError):
    """The ledger cannot be exported as asked (several models or runs mixed, missing artifacts)."""


def classify_text(text: str) -> tuple[str, str] | None:
    """(reason, tier) of the first advisory failure signature found in ``text``."""
    if not text:
        return None
    for reason, tier, pattern in INFRA_SIGNATURES:
        if pattern.search(text):
            return reason, tier
    return None


def official_bucket(case: Case) -> str:
    """Which official bucket the testcase falls in (see the module docstring)."""
    props = case.properties
    if case.outcome == "skipped" or "patch_sha256" not in props:
        return INCOMPLETE
    if props.get("patch_bytes") == "0":
        return EMPTY_PATCH
    if (
        case.outcome == "error"
        or props.get("patch_exists") != "true"
        or props.get("patch_applied") == "false"
    ):
        return ERROR
    return RESOLVED if case.outcome == "passed" else UNRESOLVED


def _read(path: str | None) -> str | None:
    if not path:
        return None
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


@dataclass
class Instance:
    """One instance of the export: its testcase, bucket and the texts its official logs hold."""

    case: Case
    bucket: str

    @property
    def instance_id(self) -> str:
        return self.case.instance_id

    def test_output(self) -> str | None:
        """The eval log (the official ``test_output.txt``), with the official timeout line on timeouts."""
        text = _read(self.case.properties.get("eval_log_path"))
        if self.case.properties.get("error_kind") == "eval_timeout":
            seconds = _TIMEOUT_SECONDS.search(self.case.message)
            text = (text or "") + f"\n\nTimeout error: {seconds.group(1) if seconds else 0} seconds exceeded."
        return text

    def harness_log(self) -> str:
        """Our counterpart of the official ``run_instance.log``: outcome, message and apply log."""
        props = self.case.properties
        kind = props.get("error_kind", "")
        lines = [f"pytest-swe outcome: {self.case.outcome}" + (f" ({kind})" if kind else "")]
        if self.case.outcome == "error" and kind in _ERROR_KIND_EVIDENCE:
            lines.append(_ERROR_KIND_EVIDENCE[kind])
        if self.case.message:
            lines.append(self.case.message)
        apply_log = _read(props.get("apply_log_path"))
        if apply_log:
            lines += ["apply log:", apply_log]
        return "\n".join(lines) + "\n"

    def failure_class(self) -> tuple[str, str] | None:
        texts = [text for text in (self.test_output(), self.harness_log()) if text is not None]
        return classify_text("\n".join(texts))


@dataclass
class Export:
    """The instances of one model's run, bucketed; the input of every export format."""

    model: str
    run_id: str
    instances: list[Instance]
    warnings: list[str] = field(default_factory=list)

    def ids(self, *buckets: str) -> list[str]:
        return sorted(i.instance_id for i in self.instances if i.bucket in buckets)


def _single(values: Iterable[str], what: str, option: str) -> str | None:
    distinct = sorted({v for v in values if v})
    if len(distinct) > 1:
        raise ExportError(
            f"the ledger holds several {what} ({', '.join(distinct)}); name the export with {option}"
        )
    return distinct[0] if distinct else None


def build_export(
    files: list[Path], *, model: str | None = None, run_id: str | None = None, benchmark: str | None = None
) -> Export:
    """Read ledgers, keep one testcase per instance (:func:`report.unique_cases`) and bucket them."""
    cases: list[Case] = []
    suite_run_ids: list[str] = []
    for path in files:
        ledger = report.read_ledger(path)
        cases += ledger.cases
        suite_run_ids += ledger.properties.get("run_id", "").split(",")
    warnings: list[str] = []
    unique, dropped = report.unique_cases(cases)
    if dropped:
        warnings.append(f"{len(dropped)} duplicate testcase(s) settled by outcome rank, later file first")
    not_instances = [c for c in unique if not c.properties.get("instance_id")]
    if not_instances:
        names = ", ".join(sorted({c.properties.get("benchmark") or c.name for c in not_instances}))
        warnings.append(
            f"left out {len(not_instances)} testcase(s) that are not instances (unloaded benchmarks: {names})"
        )
    unique = [c for c in unique if c.properties.get("instance_id")]
    if benchmark is not None:
        unique = [c for c in unique if c.properties.get("benchmark") == benchmark]
    by_id: dict[str, Case] = {}
    for case in unique:
        other = by_id.get(case.instance_id)
        if other is not None:
            raise ExportError(
                f"instance {case.instance_id} is in benchmarks {other.properties.get('benchmark')!r} and "
                f"{case.properties.get('benchmark')!r}; export one benchmark at a time with --benchmark"
            )
        by_id[case.instance_id] = case
    instances = [Instance(case, official_bucket(case)) for case in unique]
    submitted = [i.case for i in instances if i.bucket != INCOMPLETE]
    model = model or _single(
        (c.properties.get("model") or c.properties.get("agent", "") for c in submitted or unique),
        "models",
        "--model",
    )
    run_id = run_id or _single(
        [c.properties.get("run_id", "") for c in unique] + suite_run_ids, "run ids", "--run-id"
    )
    return Export(model or "unknown", run_id or "unknown", instances, warnings)


def run_report(export: Export) -> dict[str, Any]:
    """The official run report (``make_run_report`` of swebench 5.0.2, without a Docker client)."""
    reasons: dict[str, str] = {}
    infra: list[str] = []
    ambiguous: list[str] = []
    for instance in export.instances:
        if instance.bucket not in (UNRESOLVED, ERROR):
            continue
        found = instance.failure_class()
        if found:
            reasons[instance.instance_id] = found[0]
            (infra if found[1] == TIER_ENVIRONMENT else ambiguous).append(instance.instance_id)
    completed = export.ids(RESOLVED, UNRESOLVED)
    return {
        "total_instances": len(export.instances),
        "submitted_instances": len(export.ids(RESOLVED, UNRESOLVED, ERROR, EMPTY_PATCH)),
        "completed_instances": len(completed),
        "resolved_instances": len(export.ids(RESOLVED)),
        "unresolved_instances": len(export.ids(UNRESOLVED)),
        "infra_failure_instances": len(infra),
        "ambiguous_failure_instances": len(ambiguous),
        "empty_patch_instances": len(export.ids(EMPTY_PATCH)),
        "error_instances": len(export.ids(ERROR)),
        "completed_ids": completed,
        "incomplete_ids": export.ids(INCOMPLETE),
        "empty_patch_ids": export.ids(EMPTY_PATCH),
        "submitted_ids": export.ids(RESOLVED, UNRESOLVED, ERROR, EMPTY_PATCH),
        "resolved_ids": export.ids(RESOLVED),
        "unresolved_ids": export.ids(UNRESOLVED),
        "infra_failure_ids": sorted(infra),
        "ambiguous_failure_ids": sorted(ambiguous),
        "failure_reasons": dict(sorted(reasons.items())),
        "error_ids": export.ids(ERROR),
        "schema_version": SCHEMA_VERSION,
    }


def report_file_name(export: Export) -> str:
    """The official run report's file name: ``<model, / as __>.<run id>.json``."""
    return f"{export.model.replace('/', '__')}.{export.run_id}.json"


def instance_report(instance: Instance, verdict: dict[str, Any] | None) -> dict[str, Any]:
    """The official per-instance ``report.json`` (``get_eval_report`` with tests status) of a completed instance."""
    case = instance.case
    entry: dict[str, Any] = {
        "patch_is_None": False,
        "patch_exists": True,
        "patch_successfully_applied": False,
        "resolved": False,
        "infra_failure": False,
    }
    log_valid = verdict["log_valid"] if verdict is not None else case.properties.get("log_valid") == "true"
    if not log_valid:
        found = classify_text(instance.test_output() or "")
        if found:
            entry["infra_failure"] = found[1] == TIER_ENVIRONMENT
            entry["infra_failure_reason"] = found[0]
        return {instance.instance_id: entry}
    entry["patch_successfully_applied"] = True
    entry["resolved"] = case.outcome == "passed"
    if verdict is not None:
        groups = verdict.get("tests_status", {})
        entry["tests_status"] = {
            name: {
                "success": list(groups.get(name, {}).get("success", [])),
                "failure": list(groups.get(name, {}).get("failure", [])),
            }
            for name in (FAIL_TO_PASS, PASS_TO_PASS, FAIL_TO_FAIL, PASS_TO_FAIL)
        }
    return {instance.instance_id: entry}


def _verdict(case: Case) -> dict[str, Any] | None:
    text = _read(case.properties.get("verdict_path"))
    return json.loads(text) if text else None


def write_instance_logs(export: Export, logs_dir: Path) -> list[Path]:
    """Per-instance directories in the official layout; returns the ``report.json`` files written.

    Every submitted instance gets ``patch.diff`` and, where the run kept them, ``eval.sh``,
    ``test_output.txt`` and ``run_instance.log``; completed ones also get ``report.json``.
    """
    model_dir = logs_dir / "run_evaluation" / export.run_id / export.model.replace("/", "__")
    written: list[Path] = []
    for instance in export.instances:
        if instance.bucket == INCOMPLETE or instance.bucket == EMPTY_PATCH:
            continue
        props = instance.case.properties
        directory = model_dir / instance.instance_id
        directory.mkdir(parents=True, exist_ok=True)
        for name, key in (("patch.diff", "patch_path"), ("eval.sh", "eval_sh_path")):
            text = _read(props.get(key))
            if text is not None:
                (directory / name).write_text(text)
        test_output = instance.test_output()
        if test_output is not None:
            (directory / LOG_TEST_OUTPUT).write_text(test_output)
        (directory / LOG_INSTANCE).write_text(instance.harness_log())
        if instance.bucket in (RESOLVED, UNRESOLVED):
            verdict = _verdict(instance.case)
            if verdict is None:
                export.warnings.append(
                    f"{instance.instance_id}: no verdict.json at {props.get('verdict_path') or '(unrecorded)'}; "
                    "report.json has no tests_status"
                )
            path = directory / LOG_REPORT
            path.write_text(json.dumps(instance_report(instance, verdict), indent=4))
            written.append(path)
    return written


def predictions(export: Export) -> list[dict[str, str]]:
    """The submitted patches as official predictions (``instance_id``, ``model_name_or_path``, ``model_patch``)."""
    rows = []
    missing = []
    for instance in sorted(export.instances, key=lambda i: i.instance_id):
        if instance.bucket == INCOMPLETE:
            continue
        if instance.bucket == EMPTY_PATCH:
            patch: str | None = ""
        else:
            patch = _read(instance.case.properties.get("patch_path"))
        if patch is None:
            missing.append(instance.case.properties.get("patch_path") or instance.instance_id)
            continue
        rows.append(
            {"instance_id": instance.instance_id, "model_name_or_path": export.model, "model_patch": patch}
        )
    if missing:
        raise ExportError(
            f"the patches of {len(missing)} instance(s) are not on this machine, e.g. {missing[0]}"
        )
    return rows


def summary_lines(data: dict[str, Any]) -> list[str]:
    """The counts the official harness prints at the end of a run."""
    return [
        f"Total instances: {data['total_instances']}",
        f"Instances submitted: {data['submitted_instances']}",
        f"Instances completed: {data['completed_instances']}",
        f"Instances incomplete: {len(data['incomplete_ids'])}",
        f"Instances resolved: {data['resolved_instances']}",
        f"Instances unresolved: {data['unresolved_instances']}",
        f"Instances with likely infrastructure failures: {data['infra_failure_instances']}",
        f"Instances with ambiguous failures: {data['ambiguous_failure_instances']}",
        f"Instances with empty patches: {data['empty_patch_instances']}",
        f"Instances with errors: {data['error_instances']}",
    ]
