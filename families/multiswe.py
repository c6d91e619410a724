"""The Multi-SWE-bench family (ByteDance-Seed): pull-request rows graded by test transitions.

Each row records three runs of the repository's tests: ``run_result`` (no patch),
``test_patch_result`` (the test patch) and ``fix_patch_result`` (test patch and fix). Grading
repeats only the third with the model's patch: the prediction is written to ``/home/fix.patch``
and the image's ``/home/fix-run.sh`` applies ``/home/test.patch`` and ``/home/fix.patch`` and
runs the tests; the log is read by the repository's parser. A row resolves iff (upstream
``Report.check`` and ``gen_report``):

1. the fix run recorded at least one test;
2. no test goes PASS -> FAIL from the test-patch run to the fix run;
3. at least one test goes from not passing (FAIL, SKIP, NONE) to PASS;
4. no test is anomalous: NONE or SKIP with the test patch, FAIL with the fix, PASS with no patch;
5. every test the row lists in ``p2p_tests``, ``f2p_tests``, ``s2p_tests`` and ``n2p_tests`` shows
   that transition again (PASS->PASS, FAIL->PASS, SKIP->PASS, NONE->PASS).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import Literal
from typing import overload

import pytest

from pytest_swe import grading
from pytest_swe.api.errors import InfraError
from pytest_swe.api.errors import RowError
from pytest_swe.api.family import BaseFamily
from pytest_swe.api.family import EvalContext
from pytest_swe.api.patch import patch_bytes
from pytest_swe.api.sandbox import Sandbox
from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.api.task import Task
from pytest_swe.api.task import created_at_str
from pytest_swe.api.task import optional_str
from pytest_swe.api.task import require_str
from pytest_swe.api.verdict import TestGroup
from pytest_swe.api.verdict import TestStatus
from pytest_swe.api.verdict import Verdict
from pytest_swe.families.logparsers import LineForm
from pytest_swe.families.logparsers import PytestGrammar

GRADER_VERSION = "pytest-swe/multi-swe-bench-grader-1 (multi-swe-bench Report.check + gen_report semantics)"
FAMILY_NAME = "multi-swe-bench"
DEFAULT_NAMESPACE = "mswebench"
FIX_PATCH = "/home/fix.patch"
TEST_PATCH = "/home/test.patch"
FIX_RUN = "/home/fix-run.sh"
EVAL_SCRIPT_PATH = "/tmp/pytest-swe/multi-swe-bench-eval.sh"
FIX_RUN_START = "<<<MULTI_SWE_BENCH_FIX_RUN_START>>>"
FIX_RUN_END = "<<<MULTI_SWE_BENCH_FIX_RUN_END>>>"
APPLIES = ">>>>> Patches Apply"
DOES_NOT_APPLY = ">>>>> Patches Do Not Apply"
NO_FIX_RUN = ">>>>> No fix-run.sh"
NO_FIX_RUN_EXIT = 97

PASS, FAIL, SKIP, NONE = "PASS", "FAIL", "SKIP", "NONE"
# Verdict groups: the row's list, the transition it asserts, and the group's name in verdicts.
GROUPS = (
    ("f2p_tests", FAIL, "FAIL_TO_PASS"),
    ("p2p_tests", PASS, "PASS_TO_PASS"),
    ("s2p_tests", SKIP, "SKIP_TO_PASS"),
    ("n2p_tests", NONE, "NONE_TO_PASS"),
)
_AS_TEST_STATUS = {
    PASS: TestStatus.PASSED.value,
    FAIL: TestStatus.FAILED.value,
    SKIP: TestStatus.SKIPPED.value,
}


# --- test results ----------------------------------------------------------------------------------


@dataclass
class TestResult:
    """One run's tests by outcome (``passed_tests``, ``failed_tests``, ``skipped_tests``)."""

    __test__ = False  # not a pytest test class

    passed: set[str] = field(default_factory=set)
    failed: set[str] = field(default_factory=set)
    skipped: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, passed: Iterable[str], failed: Iterable[str], skipped: Iterable[str]) -> TestResult:
        """A run's result with each test in one set: a failure wins over a pass, both over a skip."""
        failed_set = set(failed)
        passed_set = set(passed) - failed_set
        return cls(passed_set, failed_set, set(skipped) - failed_set - passed_set)

    def status(self, test: str) -> str:
        """The test's outcome; upstream assigns passed, then failed, then skipped, so the last wins."""
        if test in self.skipped:
            return SKIP
        if test in self.failed:
            return FAIL
        if test in self.passed:
            return PASS
        return NONE

    def names(self) -> set[str]:
        return self.passed | self.failed | self.skipped

    def as_dict(self) -> dict[str, Any]:
        """The row format: counts and sorted name lists."""
        return {
            "passed_count": len(self.passed),
            "failed_count": len(self.failed),
            "skipped_count": len(self.skipped),
            "passed_tests": sorted(self.passed),
            "failed_tests": sorted(self.failed),
            "skipped_tests": sorted(self.skipped),
        }


