"""The swe-bench-ext family: rows that name their own ``test_command`` and ``test_framework``.

It follows NeMo Gym's swe-bench-ext harness. The row's test command runs with the
framework's structured-output flag (JUnit XML or JSON written into ``/workspace/test-results``)
between the family's ``<<<SWE_BENCH_EXT_TEST_OUTPUT_START/END>>>`` markers, and the result file
is printed between ``<<<SWE_BENCH_EXT_RESULT_FILE_START/END>>>``. Grading reads the result file
when there is one, else the runner's console output (with the official log parser of that
runner), normalizes test ids on both sides and resolves a row iff every FAIL_TO_PASS test and
every PASS_TO_PASS test passed; a row without FAIL_TO_PASS tests never resolves.

Rows come flat (NeMo ``swe_env``: ``instance_id, image, base_commit, test_command, ...``) or
with their fields in an ``instance_dict`` (a JSON string or a mapping; NeMo ``swe_agents``);
top-level fields win over nested ones.
"""

from __future__ import annotations

import json
import re
import shlex
import xml.etree.ElementTree as ET
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from typing import TypedDict

import pytest

from pytest_swe import grading
from pytest_swe.api.errors import RowError
from pytest_swe.api.family import BaseFamily
from pytest_swe.api.family import EvalContext
from pytest_swe.api.sandbox import Sandbox
from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.api.task import Task
from pytest_swe.api.task import created_at_str
from pytest_swe.api.task import first_present
from pytest_swe.api.task import optional_str
from pytest_swe.api.task import require_str
from pytest_swe.api.task import test_list
from pytest_swe.api.verdict import TestGroup
from pytest_swe.api.verdict import TestStatus
from pytest_swe.api.verdict import Verdict

__all__ = ["FAMILY", "image_from_template", "repository_fields", "row_fields"]
"""What the NeMo Gym lineage shares. nv-internal reads its rows as this family does (flat, or
with an ``instance_dict``; images from ``images.template``; absolute workdirs) and imports only
these names from here."""

GRADER_VERSION = "pytest-swe/swe-bench-ext-grader-1 (NeMo Gym parse_and_check_tests semantics)"
FAMILY_NAME = "swe-bench-ext"
DEFAULT_WORKDIR = "/workspace/repo"
RESULTS_DIR = "/workspace/test-results"

TEST_OUTPUT_START = "<<<SWE_BENCH_EXT_TEST_OUTPUT_START>>>"
TEST_OUTPUT_END = "<<<SWE_BENCH_EXT_TEST_OUTPUT_END>>>"
RESULT_FILE_START = "<<<SWE_BENCH_EXT_RESULT_FILE_START>>>"
RESULT_FILE_END = "<<<SWE_BENCH_EXT_RESULT_FILE_END>>>"
EXIT_CODE_MARK = ">>>>> Test Exit Code:"
HEREDOC = "EOF_SWE_BENCH_EXT_TEST_PATCH"
TEST_APPLY = "git apply --reject --recount --ignore-space-change --ignore-whitespace"

FAIL_TO_PASS = "FAIL_TO_PASS"
PASS_TO_PASS = "PASS_TO_PASS"
NOT_FOUND = "NOT_FOUND"

StatusMap = dict[str, str]
_PASSED, _FAILED, _SKIPPED = TestStatus.PASSED.value, TestStatus.FAILED.value, TestStatus.SKIPPED.value


# --- rows ------------------------------------------------------------------------------------------


def row_fields(row: Mapping[str, Any], row_id: str | None = None) -> dict[str, Any]:
    """The row's fields with those of its ``instance_dict`` (if any) surfaced; top-level fields win."""
    nested = row.get("instance_dict")
    if nested is None:
        return dict(row)
    if isinstance(nested, str):
        try:
            nested = json.loads(nested) if nested.strip() else {}
        except json.JSONDecodeError as exc:
            raise RowError(
                "instance_dict", f"is not valid JSON: {exc.msg} at position {exc.pos}", row=row_id
            ) from None
    if not isinstance(nested, Mapping):
        raise RowError("instance_dict", f"must be a JSON object, got {type(nested).__name__}", row=row_id)
    return {**nested, **{k: v for k, v in row.items() if k != "instance_dict" and v is not None}}


