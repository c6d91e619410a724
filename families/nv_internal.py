"""The nv-internal family: SWE-bench-Pro-shaped rows that carry their own run and parsing scripts.

It follows NeMo Gym's ``nv-internal-1`` harness and the SWE-bench Pro entry script: in ``/app``
with the ``ENV`` lines of the row's ``base_dockerfile`` and ``instance_dockerfile`` exported,
the model patch is applied, the last line of ``before_repo_set_cmd`` runs (it checks the test
files out of the upstream commit), then ``bash run_script.sh <selected test files>`` writes
``stdout.log`` and ``stderr.log`` and ``python parsing_script.py stdout.log stderr.log
output.json`` turns them into ``{"tests": [{"name", "status"}]}``. A row resolves iff its
required tests (``fail_to_pass_select`` and ``pass_to_pass_select``, else ``fail_to_pass`` and
``pass_to_pass``) are all reported ``PASSED``; a row that requires no test never resolves.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import pytest

from pytest_swe import grading
from pytest_swe.api.errors import RowError
from pytest_swe.api.family import BaseFamily
from pytest_swe.api.family import EvalContext
from pytest_swe.api.sandbox import Sandbox
from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.api.task import Task
from pytest_swe.api.task import created_at_str
from pytest_swe.api.task import optional_str
from pytest_swe.api.task import require_str
from pytest_swe.api.verdict import TestGroup
from pytest_swe.api.verdict import TestStatus
from pytest_swe.api.verdict import Verdict

from .swebench_ext import image_from_template
from .swebench_ext import repository_fields
from .swebench_ext import row_fields

GRADER_VERSION = "pytest-swe/nv-internal-grader-1 (SWE-bench Pro output.json subset rule)"
FAMILY_NAME = "nv-internal"
DEFAULT_WORKDIR = "/app"
DEFAULT_IMAGE_REPOSITORY = "jefzda/sweap-images"
SCRIPTS_DIR = "/root"
RUN_SCRIPT = f"{SCRIPTS_DIR}/run_script.sh"
PARSING_SCRIPT = f"{SCRIPTS_DIR}/parsing_script.py"
STDOUT_LOG = f"{SCRIPTS_DIR}/stdout.log"
STDERR_LOG = f"{SCRIPTS_DIR}/stderr.log"
OUTPUT_JSON = f"{SCRIPTS_DIR}/output.json"
RUN_EXIT_MARK = ">>>>> run_script exit code:"
PARSE_EXIT_MARK = ">>>>> parsing_script exit code:"

FAIL_TO_PASS = "FAIL_TO_PASS"
PASS_TO_PASS = "PASS_TO_PASS"
_PASSED = TestStatus.PASSED.value


# --- rows ------------------------------------------------------------------------------------------


def literal_list(value: Any, field_name: str, *, row_id: str) -> list[str]:
    """A list of strings given as a list, a JSON string, or a Python list literal (``"['a', 'b']"``)."""
    if value is None:
        return []
    if hasattr(value, "tolist") and not isinstance(value, (list, tuple, str)):
        value = value.tolist()
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return []
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            try:
                value = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                message = f"is neither JSON nor a Python list: {exc.msg} at position {exc.pos}"
                raise RowError(field_name, message, row=row_id) from None
    if not isinstance(value, (list, tuple)):
        raise RowError(field_name, f"must be a list of test names, got {type(value).__name__}", row=row_id)
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise RowError(field_name, f"item {i} must be a string, got {type(item).__name__}", row=row_id)
    return list(value)


def required_tests(fields: Mapping[str, Any], kind: str, *, row_id: str) -> list[str]:
    """``<kind>_select`` when the row has it (even an empty list), else ``<kind>``, else ``<KIND>``.

    A blank string counts as absent: table exports (SWE-bench Pro's CSV) write missing values so.
    """
    for name in (f"{kind}_select", kind, kind.upper()):
        value = fields.get(name)
        if value is not None and not (isinstance(value, str) and not value.strip()):
            return literal_list(value, name, row_id=row_id)
    return []


def selected_test_files(fields: Mapping[str, Any], *, row_id: str) -> list[str]:
    """``selected_test_files_to_run``: a list, a JSON or Python list literal, or comma-joined names."""
    value = fields.get("selected_test_files_to_run")
    if isinstance(value, str) and not value.strip().startswith("["):
        return [name.strip() for name in value.split(",") if name.strip()]
    return literal_list(value, "selected_test_files_to_run", row_id=row_id)


def dockerfile_exports(*dockerfiles: str) -> list[str]:
    """``ENV`` lines as ``export`` lines, both Docker forms (``ENV K=V`` and ``ENV K V``)."""
    exports: list[str] = []
    for line in "\n".join(dockerfiles).split("\n"):
        line = line.strip()
        if not line.startswith("ENV "):
            continue
        body = line[len("ENV ") :].strip()
        if "=" in body:
            exports.append("export " + re.sub(r"\s*=\s*", "=", body))
        else:
            parts = body.split(None, 1)
            if len(parts) == 2:
                exports.append(f"export {parts[0]}={shlex.quote(parts[1])}")
    return exports


def last_line(command: str) -> str:
    """The line of ``before_repo_set_cmd`` that runs: only its last one, as upstream."""
    lines = command.strip().split("\n")
    return lines[-1].strip() if lines else ""


def _script(
    fields: Mapping[str, Any],
    names: tuple[str, ...],
    files: tuple[str, ...],
    settings: BenchmarkSettings,
    row_id: str,
) -> str:
    """A script from the row, else from ``family_options.scripts_dir/<instance_id>/`` (SWE-bench Pro layout)."""
    text = optional_str(fields, *names, row_id=row_id)
    if text and text.strip():
        return text
    scripts_dir = settings.family_options.get("scripts_dir")
    if scripts_dir:
        for name in files:
            path = Path(str(scripts_dir)) / row_id / name
            if path.is_file():
                return path.read_text(encoding="utf-8")
    where = f" or in {scripts_dir}/{row_id}/" if scripts_dir else " (or set family_options.scripts_dir)"
    raise RowError(names[0], f"is missing from the row{where}", row=row_id)


def eval_script(task: Task) -> str:
    """The entry script: exports, the upstream setup line, the run script, the parsing script."""
    raw = task.raw
    run = f"bash {RUN_SCRIPT}"
    if raw["selected_test_files"]:
        run += " " + shlex.quote(",".join(raw["selected_test_files"]))
    lines = [
        "#!/bin/bash",
        *raw["exports"],
        f"rm -f {STDOUT_LOG} {STDERR_LOG} {OUTPUT_JSON}",
        f"cd {shlex.quote(task.workdir)} || exit 3",
    ]
    if raw["before_repo_set_cmd"]:
        lines.append(raw["before_repo_set_cmd"])
    lines += [
        f"{run} > {STDOUT_LOG} 2> {STDERR_LOG}",
        f'echo "{RUN_EXIT_MARK} $?"',
        f"python {PARSING_SCRIPT} {STDOUT_LOG} {STDERR_LOG} {OUTPUT_JSON}",
        f'echo "{PARSE_EXIT_MARK} $?"',
    ]
    return "\n".join(lines) + "\n"


# --- grading ---------------------------------------------------------------------------------------


@dataclass
class Report:
    """What parsing_script.py reported, or why nothing usable was reported."""

    statuses: dict[str, str] = field(default_factory=dict)
    problem: str = ""


def read_report(text: str | None) -> Report:
    """Check ``output.json`` against its contract: ``{"tests": [{"name": str, "status": str}, ...]}``."""
    if text is None:
        return Report(problem="parsing_script.py wrote no output.json")
    try:
        payload = json.loads(text) if text.strip() else None
    except json.JSONDecodeError as exc:
        return Report(problem=f"output.json is not valid JSON: {exc.msg}")
    if not isinstance(payload, dict) or not isinstance(payload.get("tests"), list):
        return Report(problem="output.json has no 'tests' list")
    statuses: dict[str, str] = {}
    for entry in payload["tests"]:
        if (
            isinstance(entry, dict)
            and isinstance(entry.get("name"), str)
            and isinstance(entry.get("status"), str)
        ):
            statuses[entry["name"]] = entry["status"]
    if not statuses:
        return Report(statuses, problem="output.json lists no tests")
    return Report(statuses)


def grade(
    statuses: Mapping[str, str], fail_to_pass: list[str], pass_to_pass: list[str]
) -> tuple[dict[str, TestGroup], bool]:
    """Resolved iff some test is required and every required test is ``PASSED`` (missing ones fail)."""
    groups: dict[str, TestGroup] = {}
    for name, tests in ((FAIL_TO_PASS, fail_to_pass), (PASS_TO_PASS, pass_to_pass)):
        group = TestGroup()
        for test in tests:
            (group.success if statuses.get(test) == _PASSED else group.failure).append(test)
        groups[name] = group
    required = bool(fail_to_pass or pass_to_pass)
    resolved = required and not groups[FAIL_TO_PASS].failure and not groups[PASS_TO_PASS].failure
    return groups, resolved


# --- the family ------------------------------------------------------------------------------------


class NvInternalFamily(BaseFamily):
    """nv-internal rows: the row's run_script.sh and parsing_script.py grade it."""

    name = FAMILY_NAME
    grader_version = GRADER_VERSION

    def _image(self, fields: Mapping[str, Any], settings: BenchmarkSettings, rid: str) -> str:
        image = optional_str(fields, "image", "docker_image", "image_name", row_id=rid)
        if image:
            return image
        tag = optional_str(fields, "dockerhub_tag", row_id=rid)
        if tag:
            return f"{settings.images.get('repository') or DEFAULT_IMAGE_REPOSITORY}:{tag}"
        image = image_from_template(settings, rid)
        if image:
            return image
        raise RowError(
            "image",
            "is missing (no image, docker_image, image_name or dockerhub_tag, and no images.template)",
            row=rid,
        )

    def normalize(self, row: Mapping[str, Any], settings: BenchmarkSettings) -> Task:
        instance_id = require_str(row, "instance_id")
        rid = instance_id
        fields = row_fields(row, rid)
        workdir = optional_str(fields, "repo_workdir", "workdir", row_id=rid) or DEFAULT_WORKDIR
        if workdir == "/testbed":  # the generic default of NeMo rows means "not set"
            workdir = DEFAULT_WORKDIR
        fail_to_pass = required_tests(fields, "fail_to_pass", row_id=rid)
        pass_to_pass = required_tests(fields, "pass_to_pass", row_id=rid)
        run_script = _script(fields, ("run_script.sh", "run_script"), ("run_script.sh",), settings, rid)
        parsing_script = _script(
            fields,
            ("parsing_script.py", "parsing_script", "parser.py"),
            ("parsing_script.py", "parser.py"),
            settings,
            rid,
        )
        exports = dockerfile_exports(
            optional_str(fields, "base_dockerfile", row_id=rid) or "",
            optional_str(fields, "instance_dockerfile", row_id=rid) or "",
        )
        task = Task(
            family=self.name,
            instance_id=instance_id,
            image=self._image(fields, settings, rid),
            **repository_fields(fields, workdir, rid),
            fail_to_pass=fail_to_pass,
            pass_to_pass=pass_to_pass,
            log_parser=f"{FAMILY_NAME}:parsing_script.py",
            eval_env={"GIT_PAGER": "cat"},
            created_at=created_at_str(fields.get("created_at")),
            raw={
                "run_script": run_script,
                "parsing_script": parsing_script,
                "exports": exports,
                "before_repo_set_cmd": last_line(
                    optional_str(fields, "before_repo_set_cmd", row_id=rid) or ""
                ),
                "selected_test_files": selected_test_files(fields, row_id=rid),
                "repo_language": optional_str(fields, "repo_language", row_id=rid),
            },
        )
        task.eval_script = eval_script(task)
        return task

    def evaluate(self, task: Task, patch: str, sandbox: Sandbox, ctx: EvalContext) -> Verdict:
        eval_script = task.required_eval_script()
        sandbox.write_file(RUN_SCRIPT, _text(task.raw["run_script"]), mode=0o755)
        sandbox.write_file(PARSING_SCRIPT, _text(task.raw["parsing_script"]))
        run = grading.patch_and_run(task, patch, sandbox, ctx, eval_script, grader=self.grader_version)
        verdict = run.verdict
        if not run.ran:
            return verdict
        for path in (STDOUT_LOG, STDERR_LOG):
            text = _read(sandbox, path)
            if text is not None:
                ctx.save(path.rsplit("/", 1)[-1], text)
        output = _read(sandbox, OUTPUT_JSON)
        if output is not None:
            ctx.save("output.json", output)
        exit_code = re.search(rf"^{re.escape(RUN_EXIT_MARK)} (-?\d+)", run.log, re.M)
        verdict.test_exit_code = int(exit_code.group(1)) if exit_code else None
        report = read_report(output)
        groups, resolved = grade(report.statuses, task.fail_to_pass, task.pass_to_pass)
        verdict.tests_status = groups
        verdict.test_results = dict(report.statuses)
        verdict.log_valid = not report.problem
        if report.problem:
            verdict.reasons.append(report.problem)
        if not (task.fail_to_pass or task.pass_to_pass):
            verdict.reasons.append("the row requires no test, so it cannot resolve")
        verdict.resolved = resolved and verdict.patch_exists
        verdict.resolution = "RESOLVED_FULL" if verdict.resolved else "RESOLVED_NO"
        return verdict


def _text(script: str) -> bytes:
    return (script if script.endswith("\n") else script + "\n").encode("utf-8", errors="surrogateescape")


def _read(sandbox: Sandbox, path: str) -> str | None:
    try:
        return sandbox.read_file(path).decode("utf-8", errors="replace")
    except FileNotFoundError:
        return None


FAMILY = NvInternalFamily()


@pytest.hookimpl
def pytest_swe_families() -> list[Any]:
    return [FAMILY]