def _json_value(value: Any, field_name: str, row_id: str) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value) if value.strip() else None
        except json.JSONDecodeError as exc:
            raise RowError(
                field_name, f"is not valid JSON: {exc.msg} at position {exc.pos}", row=row_id
            ) from None
    return value


def _names(value: Any, field_name: str, row_id: str) -> list[str]:
    if value is None:
        return []
    if hasattr(value, "tolist") and not isinstance(value, (list, tuple)):
        value = value.tolist()
    if not isinstance(value, (list, tuple, set)):
        raise RowError(field_name, f"must be a list of test names, got {type(value).__name__}", row=row_id)
    if not all(isinstance(v, str) for v in value):
        raise RowError(field_name, "must hold test names (strings)", row=row_id)
    return list(value)


@overload
def result_field(
    row: Mapping[str, Any], field_name: str, row_id: str, *, required: Literal[True]
) -> TestResult: ...
@overload
def result_field(
    row: Mapping[str, Any], field_name: str, row_id: str, *, required: bool
) -> TestResult | None: ...
def result_field(
    row: Mapping[str, Any], field_name: str, row_id: str, *, required: bool
) -> TestResult | None:
    """A ``*_result`` record (a mapping or JSON string with ``passed_tests``, ``failed_tests``, ...)."""
    value = _json_value(row.get(field_name), field_name, row_id)
    if value is None:
        if required:
            raise RowError(field_name, "is missing (grading compares the fix run with it)", row=row_id)
        return None
    if not isinstance(value, Mapping):
        raise RowError(field_name, f"must be a mapping, got {type(value).__name__}", row=row_id)
    lists = {
        k: _names(value.get(f"{k}_tests"), f"{field_name}.{k}_tests", row_id)
        for k in ("passed", "failed", "skipped")
    }
    return TestResult(set(lists["passed"]), set(lists["failed"]), set(lists["skipped"]))


def tests_field(row: Mapping[str, Any], field_name: str, row_id: str) -> list[str]:
    """Names of a ``*_tests`` mapping (name -> {run, test, fix}); JSON strings and lists are accepted.

    Parquet stores such mappings as structs holding every row's names, absent ones as null:
    null entries are not this row's tests.
    """
    value = _json_value(row.get(field_name), field_name, row_id)
    if value is None:
        return []
    if isinstance(value, Mapping):
        return sorted(str(k) for k, v in value.items() if v is not None)
    return sorted(_names(value, field_name, row_id))


# --- log parsers -----------------------------------------------------------------------------------

Parser = Callable[[str], TestResult]
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_PYTEST_WORDS = "PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS"
_PYTEST_OUTCOME = {
    "PASSED": PASS,
    "XPASS": PASS,
    "FAILED": FAIL,
    "ERROR": FAIL,
    "SKIPPED": SKIP,
    "XFAIL": SKIP,
}


def _collect(log: str, read: Callable[[str], tuple[str, str] | None]) -> TestResult:
    outcomes: dict[str, set[str]] = {PASS: set(), FAIL: set(), SKIP: set()}
    for line in _ANSI.sub("", log).splitlines():
        found = read(line.strip())
        if found:
            outcomes[found[1]].add(found[0])
    return TestResult.of(outcomes[PASS], outcomes[FAIL], outcomes[SKIP])