def tests_field(fields: Mapping[str, Any], *names: str, row_id: str) -> list[str]:
    """The first non-empty test list among ``names`` (JSON string or list); errors name the field read."""
    for name in names:
        value = fields.get(name)
        if value is None:
            continue
        tests = test_list(value, name, row_id=row_id)
        if tests:
            return tests
    return []


def image_from_template(settings: BenchmarkSettings, row_id: str, **values: Any) -> str | None:
    """``images.template`` filled with the row's values (``{instance_id}``, ``{id}`` = lower-cased id)."""
    template = settings.images.get("template")
    if not template:
        return None
    try:
        return str(template).format(instance_id=row_id, id=row_id.lower(), **values)
    except (KeyError, IndexError) as exc:
        raise RowError(
            "image", f"images.template {template!r} names an unknown field {exc}", row=row_id
        ) from None


def absolute_workdir(value: str, field: str, row_id: str) -> str:
    if not value.startswith("/"):
        raise RowError(field, f"must be an absolute path, got {value!r}", row=row_id)
    return value.rstrip("/") or "/"


class RepositoryFields(TypedDict):
    """The task fields a NeMo Gym row gives as they are: where the repository is and what it holds."""

    workdir: str
    repo: str | None
    base_commit: str | None
    problem_statement: str
    gold_patch: str
    test_patch: str | None


def repository_fields(fields: Mapping[str, Any], workdir: str, row_id: str) -> RepositoryFields:
    """The repository's fields of a row, ``workdir`` (the row's ``repo_workdir`` or the family's
    default) checked to be absolute; the gold patch is ``patch`` or ``gold_patch``."""
    return RepositoryFields(
        workdir=absolute_workdir(workdir, "repo_workdir", row_id),
        repo=optional_str(fields, "repo", row_id=row_id),
        base_commit=optional_str(fields, "base_commit", row_id=row_id),
        problem_statement=optional_str(fields, "problem_statement", row_id=row_id) or "",
        gold_patch=optional_str(fields, "patch", "gold_patch", row_id=row_id) or "",
        test_patch=optional_str(fields, "test_patch", row_id=row_id),
    )


# --- frameworks ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Framework:
    """How one test framework reports: the flag that makes it write structured results, and readers."""

    name: str
    output_flag: str | None = None
    result_file: str | None = None
    """Where the structured results land (a glob; ``{workdir}`` is the repository), None: on stdout."""
    structured: Callable[[str], tuple[StatusMap, set[str]]] | None = None
    """Reads the structured results; returns statuses and the packages that failed as a whole."""
    console_parser: str | None = None
    """Official log parser of the runner's console output, the fallback when no structured results exist."""


def _strip_workdir(path: str) -> str:
    return re.sub(r"^/(?:testbed|app|workspace/repo|root/repo)/", "", path)


def parse_junit_xml(text: str) -> tuple[StatusMap, set[str]]:
    """Test cases of one or more JUnit XML documents (``classname::name``); a failure or error fails."""
    results: StatusMap = {}
    for chunk in re.split(r"(?=<\?xml)|^=== FILE: .* ===$", text, flags=re.M):
        start = min((i for i in (chunk.find("<testsuites"), chunk.find("<testsuite")) if i != -1), default=-1)
        if start == -1:
            continue
        closing = chunk.rfind("</testsuites>")
        end = (
            closing + len("</testsuites>")
            if closing != -1
            else chunk.rfind("</testsuite>") + len("</testsuite>")
        )
        try:
            root = ET.fromstring(chunk[start:end])
        except ET.ParseError:
            continue
        for case in root.iter("testcase"):
            classname, name = case.get("classname", ""), case.get("name", "")
            test_id = f"{classname}::{name}" if classname else name
            if case.find("failure") is not None or case.find("error") is not None:
                results[test_id] = _FAILED
            elif case.find("skipped") is not None:
                results[test_id] = _SKIPPED
            else:
                results[test_id] = _PASSED
    return results, set()


