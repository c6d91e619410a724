"""R2E-Gym (``R2E-Gym/R2E-Gym-Lite``, ``-Subset``, ``-Full``): commits whose held-out tests must
reproduce an exact status map.

A row names its image (``docker_image``, ``namanjain12/<repo>_final:<commit>``), the commit as a
parsed diff (``parsed_commit_content``: the gold fix is its non-test Python files) and the
expected outcome of the hidden tests (``expected_output_json``, test -> status). There is no
F2P/P2P and no test patch: the tests live in the image at ``/r2e_tests``, run by
``/testbed/run_tests.sh``. Both are removed from the agent's sandbox and are put back, from the
untouched image, in the eval sandbox only after the patch is applied.

The reward is 1 iff the parsed map equals the expected map: the same tests, each with the same
status, FAILED and ERROR entries included. Logs are read by R2E's pytest parser: only what
follows ``short test summary info``, keyed by the node id without its file path.

Rows have no ``instance_id``; the id is ``<owner>__<repo>-<commit_hash>`` (the convention NeMo
Gym uses for these rows), with the owner from a table of the R2E repositories.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

import pytest

from pytest_swe import grading
from pytest_swe.api.errors import InfraError
from pytest_swe.api.errors import RowError
from pytest_swe.api.family import BaseFamily
from pytest_swe.api.family import EvalContext
from pytest_swe.api.sandbox import Sandbox
from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.api.task import Task
from pytest_swe.api.task import json_mapping
from pytest_swe.api.task import optional_str
from pytest_swe.api.task import require_str
from pytest_swe.api.verdict import TestGroup
from pytest_swe.api.verdict import TestStatus
from pytest_swe.api.verdict import Verdict
from pytest_swe.families.logparsers import LineForm
from pytest_swe.families.logparsers import PytestGrammar

GRADER = "pytest-swe/r2e-gym-grader-1 (R2E-Gym exact status map, parse_log_pytest)"
REPO_DIR = "/testbed"
TESTS_DIR = "/r2e_tests"
RUN_TESTS = f"{REPO_DIR}/run_tests.sh"
HIDDEN_PATHS = [TESTS_DIR, RUN_TESTS, f"{REPO_DIR}/r2e_tests"]
# Where the eval sandbox keeps the tests while the patch is applied: outside the repository,
# so no patch can reach them.
VAULT = "/root/.pytest-swe-r2e"
EXPECTED_STATUS = "EXPECTED_STATUS"
UNEXPECTED_TESTS = "UNEXPECTED_TESTS"
SUMMARY_MARK = "short test summary info"
PREPARE_TIMEOUT = 120.0

# R2E rows name the repository without its owner.
OWNERS: dict[str, str] = {
    "aiohttp": "aio-libs/aiohttp",
    "coveragepy": "nedbat/coveragepy",
    "datalad": "datalad/datalad",
    "numpy": "numpy/numpy",
    "orange3": "biolab/orange3",
    "pandas": "pandas-dev/pandas",
    "pillow": "python-pillow/Pillow",
    "pyramid": "Pylons/pyramid",
    "scrapy": "scrapy/scrapy",
    "sympy": "sympy/sympy",
    "tornado": "tornadoweb/tornado",
}

_ANSI_OUTPUT = re.compile(r"\x1b\[[0-9;]*m|\r")
_ANSI_KEY = re.compile(r"\x1b\[\d+m")


# --- identity -----------------------------------------------------------------------------------


def github_repo(repo_name: str) -> str:
    """``owner/repo`` for an R2E repository name (``<name>/<name>`` when the owner is unknown)."""
    return OWNERS.get(repo_name.lower(), f"{repo_name}/{repo_name}")


def _from_image(image: str) -> tuple[str | None, str | None]:
    """``namanjain12/sympy_final:abc`` -> (``sympy``, ``abc``)."""
    name, _, tag = image.rpartition(":") if ":" in image.rsplit("/", 1)[-1] else (image, "", "")
    base = name.rsplit("/", 1)[-1]
    return (base.removesuffix("_final") or None), (tag or None)


def instance_id_of(row: Mapping[str, Any]) -> str | None:
    """``<owner>__<repo>-<commit_hash>``, from ``repo_name`` and ``commit_hash`` or the image tag."""
    repo_name, commit = row.get("repo_name"), row.get("commit_hash")
    image = row.get("docker_image")
    if isinstance(image, str) and image.strip():
        from_image = _from_image(image.strip())
        repo_name = repo_name if isinstance(repo_name, str) and repo_name.strip() else from_image[0]
        commit = commit if isinstance(commit, str) and commit.strip() else from_image[1]
    if (
        not isinstance(repo_name, str)
        or not isinstance(commit, str)
        or not repo_name.strip()
        or not commit.strip()
    ):
        return None
    return f"{github_repo(repo_name.strip()).replace('/', '__')}-{commit.strip()}"


# --- the gold patch from parsed_commit_content ----------------------------------------------------


def is_test_file(path: str) -> bool:
    """R2E's ``FileDiff.is_test_file``."""
    parts = path.split("/")
    return (
        path.endswith("_test.py")
        or path.startswith("test_")
        or parts[-1].startswith("test_")
        or any(part in ("tests", "Tests", "test", "Test") for part in parts)
    )