def _ansi_free_lines(log: str) -> list[str]:
    return _ANSI.sub("", log).splitlines()


_PYTEST = PytestGrammar(
    lines=_ansi_free_lines,
    clean=str.strip,
    forms=(
        LineForm(re.compile(rf"(?P<status>{_PYTEST_WORDS})\s+(?P<test>\S+\.py::\S+)")),
        LineForm(re.compile(rf"(?P<test>\S+\.py::\S+)\s+(?P<status>{_PYTEST_WORDS})\b")),
    ),
)


def parse_pytest(log: str) -> TestResult:
    """pytest ``-v`` lines (``id STATUS``) and ``-rA`` summary lines (``STATUS id``); errors fail."""
    outcomes: dict[str, set[str]] = {PASS: set(), FAIL: set(), SKIP: set()}
    for test, status in _PYTEST.results(log):
        outcomes[_PYTEST_OUTCOME[status]].add(test)
    return TestResult.of(outcomes[PASS], outcomes[FAIL], outcomes[SKIP])


_GO_RESULT = re.compile(r"^--- (PASS|FAIL|SKIP): (\S+)")
_GO_PACKAGE_FAIL = re.compile(r"^FAIL:?\s?(.+?)\s")


def parse_go_test(log: str) -> TestResult:
    """``go test -v``: ``--- PASS|FAIL|SKIP: name`` lines; a ``FAIL <package>`` line fails the package."""

    def read(line: str) -> tuple[str, str] | None:
        result = _GO_RESULT.match(line)
        if result:
            return result.group(2), {"PASS": PASS, "FAIL": FAIL, "SKIP": SKIP}[result.group(1)]
        package = _GO_PACKAGE_FAIL.match(line)
        return (package.group(1), FAIL) if package else None

    return _collect(log, read)


_CARGO_RESULT = re.compile(r"^test (\S+) \.\.\. (ok|FAILED|ignored)")


def parse_cargo_test(log: str) -> TestResult:
    """``cargo test``: ``test name ... ok|FAILED|ignored``."""

    def read(line: str) -> tuple[str, str] | None:
        result = _CARGO_RESULT.match(line)
        return (
            (result.group(1), {"ok": PASS, "FAILED": FAIL, "ignored": SKIP}[result.group(2)])
            if result
            else None
        )

    return _collect(log, read)


_SUREFIRE = re.compile(
    r"Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+), Time elapsed: [\d.]+ .+? in (.+)"
)


def parse_maven_surefire(log: str) -> TestResult:
    """Maven Surefire's per-class summary lines: a class passes, fails (failures or errors) or is skipped."""

    def read(line: str) -> tuple[str, str] | None:
        match = _SUREFIRE.search(line)
        if not match:
            return None
        run, failures, errors, skipped = (int(match.group(i)) for i in range(1, 5))
        name = match.group(5)
        if failures or errors:
            return name, FAIL
        if run > 0 and skipped != run:
            return name, PASS
        return (name, SKIP) if skipped == run else None

    return _collect(log, read)


_TIMING = r"(?:\s*\(?\d*\.?\d+\s*(?:ms|s|m)\)?)?$"
_CROSS = "\u00d7"  # the multiplication sign Vitest prints for a failure
_VITEST_MARK = re.compile(rf"^([✓{_CROSS}]) (.+?){_TIMING}")
_JEST_MARK = re.compile(rf"^([✓✔✕✖○]) (?:skipped )?(.+?){_TIMING}")
_MARKS = {"✓": PASS, "✔": PASS, _CROSS: FAIL, "✕": FAIL, "✖": FAIL, "○": SKIP}


def _marks(pattern: re.Pattern[str]) -> Parser:
    def parse(log: str) -> TestResult:
        def read(line: str) -> tuple[str, str] | None:
            match = pattern.match(line)
            return (match.group(2), _MARKS[match.group(1)]) if match else None

        return _collect(log, read)

    return parse