def parse_go_json(text: str) -> tuple[StatusMap, set[str]]:
    """``go test -json`` events (``package::Test``); a package that fails to build fails its tests."""
    results: StatusMap = {}
    failed_packages: set[str] = set()
    actions = {"pass": _PASSED, "fail": _FAILED, "skip": _SKIPPED}
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            build_failed = re.match(r"^FAIL\s+(\S+)\s+\[(?:build|setup) failed\]", line)
            if build_failed:
                failed_packages.add(build_failed.group(1))
            continue
        if not isinstance(event, dict) or event.get("Action") not in actions:
            continue
        package, test = event.get("Package", ""), event.get("Test")
        if test:
            results[f"{package}::{test}" if package else test] = actions[event["Action"]]
        elif event["Action"] == "fail" and package:
            failed_packages.add(package)
    return results, failed_packages


def _first_json_object(text: str, keys: tuple[str, ...]) -> Any:
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and any(k in value for k in keys):
            return value
    return None


def parse_jest_json(text: str) -> tuple[StatusMap, set[str]]:
    """Jest or Vitest ``--json`` reports: ``file::ancestor titles title``."""
    report = _first_json_object(text, ("testResults", "numTotalTests"))
    results: StatusMap = {}
    if not report:
        return results, set()
    for suite in report.get("testResults") or []:
        path = _strip_workdir(str(suite.get("name") or suite.get("testFilePath") or ""))
        for case in suite.get("assertionResults") or suite.get("testResults") or []:
            title = case.get("fullName") or " ".join([*case.get("ancestorTitles", []), case.get("title", "")])
            status = case.get("status")
            test_id = f"{path}::{title}" if path else title
            results[test_id] = _PASSED if status == "passed" else _FAILED if status == "failed" else _SKIPPED
    return results, set()


def parse_mocha_json(text: str) -> tuple[StatusMap, set[str]]:
    """Mocha's JSON reporter: tests by full title."""
    report = _first_json_object(text, ("passes", "failures", "pending"))
    results: StatusMap = {}
    if not report:
        return results, set()
    for key, status in (("pending", _SKIPPED), ("passes", _PASSED), ("failures", _FAILED)):
        for case in report.get(key) or []:
            results[case.get("fullTitle") or case.get("title", "")] = status
    return results, set()


def parse_gtest_json(text: str) -> tuple[StatusMap, set[str]]:
    """googletest's ``--gtest_output=json``: ``Suite.Test``."""
    report = _first_json_object(text, ("testsuites",))
    results: StatusMap = {}
    if not report:
        return results, set()
    for suite in report.get("testsuites") or []:
        for case in suite.get("testsuite") or []:
            test_id = f"{suite.get('name', '')}.{case.get('name', '')}"
            if case.get("failures"):
                results[test_id] = _FAILED
            elif case.get("result") == "SKIPPED" or case.get("status") == "NOTRUN":
                results[test_id] = _SKIPPED
            else:
                results[test_id] = _PASSED
    return results, set()


_NEXTEST_LINE = re.compile(
    r"^\s*(PASS|FAIL|SIGKILL|SIGSEGV|SIGABRT|TIMEOUT|SKIP)\s+\[\s*[\d.]+s\]\s+(\S+)\s+(\S+)"
)


def parse_nextest(text: str) -> tuple[StatusMap, set[str]]:
    """cargo-nextest's status lines: ``PASS [ 0.01s] crate module::test`` -> ``crate::module::test``."""
    results: StatusMap = {}
    for line in text.splitlines():
        match = _NEXTEST_LINE.match(line)
        if match:
            status, binary, test = match.groups()
            results[f"{binary}::{test}"] = (
                _PASSED if status == "PASS" else _SKIPPED if status == "SKIP" else _FAILED
            )
    return results, set()


_JUNIT_FLAG = f"--junitxml={RESULTS_DIR}/output.xml"
_JUNIT_FILE = f"{RESULTS_DIR}/output.xml"
_JSON_FILE = f"{RESULTS_DIR}/output.json"
_SUREFIRE = "{workdir}/target/surefire-reports/TEST-*.xml"