def _range(data: Mapping[str, Any]) -> str:
    start, length = data.get("start"), data.get("length")
    return f"{start}" if length is None else f"{start},{length}"


_LINE_PREFIX = {"context": " ", "added": "+", "deleted": "-", "note": "\\ "}


def file_diff_patch(diff: Mapping[str, Any]) -> str:
    """R2E's ``FileDiff.get_patch``: the unified diff of one file."""
    path = diff["header"]["file"]["path"]
    patch = f"diff --git a/{path} b/{path}\n"
    misc = diff["header"].get("misc_line")
    if misc:
        patch += misc + "\n"
    index = diff.get("index_line")
    if index:
        mode = index.get("mode") or ""
        patch += f"index {index['old_commit_hash']}..{index['new_commit_hash']}{' ' if mode else ''}{mode}\n"
    if diff.get("is_binary_file"):
        patch += f"{diff.get('binary_line')}\n"
    minus, plus = diff.get("minus_file"), diff.get("plus_file")
    if minus and plus:
        patch += f"--- {minus['path']}\n+++ {plus['path']}\n"
    for hunk in diff.get("hunks") or []:
        descriptor = hunk["descriptor"]
        header = f"@@ -{_range(descriptor['old_range'])} +{_range(descriptor['new_range'])} @@"
        if descriptor.get("section"):
            header += f" {descriptor['section']}"
        patch += header + "\n"
        for line in hunk["line_group"]["all_lines"]:
            patch += _LINE_PREFIX[line["type"]] + line["content"] + "\n"
    return patch


def commit_patch(parsed: Mapping[str, Any], *, test_files: bool = False, non_test_files: bool = True) -> str:
    """R2E's ``ParsedCommit.get_patch`` with its defaults: Python files only, tests or not as asked."""
    patch = ""
    for diff in parsed.get("file_diffs") or []:
        path = diff["header"]["file"]["path"]
        if not path.endswith(".py"):
            continue
        if (is_test_file(path) and test_files) or (not is_test_file(path) and non_test_files):
            patch += file_diff_patch(diff)
    return patch


# --- the log and the reward ---------------------------------------------------------------------


def _summary_lines(log: str | None) -> list[str]:
    if log is None or SUMMARY_MARK not in log:
        return []
    return log.split(SUMMARY_MARK)[1].strip().split("\n")


def _node_key(line: str) -> str:
    return ".".join(line.split("::")[1:])


def _node_key_without_message(line: str) -> str:
    return _node_key(line).split(" - ")[0]


parse_log_pytest = PytestGrammar(
    lines=_summary_lines,
    forms=(
        LineForm(re.compile(r"(?=.*PASSED)(?P<test>.*)"), status=TestStatus.PASSED.value, name=_node_key),
        LineForm(
            re.compile(r"(?=.*FAILED)(?P<test>.*)"),
            status=TestStatus.FAILED.value,
            name=_node_key_without_message,
        ),
        LineForm(
            re.compile(r"(?=.*ERROR)(?P<test>.*)"),
            status=TestStatus.ERROR.value,
            name=_node_key_without_message,
        ),
    ),
)
"""R2E's ``parse_log_pytest``: the ``-rA`` summary after ``short test summary info``; a line
holding PASSED, else FAILED, else ERROR anywhere counts; the key is the node id without its
file (``Class.test``); FAILED and ERROR keys are cut at `` - ``."""


def clean_output(text: str) -> str:
    """What R2E's runtime does to test output before parsing: ANSI codes and ``\\r`` removed."""
    return _ANSI_OUTPUT.sub("", text)


def comparable(status_map: Mapping[str, str]) -> dict[str, str]:
    """Keys decoloured and cut at `` - ``, as R2E's reward compares them."""
    decoloured = {_ANSI_KEY.sub("", key): value for key, value in status_map.items()}
    return {key.split(" - ")[0]: decoloured[key] for key in sorted(decoloured)}