parse_vitest_marks = _marks(_VITEST_MARK)
"""Vitest's verbose reporter: ``✓ name`` and a cross (U+00D7) before failures; durations dropped."""
parse_jest_marks = _marks(_JEST_MARK)
"""Jest's verbose reporter: ``✓ name``, ``✕ name``, ``○ skipped name``."""

_CTEST = re.compile(
    r"^\d+/\d+\s+Test\s+#\d+:\s+(\S+)\s+\.+\s*(\*+)?\s*(Passed|Failed|Skipped|Not Run|Exception)"
)


def parse_ctest(log: str) -> TestResult:
    """CTest's ``1/9 Test #1: name ....   Passed`` lines."""

    def read(line: str) -> tuple[str, str] | None:
        match = _CTEST.match(line)
        if not match:
            return None
        outcome = match.group(3)
        return match.group(1), PASS if outcome == "Passed" else SKIP if outcome in (
            "Skipped",
            "Not Run",
        ) else FAIL

    return _collect(log, read)


PARSERS: dict[str, Parser] = {
    "pytest": parse_pytest,
    "go_test": parse_go_test,
    "cargo_test": parse_cargo_test,
    "maven_surefire": parse_maven_surefire,
    "vitest_marks": parse_vitest_marks,
    "jest_marks": parse_jest_marks,
    "ctest": parse_ctest,
}
"""Log parsers by name; upstream gives each repository its own ``parse_log``, in these styles."""

LANGUAGE_PARSERS = {
    "python": "pytest",
    "go": "go_test",
    "golang": "go_test",
    "rust": "cargo_test",
    "java": "maven_surefire",
    "typescript": "jest_marks",
    "ts": "jest_marks",
    "javascript": "jest_marks",
    "js": "jest_marks",
    "c": "ctest",
    "cpp": "ctest",
    "c++": "ctest",
}
REPO_PARSERS = {
    "vuejs/core": "vitest_marks",
    "cli/cli": "go_test",
    "BurntSushi/ripgrep": "cargo_test",
    "alibaba/fastjson2": "maven_surefire",
}
"""Repositories whose parser differs from (or pins) their language's."""


def parser_name(row: Mapping[str, Any], org: str, repo: str, settings: BenchmarkSettings, row_id: str) -> str:
    """The row's ``log_parser``, else the repository's (``family_options.log_parsers`` first), else the language's."""
    explicit = optional_str(row, "log_parser", row_id=row_id)
    if explicit:
        if explicit not in PARSERS:
            known = ", ".join(sorted(PARSERS))
            raise RowError("log_parser", f"unknown log parser {explicit!r} (known: {known})", row=row_id)
        return explicit
    configured = settings.family_options.get("log_parsers") or {}
    by_repo = configured.get(f"{org}/{repo}") or REPO_PARSERS.get(f"{org}/{repo}")
    if by_repo:
        if by_repo not in PARSERS:
            raise RowError("log_parser", f"unknown log parser {by_repo!r} for {org}/{repo}", row=row_id)
        return by_repo
    lang = (optional_str(row, "lang", "language", row_id=row_id) or "").lower()
    if lang in LANGUAGE_PARSERS:
        return LANGUAGE_PARSERS[lang]
    known = ", ".join(sorted(LANGUAGE_PARSERS))
    raise RowError(
        "lang",
        f"no log parser is known for {org}/{repo} in language {lang or '(none)'!r} (known: {known})",
        row=row_id,
    )


# --- grading ---------------------------------------------------------------------------------------


@dataclass
class TransitionReport:
    """Upstream ``Report``: per-test (run, test, fix) outcomes, validity and the transition sets."""

    valid: bool
    error: str
    transitions: dict[str, tuple[str, str, str]]
    sets: dict[str, set[str]] = field(default_factory=dict)
    """``PASS``/``FAIL``/``SKIP``/``NONE`` -> tests that went from it (with the test patch) to PASS.
    Filled for invalid reports too, so a verdict can say which listed tests did pass."""
    offenders: list[str] = field(default_factory=list)