FRAMEWORKS: dict[str, Framework] = {
    f.name: f
    for f in (
        Framework("pytest", _JUNIT_FLAG, _JUNIT_FILE, parse_junit_xml, "parse_log_pytest"),
        Framework("unittest", _JUNIT_FLAG, _JUNIT_FILE, parse_junit_xml, "parse_log_pytest"),
        Framework("go", "-json", None, parse_go_json, "parse_log_gotest"),
        Framework("jest", f"--json --outputFile={_JSON_FILE}", _JSON_FILE, parse_jest_json, "parse_log_jest"),
        Framework(
            "vitest",
            f"--reporter=json --outputFile={_JSON_FILE}",
            _JSON_FILE,
            parse_jest_json,
            "parse_log_vitest",
        ),
        Framework(
            "mocha",
            f"--reporter json --reporter-options output={_JSON_FILE}",
            _JSON_FILE,
            parse_mocha_json,
            "parse_log_tap",
        ),
        Framework("junit", None, _SUREFIRE, parse_junit_xml, None),
        Framework("maven", None, _SUREFIRE, parse_junit_xml, None),
        Framework(
            "gtest", f"--gtest_output=json:{_JSON_FILE}", _JSON_FILE, parse_gtest_json, "parse_log_googletest"
        ),
        Framework("cargo-nextest", None, None, parse_nextest, "parse_log_cargo"),
        Framework(
            "ctest", f"--output-on-failure --output-junit {_JUNIT_FILE}", _JUNIT_FILE, parse_junit_xml, None
        ),
        Framework("busted", f"--output=junit -o {_JUNIT_FILE}", _JUNIT_FILE, parse_junit_xml, None),
        Framework("luaunit", f"-o junit -n {_JUNIT_FILE}", _JUNIT_FILE, parse_junit_xml, None),
        Framework("tap", None, None, None, "parse_log_tap"),
        Framework("tape", None, None, None, "parse_log_tap"),
    )
}
ALIASES = {"cargo_nextest": "cargo-nextest"}
AUTO = Framework("", None, None, None, None)
"""An empty ``test_framework``: no flags are added and the output's format is detected."""
AUTO_CONSOLE_PARSERS = ("parse_log_pytest", "parse_log_gotest", "parse_log_cargo", "parse_log_tap")


def framework_for(name: str, *, row_id: str | None = None) -> Framework:
    """The framework a row names; an unknown name is a row error that lists the known ones."""
    if not name:
        return AUTO
    key = ALIASES.get(name, name)
    if key not in FRAMEWORKS:
        known = ", ".join(sorted(FRAMEWORKS))
        raise RowError(
            "test_framework", f"unknown test framework {name!r} (known: {known}, or empty)", row=row_id
        )
    return FRAMEWORKS[key]


def is_shell_script(command: str) -> bool:
    """A command that runs a script, which would not pass extra flags on to the runner."""
    words = command.strip().split()
    first = words[0] if words else ""
    if first.startswith(("./", "/")):
        return first.endswith(".sh")
    if first in ("bash", "sh", "zsh"):
        return True
    if "npm run" in command or "yarn run" in command:
        return not any(
            f"run {runner}" in command for runner in ("jest", "vitest", "mocha", "ava", "tap", "tape")
        )
    return False


def command_with_output(command: str, framework: Framework) -> str:
    """The test command with the framework's structured-output flag (scripts are left alone)."""
    if framework.output_flag and not is_shell_script(command):
        return f"{command} {framework.output_flag}"
    return command


# --- the eval script --------------------------------------------------------------------------------

_DIFF_HEADER = re.compile(r"^diff --git a/(\S+) b/(\S+)$", re.M)


def patch_paths(patch: str) -> tuple[list[str], list[str]]:
    """Files a diff changes that exist before it (to reset), and files it creates (to remove first)."""
    existing: list[str] = []
    created: list[str] = []
    headers = list(_DIFF_HEADER.finditer(patch))
    for i, header in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(patch)
        body = patch[header.end() : end]
        if re.search(r"^new file mode ", body, re.M):
            created.append(header.group(2))
        else:
            existing.append(header.group(1))
    return existing, created