def status_map_matches(parsed: Mapping[str, str], expected: Mapping[str, str]) -> bool:
    """R2E's ``_calculate_reward_r2e``: equal sizes and every parsed (non-empty) key expected with
    the same status."""
    parsed, expected = comparable(parsed), comparable(expected)
    if len(parsed) != len(expected):
        return False
    return all(not key or (key in expected and expected[key] == status) for key, status in parsed.items())


def status_groups(parsed: Mapping[str, str], expected: Mapping[str, str]) -> dict[str, TestGroup]:
    """Per expected test: met or not; tests the log has but the map does not expect, apart."""
    parsed, expected = comparable(parsed), comparable(expected)
    met = TestGroup()
    for test, status in expected.items():
        (met.success if parsed.get(test) == status else met.failure).append(test)
    extra = TestGroup(failure=[test for test in parsed if test and test not in expected])
    return {EXPECTED_STATUS: met, UNEXPECTED_TESTS: extra}


def expected_map(row: Mapping[str, Any], row_id: str) -> dict[str, str]:
    raw = json_mapping(row.get("expected_output_json"), "expected_output_json", row_id=row_id)
    if not raw:
        raise RowError(
            "expected_output_json", "is missing or empty: nothing would tell a fix from no change", row=row_id
        )
    statuses = {status.value for status in TestStatus}
    for test, status in raw.items():
        if not isinstance(status, str) or status not in statuses:
            raise RowError(
                "expected_output_json",
                f"test {test!r} has status {status!r}, not one of {sorted(statuses)}",
                row=row_id,
            )
    return {str(test): status for test, status in raw.items()}


def issue_text(problem_statement: str) -> str:
    """The text inside ``[ISSUE]...[/ISSUE]`` when present (R2E's ``get_task_instruction``)."""
    match = re.search(r"\[ISSUE\](.*)\[/ISSUE\]", problem_statement, re.DOTALL)
    return match.group(1) if match else problem_statement


# --- sandbox steps ------------------------------------------------------------------------------

HIDE_SCRIPT = (
    "set -e\n"
    f"rm -rf {' '.join(shlex.quote(p) for p in HIDDEN_PATHS)}\n"
    # Untracked files the image brings along stay out of the agent's diff.
    f"if [ -d {REPO_DIR}/.git ]; then mkdir -p {REPO_DIR}/.git/info && "
    f"printf '%s\\n' /.venv /run_tests.sh /r2e_tests >> {REPO_DIR}/.git/info/exclude; fi\n"
)

VAULT_SCRIPT = (
    "set -e\n"
    f"rm -rf {VAULT} && mkdir -p {VAULT}\n"
    f"test -f {RUN_TESTS} || {{ echo 'the image has no {RUN_TESTS}'; exit 3; }}\n"
    f"test -d {TESTS_DIR} || test -d {REPO_DIR}/r2e_tests || {{ echo 'the image has no {TESTS_DIR}'; exit 3; }}\n"
    f"mv {RUN_TESTS} {VAULT}/run_tests.sh\n"
    f"if [ -d {TESTS_DIR} ]; then mv {TESTS_DIR} {VAULT}/r2e_tests; else mv {REPO_DIR}/r2e_tests {VAULT}/r2e_tests; fi\n"
    f"rm -rf {REPO_DIR}/r2e_tests\n"
    f"find {VAULT}/r2e_tests -name '__pycache__' -prune -exec rm -rf {{}} + 2>/dev/null || true\n"
)


def eval_script() -> str:
    """Link the tests into the repository for the run only (as R2E's runtime does), run them."""
    return (
        f"cd {REPO_DIR}\n"
        f"rm -rf {REPO_DIR}/r2e_tests\n"
        f"ln -s {VAULT}/r2e_tests {REPO_DIR}/r2e_tests\n"
        f"bash {VAULT}/run_tests.sh\n"
        "status=$?\n"
        f"rm -f {REPO_DIR}/r2e_tests\n"
        "exit $status\n"
    )