def _listed(names: Iterable[str], limit: int = 5) -> str:
    names = sorted(names)
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def transition_report(run: TestResult, test: TestResult, fix: TestResult) -> TransitionReport:
    """Check the fix run against the row's no-patch and test-patch runs (``Report.check``)."""
    names = run.names() | test.names() | fix.names()
    transitions = {name: (run.status(name), test.status(name), fix.status(name)) for name in sorted(names)}
    sets: dict[str, set[str]] = {PASS: set(), FAIL: set(), SKIP: set(), NONE: set()}
    for name, (_, t, f) in transitions.items():
        if f == PASS:
            sets[t].add(name)

    def invalid(error: str, offenders: list[str] | None = None) -> TransitionReport:
        return TransitionReport(False, error, transitions, sets, offenders or [])

    if not fix.names():
        return invalid("the fix run recorded no test")
    broken = [n for n, (_, t, f) in transitions.items() if t == PASS and f == FAIL]
    if broken:
        return invalid(
            f"{len(broken)} test(s) passed with the test patch but fail with the fix (PASS->FAIL): {_listed(broken)}",
            broken,
        )
    if not any(t != PASS and f == PASS for _, t, f in transitions.values()):
        return invalid("no test went from not passing to passing")
    anomalous = [n for n, (r, t, f) in transitions.items() if t in (NONE, SKIP) and f == FAIL and r == PASS]
    if anomalous:
        return invalid(
            f"{len(anomalous)} anomalous test(s), PASS with no patch, NONE/SKIP with the test patch, FAIL with the fix: "
            f"{_listed(anomalous)}",
            anomalous,
        )
    return TransitionReport(True, "", transitions, sets)


@dataclass
class MswbGrade:
    report: TransitionReport
    groups: dict[str, TestGroup]
    resolved: bool


def grade(run: TestResult, test: TestResult, fix: TestResult, required: Mapping[str, list[str]]) -> MswbGrade:
    """Resolved iff the report is valid and every listed test shows its transition again.

    ``required`` maps ``p2p_tests``/``f2p_tests``/``s2p_tests``/``n2p_tests`` to the row's names.
    """
    report = transition_report(run, test, fix)
    groups: dict[str, TestGroup] = {}
    for row_field, before, group_name in GROUPS:
        group = TestGroup()
        achieved = report.sets.get(before, set())
        for name in required.get(row_field, []):
            (group.success if name in achieved else group.failure).append(name)
        groups[group_name] = group
    resolved = report.valid and not any(g.failure for g in groups.values())
    return MswbGrade(report, groups, resolved)


# --- the family ------------------------------------------------------------------------------------


def _number(row: Mapping[str, Any], row_id: str | None) -> int:
    value = row.get("number")
    if isinstance(value, bool) or value is None:
        raise RowError("number", "is missing (the pull request number)", row=row_id)
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().removeprefix("pr-").isdigit():
        return int(value.strip().removeprefix("pr-"))
    raise RowError("number", f"must be a pull request number, got {value!r}", row=row_id)


def problem_statement(row: Mapping[str, Any], row_id: str) -> str:
    """The resolved issues' titles and bodies; the pull request's own title and body when it lists none."""
    issues = _json_value(row.get("resolved_issues"), "resolved_issues", row_id)
    if hasattr(issues, "tolist") and not isinstance(issues, list):
        issues = issues.tolist()
    if issues is not None and not isinstance(issues, (list, tuple)):
        raise RowError(
            "resolved_issues", f"must be a list of issues, got {type(issues).__name__}", row=row_id
        )
    parts = [
        "\n".join(p for p in (str(issue.get("title") or ""), str(issue.get("body") or "")) if p)
        for issue in issues or []
        if isinstance(issue, Mapping)
    ]
    parts = [p for p in parts if p.strip()]
    if not parts:
        parts = [
            p
            for p in (optional_str(row, "title", row_id=row_id), optional_str(row, "body", row_id=row_id))
            if p
        ]
    return "\n\n".join(parts)