def eval_script(task: Task, framework: Framework) -> str:
    """Reset the test patch's files, apply it, run the command between the markers, print the results."""
    workdir = shlex.quote(task.workdir)
    lines = ["#!/bin/bash", "set -o pipefail", f"cd {workdir} || exit 3"]
    test_patch = task.test_patch or ""
    if test_patch.strip():
        existing, created = patch_paths(test_patch)
        if existing and task.base_commit:
            files = " ".join(shlex.quote(p) for p in existing)
            lines.append(f"git checkout -q {shlex.quote(task.base_commit)} -- {files} 2>/dev/null")
        if created:
            lines.append("rm -f -- " + " ".join(shlex.quote(p) for p in created))
        body = test_patch if test_patch.endswith("\n") else test_patch + "\n"
        lines.append(f"{TEST_APPLY} - <<'{HEREDOC}'\n{body}{HEREDOC}")
    result_file = (framework.result_file or "").replace("{workdir}", task.workdir.rstrip("/"))
    lines += [
        f"rm -rf {RESULTS_DIR} && mkdir -p {RESULTS_DIR}",
        f'echo "{TEST_OUTPUT_START}"',
        command_with_output(task.test_cmds[0], framework),
        "test_exit_code=$?",
    ]
    if result_file:
        lines += [
            f'echo "{RESULT_FILE_START}"',
            f"for f in {result_file}; do",
            '    if [ -f "$f" ]; then echo "=== FILE: $f ==="; cat "$f"; echo; fi',
            "done 2>/dev/null",
            f'echo "{RESULT_FILE_END}"',
        ]
    lines += [f'echo "{TEST_OUTPUT_END}"', f'echo "{EXIT_CODE_MARK} $test_exit_code"']
    return "\n".join(lines) + "\n"


# --- reading the output ----------------------------------------------------------------------------


@dataclass
class ParsedOutput:
    statuses: StatusMap
    failed_packages: set[str]
    source: str
    """``result-file``, ``console``, or ``none`` (no results found)."""
    markers: bool = True
    exit_code: int | None = None


def _official_parser(name: str) -> Callable[[str], StatusMap]:
    from pytest_swe.families.logparsers import ParseContext
    from pytest_swe.families.logparsers import get_parser
    from pytest_swe.families.logparsers import strip_ansi

    parser = get_parser(name)
    return lambda text: parser(strip_ansi(text), ParseContext())


def parse_output(log: str, framework: Framework) -> ParsedOutput:
    """Statuses from the result file when it holds any, else from the console output."""
    exit_match = re.search(rf"^{re.escape(EXIT_CODE_MARK)} (-?\d+)", log, re.M)
    exit_code = int(exit_match.group(1)) if exit_match else None
    start = log.find(TEST_OUTPUT_START)
    end = log.rfind(TEST_OUTPUT_END)
    if start == -1 or end < start:
        return ParsedOutput({}, set(), "none", markers=False, exit_code=exit_code)
    section = log[start + len(TEST_OUTPUT_START) : end]
    # The family prints the result block after the command ends: the last block is the real one.
    block_start = section.rfind(RESULT_FILE_START)
    block_end = section.find(RESULT_FILE_END, block_start) if block_start != -1 else -1
    console, block = section, ""
    if block_start != -1 and block_end != -1:
        console, block = section[:block_start], section[block_start + len(RESULT_FILE_START) : block_end]
    if framework is AUTO:
        return _detect(console, block, exit_code)
    if framework.structured is not None:
        text = block if framework.result_file else console
        if text.strip():
            statuses, failed = framework.structured(text)
            if statuses or failed:
                return ParsedOutput(
                    statuses,
                    failed,
                    "result-file" if framework.result_file else "console",
                    exit_code=exit_code,
                )
    if framework.console_parser:
        statuses = _official_parser(framework.console_parser)(console)
        if statuses:
            return ParsedOutput(statuses, set(), "console", exit_code=exit_code)
    return ParsedOutput({}, set(), "none", exit_code=exit_code)