class R2EGymFamily(BaseFamily):
    """R2E-Gym rows: hidden tests, exact expected status map."""

    name = "r2e-gym"
    grader_version = GRADER
    id_fields = ("docker_image", "repo_name", "commit_hash")

    def row_id(self, row: Mapping[str, Any]) -> str | None:
        return instance_id_of(row)

    def normalize(self, row: Mapping[str, Any], settings: BenchmarkSettings) -> Task:
        image = require_str(row, "docker_image", row_id=instance_id_of(row))
        instance_id = instance_id_of(row)
        if instance_id is None:
            raise RowError("commit_hash", "is missing and the image tag does not name the commit")
        rid = instance_id
        raw_commit = row.get("parsed_commit_content")
        if not isinstance(raw_commit, str) or not raw_commit.strip():
            raise RowError("parsed_commit_content", "is missing or empty", row=rid)
        parsed = json_mapping(raw_commit, "parsed_commit_content", row_id=rid)
        try:
            gold = commit_patch(parsed)
        except (KeyError, TypeError) as exc:
            raise RowError(
                "parsed_commit_content", f"is not a parsed commit (missing {exc})", row=rid
            ) from None
        repo_name = optional_str(row, "repo_name", row_id=rid) or (_from_image(image)[0] or "")
        return Task(
            family=self.name,
            instance_id=instance_id,
            image=image.strip(),
            workdir=REPO_DIR,
            repo=github_repo(repo_name),
            base_commit=parsed.get("old_commit_hash")
            if isinstance(parsed.get("old_commit_hash"), str)
            else None,
            problem_statement=issue_text(optional_str(row, "problem_statement", row_id=rid) or ""),
            gold_patch=gold,
            test_patch=None,
            expected_status_map=expected_map(row, rid),
            test_cmds=[f"bash {RUN_TESTS}"],
            eval_script=eval_script(),
            log_parser="r2e:parse_log_pytest",
            hidden_paths=list(HIDDEN_PATHS),
            raw={"repo_name": repo_name, "commit_hash": optional_str(row, "commit_hash", row_id=rid) or ""},
        )

    def prepare_agent_sandbox(self, task: Task, sandbox: Sandbox, settings: BenchmarkSettings) -> None:
        result = sandbox.exec(HIDE_SCRIPT, timeout=PREPARE_TIMEOUT, workdir="/")
        if not result.ok:
            raise InfraError(
                "sandbox_setup",
                f"cannot hide the tests from the agent (exit {result.exit_code}): {result.output[-2000:]}",
            )

    def evaluate(self, task: Task, patch: str, sandbox: Sandbox, ctx: EvalContext) -> Verdict:
        vault = sandbox.exec(VAULT_SCRIPT, timeout=PREPARE_TIMEOUT, workdir="/")
        if not vault.ok:
            raise InfraError(
                "eval_error",
                f"cannot set the hidden tests aside (exit {vault.exit_code}): {vault.output[-2000:]}",
            )
        eval_script = task.required_eval_script()
        if task.expected_status_map is None:
            raise InfraError("eval_error", f"{task.instance_id}: the row gave no expected status map")
        run = grading.patch_and_run(task, patch, sandbox, ctx, eval_script, grader=self.grader_version)
        if not run.ran:
            return run.verdict
        run.verdict.test_exit_code = run.exit_code
        return grade_log(task.expected_status_map, run.log, run.verdict)

    def regrade(self, task: Task, log: str, verdict: Verdict, settings: BenchmarkSettings) -> Verdict:
        expected = task.expected_status_map
        if expected is None:
            raise InfraError("eval_error", f"{task.instance_id}: the row gave no expected status map")
        return grading.regrade(verdict, self.grader_version, lambda fresh: grade_log(expected, log, fresh))


def grade_log(expected: Mapping[str, str], log: str, verdict: Verdict) -> Verdict:
    """R2E's reward on one test run's output: 1 iff the parsed map equals ``expected``.
    An empty patch, or a log with no results, never resolves."""
    parsed = parse_log_pytest(clean_output(log))
    if not parsed:
        verdict.log_valid = False
        verdict.reasons.append(f"invalid test log: no test results after '{SUMMARY_MARK}'")
    verdict.test_results = comparable(parsed)
    verdict.tests_status = status_groups(parsed, expected)
    matched = status_map_matches(parsed, expected)
    if not matched:
        verdict.reasons.append(mismatch_summary(parsed, expected))
    verdict.resolved = verdict.patch_exists and bool(parsed) and bool(expected) and matched
    verdict.resolution = "RESOLVED_FULL" if verdict.resolved else "RESOLVED_NO"
    return verdict


def mismatch_summary(parsed: Mapping[str, str], expected: Mapping[str, str], limit: int = 10) -> str:
    """``test: expected X, got Y`` for the first differences, so the failure says what differs."""
    parsed, expected = comparable(parsed), comparable(expected)
    lines = [
        f"{test}: expected {status}, got {parsed.get(test, 'nothing')}"
        for test, status in expected.items()
        if parsed.get(test) != status
    ]
    lines += [
        f"{test}: not expected, got {status}"
        for test, status in parsed.items()
        if test and test not in expected
    ]
    shown = "; ".join(lines[:limit]) + (f"; ... and {len(lines) - limit} more" if len(lines) > limit else "")
    return f"the status map differs from the expected one ({len(parsed)} tests in the log, {len(expected)} expected): {shown}"


FAMILY = R2EGymFamily()


@pytest.hookimpl
def pytest_swe_families() -> list[Any]:
    return [FAMILY]