def image_name(org: str, repo: str, number: int, settings: BenchmarkSettings, instance_id: str) -> str:
    """``<namespace>/<org>_m_<repo>:pr-<number>`` lower-cased (``images.namespace``, default mswebench),
    or ``images.template`` with ``{org}``, ``{repo}``, ``{number}``, ``{instance_id}``."""
    template = settings.images.get("template")
    if template:
        return str(template).format(
            org=org, repo=repo, number=number, instance_id=instance_id, id=instance_id.lower()
        )
    namespace = settings.images.get("namespace", DEFAULT_NAMESPACE)
    name = f"{org}_m_{repo}:pr-{number}"
    return (f"{namespace}/{name}" if namespace else name).lower()


def eval_script(task: Task) -> str:
    """Check that the patches apply, then run the image's fix-run.sh between markers."""
    workdir = shlex.quote(task.workdir)
    return (
        "#!/bin/bash\n"
        f"cd {workdir} || exit 3\n"
        f'if [ ! -f {FIX_RUN} ]; then echo "{NO_FIX_RUN}"; exit {NO_FIX_RUN_EXIT}; fi\n'
        f'if git apply --check {TEST_PATCH} {FIX_PATCH} >/dev/null 2>&1; then echo "{APPLIES}"; '
        f'else echo "{DOES_NOT_APPLY}"; fi\n'
        f'echo "{FIX_RUN_START}"\n'
        f"bash {FIX_RUN}\n"
        f'echo "{FIX_RUN_END} $?"\n'
    )


def fix_run_log(log: str) -> tuple[str, int | None]:
    """The fix run's own output (after the start marker, up to the last end marker) and its exit code."""
    start = log.find(FIX_RUN_START)
    section = log[start + len(FIX_RUN_START) :] if start != -1 else ""
    end = section.rfind(FIX_RUN_END)
    if end == -1:
        return section, None
    code = re.match(r"\s*(-?\d+)", section[end + len(FIX_RUN_END) :])
    return section[:end], int(code.group(1)) if code else None