def _detect(console: str, block: str, exit_code: int | None) -> ParsedOutput:
    for text in (block, console):
        if "<testsuite" in text:
            statuses, failed = parse_junit_xml(text)
            if statuses:
                return ParsedOutput(
                    statuses, failed, "result-file" if text is block else "console", exit_code=exit_code
                )
    statuses, failed = parse_go_json(console)
    if statuses:
        return ParsedOutput(statuses, failed, "console", exit_code=exit_code)
    for name in AUTO_CONSOLE_PARSERS:
        statuses = _official_parser(name)(console)
        if statuses:
            return ParsedOutput(statuses, set(), "console", exit_code=exit_code)
    return ParsedOutput({}, set(), "none", exit_code=exit_code)


# --- test ids and grading -------------------------------------------------------------------------

_RUN_ORDER_PREFIX = (
    re.compile(r"^[\(\[]?\s*\d+/\d+[\)\]]?\s+"),  # "(2/5) name", "[2/5] name"
    re.compile(r"^#\s*\d+\s+"),  # "#42 name"
    re.compile(r"^\d+\.\s+"),  # "1. name"
)
_SOURCE_EXTENSION = re.compile(
    r"\.(py|pyw|js|mjs|cjs|ts|mts|cts|jsx|tsx|go|java|rb|rs|c|cpp|cc|cxx|h|hpp|hxx|swift|kt|kts|scala|php|cs|fs"
    r"|ex|exs|erl|hrl|clj|cljs|cljc|lua|pl|pm|t|r|m|mm|f|f90|f95|for|vb|pas|pp|d|nim|zig|v|sv|vhd|vhdl"
    r"|tcl|sh|bash|zsh|fish|ps1|psm1|psd1)(?=::|/|\.|$)",
    re.IGNORECASE,
)
_DELIMITER = re.compile(r"(?<=\w)(::|\.|/)(?=\w)")


def normalize_test_id(test_id: str) -> str:
    """One spelling for ids from different reporters.

    Drops run-order prefixes (``(2/5)``, ``#4``, ``1.``), source-file extensions before a
    delimiter, and writes ``.``, ``/`` and ``::`` between word characters as ``::``, so
    ``tests/test_a.py::T::t`` (the row) and ``tests.test_a.T::t`` (JUnit XML) meet.
    """
    normalized = test_id.strip()
    for prefix in _RUN_ORDER_PREFIX:
        normalized = prefix.sub("", normalized)
    normalized = _SOURCE_EXTENSION.sub("", normalized)
    return _DELIMITER.sub("::", normalized)


def match_status(expected: str, parsed: Mapping[str, str], failed_packages: set[str]) -> str:
    """The status of one (normalized) expected id among the (normalized) parsed ones.

    An exact match wins; a test in a package that failed as a whole failed; otherwise one
    reported id that ends with the expected one (or the other way round) on a ``::`` boundary
    decides, when all such ids agree. Anything else is ``NOT_FOUND``.
    """
    if expected in parsed:
        return parsed[expected]
    if any(expected == pkg or expected.startswith(pkg + "::") for pkg in failed_packages):
        return _FAILED
    statuses = {
        status
        for test_id, status in parsed.items()
        if test_id.endswith("::" + expected) or expected.endswith("::" + test_id)
    }
    return statuses.pop() if len(statuses) == 1 else NOT_FOUND


@dataclass
class ExtReport:
    groups: dict[str, TestGroup]
    statuses: dict[str, str]
    """Expected test (as the row spells it) -> status found (``NOT_FOUND`` when absent)."""
    resolved: bool


def grade(parsed: ParsedOutput, fail_to_pass: list[str], pass_to_pass: list[str]) -> ExtReport:
    """Resolved iff the row has FAIL_TO_PASS tests and every F2P and P2P test PASSED."""
    normalized = {normalize_test_id(k): v for k, v in parsed.statuses.items()}
    packages = {normalize_test_id(p) for p in parsed.failed_packages}
    statuses: dict[str, str] = {}
    groups: dict[str, TestGroup] = {}
    for name, tests in ((FAIL_TO_PASS, fail_to_pass), (PASS_TO_PASS, pass_to_pass)):
        group = TestGroup()
        for test in tests:
            status = match_status(normalize_test_id(test), normalized, packages)
            statuses[test] = status
            (group.success if status == _PASSED else group.failure).append(test)
        groups[name] = group
    resolved = bool(fail_to_pass) and not groups[FAIL_TO_PASS].failure and not groups[PASS_TO_PASS].failure
    return ExtReport(groups, statuses, resolved)


# --- the family ------------------------------------------------------------------------------------


class SweBenchExtFamily(BaseFamily):
    """swe-bench-ext rows: a test command per row, structured results preferred over the console."""

    name = FAMILY_NAME
    grader_version = GRADER_VERSION

    def normalize(self, row: Mapping[str, Any], settings: BenchmarkSettings) -> Task:
        instance_id = require_str(row, "instance_id")
        rid = instance_id
        fields = row_fields(row, rid)
        framework_name = optional_str(fields, "test_framework", row_id=rid) or ""
        framework = framework_for(framework_name, row_id=rid)
        image = optional_str(
            fields, "image", "docker_image", "image_name", row_id=rid
        ) or image_from_template(settings, rid)
        if not image:
            raise RowError(
                "image", "is missing (no image, docker_image or image_name, and no images.template)", row=rid
            )
        workdir = optional_str(fields, "repo_workdir", "workdir", row_id=rid) or DEFAULT_WORKDIR
        task = Task(
            family=self.name,
            instance_id=instance_id,
            image=image,
            **repository_fields(fields, workdir, rid),
            fail_to_pass=tests_field(fields, "fail_to_pass", "FAIL_TO_PASS", row_id=rid),
            pass_to_pass=tests_field(fields, "pass_to_pass", "PASS_TO_PASS", row_id=rid),
            test_cmds=[require_str(fields, "test_command", row_id=rid)],
            log_parser=f"{FAMILY_NAME}:{framework.name or 'auto'}",
            eval_env={"GIT_PAGER": "cat"},
            created_at=created_at_str(first_present(fields, "created_at")),
            raw={"test_framework": framework.name},
        )
        task.eval_script = eval_script(task, framework)
        return task

    def evaluate(self, task: Task, patch: str, sandbox: Sandbox, ctx: EvalContext) -> Verdict:
        eval_script = task.required_eval_script()
        framework = framework_for(task.raw.get("test_framework", ""))
        run = grading.patch_and_run(task, patch, sandbox, ctx, eval_script, grader=self.grader_version)
        verdict = run.verdict
        if not run.ran:
            return verdict
        parsed = parse_output(run.log, framework)
        report = grade(parsed, task.fail_to_pass, task.pass_to_pass)
        verdict.test_exit_code = parsed.exit_code
        verdict.tests_status = report.groups
        verdict.test_results = {
            **{normalize_test_id(k): v for k, v in parsed.statuses.items()},
            **{k: v for k, v in report.statuses.items() if v != NOT_FOUND},
        }
        verdict.extra["results_source"] = parsed.source
        verdict.log_valid = parsed.source != "none"
        if not parsed.markers:
            verdict.reasons.append(
                "the test output markers are missing (the eval script did not run to the end)"
            )
        elif not verdict.log_valid:
            verdict.reasons.append(
                "no test results: neither a result file nor console output the parser reads"
            )
        if not task.fail_to_pass:
            verdict.reasons.append("the row lists no FAIL_TO_PASS tests, so it cannot resolve")
        f2p, p2p = report.groups[FAIL_TO_PASS], report.groups[PASS_TO_PASS]
        if report.resolved and verdict.patch_exists:
            verdict.resolution = "RESOLVED_FULL"
        elif f2p.success and f2p.failure and not p2p.failure:
            verdict.resolution = "RESOLVED_PARTIAL"
        verdict.resolved = report.resolved and verdict.patch_exists
        return verdict


FAMILY = SweBenchExtFamily()


@pytest.hookimpl
def pytest_swe_families() -> list[Any]:
    return [FAMILY]