class MultiSweBenchFamily(BaseFamily):
    """Multi-SWE-bench rows (full, mini, flash): fix-run.sh in the row's image, transition grading."""

    name = FAMILY_NAME
    grader_version = GRADER_VERSION
    id_fields = ("org", "repo", "number", "instance_id")
    """Rows may lack ``instance_id``: ids are read from the row (``org__repo-number`` when absent)."""

    def row_id(self, row: Mapping[str, Any]) -> str | None:
        value = row.get("instance_id")
        if isinstance(value, str) and value:
            return value
        org, repo, number = row.get("org"), row.get("repo"), row.get("number")
        if isinstance(org, str) and isinstance(repo, str) and number is not None:
            return f"{org}__{repo}-{number}"
        return None

    def normalize(self, row: Mapping[str, Any], settings: BenchmarkSettings) -> Task:
        rid = self.row_id(row)
        org = require_str(row, "org", row_id=rid)
        repo = require_str(row, "repo", row_id=rid)
        number = _number(row, rid)
        instance_id = rid or f"{org}__{repo}-{number}"
        base = _json_value(row.get("base"), "base", instance_id)
        if base is not None and not isinstance(base, Mapping):
            raise RowError(
                "base",
                f"must be a mapping with label, ref and sha, got {type(base).__name__}",
                row=instance_id,
            )
        base_sha = (base or {}).get("sha")
        required = {row_field: tests_field(row, row_field, instance_id) for row_field, _, _ in GROUPS}
        run_result = result_field(row, "run_result", instance_id, required=True)
        test_result = result_field(row, "test_patch_result", instance_id, required=True)
        fix_result = result_field(row, "fix_patch_result", instance_id, required=False)
        task = Task(
            family=self.name,
            instance_id=instance_id,
            image=optional_str(row, "image", "docker_image", row_id=instance_id)
            or image_name(org, repo, number, settings, instance_id),
            workdir=f"/home/{repo}",
            repo=f"{org}/{repo}",
            base_commit=str(base_sha) if base_sha else None,
            problem_statement=problem_statement(row, instance_id),
            gold_patch=optional_str(row, "fix_patch", row_id=instance_id) or "",
            test_patch=require_str(row, "test_patch", row_id=instance_id),
            fail_to_pass=required["f2p_tests"],
            pass_to_pass=required["p2p_tests"],
            extra_required={"s2p_tests": required["s2p_tests"], "n2p_tests": required["n2p_tests"]},
            log_parser=parser_name(row, org, repo, settings, instance_id),
            hidden_paths=[FIX_PATCH, TEST_PATCH],
            created_at=created_at_str(row.get("created_at")),
            raw={
                "org": org,
                "number": number,
                "run_result": run_result.as_dict(),
                "test_patch_result": test_result.as_dict(),
                "fix_patch_result": fix_result.as_dict() if fix_result else None,
            },
        )
        task.eval_script = eval_script(task)
        return task

    def prepare_agent_sandbox(self, task: Task, sandbox: Sandbox, settings: BenchmarkSettings) -> None:
        """The images hold the gold fix and the tests at /home/fix.patch and /home/test.patch: remove them."""
        paths = " ".join(shlex.quote(p) for p in task.hidden_paths)
        result = sandbox.exec(f"rm -f -- {paths}", timeout=settings.timeouts.command, workdir="/")
        if result.exit_code != 0:
            raise InfraError("sandbox_error", f"cannot hide {paths} from the agent: {result.output[-500:]}")

    def evaluate(self, task: Task, patch: str, sandbox: Sandbox, ctx: EvalContext) -> Verdict:
        eval_script = task.required_eval_script()
        sandbox.write_file(TEST_PATCH, patch_bytes(task.test_patch or ""))
        sandbox.write_file(FIX_PATCH, patch_bytes(patch) if patch.strip() else b"")
        evaluation = grading.patch_and_run(
            task,
            patch,
            sandbox,
            ctx,
            eval_script,
            grader=self.grader_version,
            path=EVAL_SCRIPT_PATH,
            self_applying=True,
        )
        verdict, log = evaluation.verdict, evaluation.log
        if not evaluation.ran:
            return verdict
        if evaluation.exit_code == NO_FIX_RUN_EXIT and NO_FIX_RUN in log:
            raise InfraError("eval_error", f"the image {task.image} has no {FIX_RUN}")
        if verdict.patch_exists:
            verdict.patch_applied = APPLIES in log
            verdict.apply_method = "git apply (fix-run.sh)" if verdict.patch_applied else None
            if not verdict.patch_applied:
                verdict.reasons.append(
                    "the test patch and the patch do not apply together (git apply in fix-run.sh)"
                )
        fix_log, verdict.test_exit_code = fix_run_log(log)
        fix = PARSERS[task.log_parser or "pytest"](fix_log)
        run = _result(task.raw["run_result"])
        test = _result(task.raw["test_patch_result"])
        required = {"p2p_tests": task.pass_to_pass, "f2p_tests": task.fail_to_pass, **task.extra_required}
        graded = grade(run, test, fix, required)
        verdict.tests_status = graded.groups
        verdict.test_results = {
            name: _AS_TEST_STATUS[status]
            for name, (_, _, status) in graded.report.transitions.items()
            if status in _AS_TEST_STATUS
        }
        verdict.extra["fix_patch_counts"] = {k: v for k, v in fix.as_dict().items() if k.endswith("_count")}
        verdict.log_valid = bool(fix.names())
        if not graded.report.valid:
            verdict.reasons.append(graded.report.error)
        verdict.resolved = graded.resolved and verdict.patch_exists
        verdict.resolution = "RESOLVED_FULL" if verdict.resolved else "RESOLVED_NO"
        return verdict


def _result(record: Mapping[str, Any]) -> TestResult:
    return TestResult(set(record["passed_tests"]), set(record["failed_tests"]), set(record["skipped_tests"]))


FAMILY = MultiSweBenchFamily()


@pytest.hookimpl
def pytest_swe_families() -> list[Any]:
    return [FAMILY]
