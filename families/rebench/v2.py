"""SWE-rebench V2: rows in about twenty languages, each naming the parser that reads its whole log.

The image is the row's ``image_name``, the repository sits at ``/<repo name>``, the test commands
are a list and the log has no markers. A row is resolved when every FAIL_TO_PASS and PASS_TO_PASS
test is PASSED, after both sides drop timing suffixes from test names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from collections.abc import Mapping
from typing import Any

from pytest_swe import grading
from pytest_swe.api.errors import RowError
from pytest_swe.api.family import BaseFamily
from pytest_swe.api.family import EvalContext
from pytest_swe.api.patch import patch_bytes
from pytest_swe.api.sandbox import Sandbox
from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.api.task import Task
from pytest_swe.api.task import created_at_str
from pytest_swe.api.task import json_mapping
from pytest_swe.api.task import optional_str
from pytest_swe.api.task import require_str
from pytest_swe.api.task import str_list
from pytest_swe.api.verdict import TestGroup
from pytest_swe.api.verdict import TestStatus
from pytest_swe.api.verdict import Verdict
from pytest_swe.families.swebench import EMPTY_F2P_REASON
from pytest_swe.grading.patching import DIFF_DIR

from .rows import FAIL_TO_PASS
from .rows import PASS_TO_PASS
from .rows import parse_context
from .rows import problem_fields

V2_GRADER = "pytest-swe/swe-rebench-v2-grader-1 (F2P and P2P subset of PASSED, timing-normalised names)"
V2_ENV = {"_JAVA_OPTIONS": "-Djava.net.preferIPv6Addresses=false"}
V2_TEST_PATCH_PATH = f"{DIFF_DIR}/test_patch.diff"
V2_TEST_PATCH_APPLY = "git apply -v --3way --recount --ignore-space-change --whitespace=nowarn"
TEST_PATCH_FAILED = ">>>>> Test Patch Apply Failed"
# The model patch goes through the usual fallback chain, led by the lenient form upstream applies.
V2_APPLY_COMMANDS = (
    "git apply --verbose {path}",
    "git apply --verbose --recount --ignore-space-change --whitespace=nowarn {path}",
    "git apply --verbose --reject {path}",
    "patch --batch --fuzz=5 -p1 -i {path}",
)

# Every name upstream's NAME_TO_PARSER registers (lib/agent/log_parsers.py). V2's own readers (the
# V2-only names, and shared names V2 reads differently) are in .v2parsers; the other names
# are read by the shared SWE-bench parsers. A row naming any of these is well formed.
V2_PARSER_NAMES = frozenset(
    {
        "parse_log_pytest",
        "parse_log_pytest_options",
        "parse_log_pytest_v2",
        "parse_log_pytest_nebo",
        "parse_combined_test_reports",
        "parse_log_gotest",
        "parse_log_redis",
        "parse_log_jq",
        "parse_log_doctest",
        "parse_log_micropython_test",
        "parse_log_googletest",
        "parse_log_minitest",
        "parse_log_cucumber",
        "parse_log_ruby_unit",
        "parse_log_rspec_transformed_json",
        "parse_log_cargo",
        "parse_log_phpunit",
        "parse_log_maven",
        "parse_log_ant",
        "parse_log_gradle_custom",
        "parse_log_calypso",
        "parse_log_chart_js",
        "parse_log_marked",
        "parse_log_p5js",
        "parse_log_react_pdf",
        "parse_log_jest",
        "parse_log_jest_json",
        "parse_log_vitest",
        "parse_log_karma",
        "parse_log_tap",
        "parse_log_elixir",
        "parse_log_ruby_v1",
        "parse_log_cpp",
        "parse_log_cpp_v2",
        "parse_log_cpp_v3",
        "parse_log_cpp_v4",
        "parse_lue_nvim",
        "parse_lua_nvim",
        "parse_log_lua_nvim",
        "parse_java_mvn",
        "parse_log_java_mvn",
        "parse_java_mvn_v2",
        "parse_log_java_mvn_v2",
        "parse_log_php_v1",
        "parse_log_ruby_v2",
        "parse_log_haskell",
        "parse_log_haskell_v2",
        "parse_log_js",
        "parse_log_js_2",
        "parse_log_js_3",
        "parse_log_js_4",
        "parse_log_gradlew_v1",
        "parse_log_julia",
        "parse_log_npx",
        "parse_log_r",
        "parse_log_r_v2",
        "parse_log_lein",
        "parse_log_dart",
        "parse_log_dart_v2",
        "parse_log_dart_v3",
        "parse_log_scala",
        "parse_log_scala_v2",
        "parse_log_scala_v3",
        "parse_log_ocaml",
        "parse_log_ocaml_v2",
        "parse_log_ocaml_v3",
        "parse_log_ocaml_v4",
        "parse_log_ocaml_v5",
        "parse_log_sbt",
        "parse_log_junit",
        "parse_logs_r_junit",
        "parse_logs_kotlin_junit",
        "parse_log_r_junit",
        "parse_log_kotlin_junit",
        "parse_log_swift",
        "parse_log_csharp",
    }
)

# Timing that some runners print inside test names (upstream scripts/eval.py): "[1.34 ms]",
# " in 29.08 msec", "(1.2s)". Stripped from parsed and expected names alike.
_TIMING_PATTERNS = (
    re.compile(r"\s*\[\s*\d+(?:\.\d+)?\s*(?:ms|s)\s*\]\s*$", re.IGNORECASE),
    re.compile(r"\s+in\s+\d+(?:\.\d+)?\s+(?:msec|sec)\b", re.IGNORECASE),
    re.compile(r"\s*\(\s*\d+(?:\.\d+)?\s*(?:ms|s)\s*\)\s*$", re.IGNORECASE),
)


def normalize_test_name(name: str) -> str:
    """A test name without the timing a run printed into it, so runs compare by test, not by speed."""
    for pattern in _TIMING_PATTERNS:
        name = pattern.sub("", name)
    return name.strip()


def v2_parser_available(name: str) -> bool:
    from pytest_swe.families.logparsers import PARSERS

    from .v2parsers import v2_parser

    return v2_parser(name) is not None or name in PARSERS


def resolve_v2_parser(name: Any, row_id: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise RowError("install_config.log_parser", "is missing or empty", row=row_id)
    stripped: str = name.strip()
    if v2_parser_available(stripped):
        return stripped
    from pytest_swe.families.logparsers import get_parser

    try:
        get_parser(stripped)
    except KeyError as exc:
        raise RowError(
            "install_config.log_parser", f"{exc}; nor does SWE-rebench V2 register it", row=row_id
        ) from None
    return stripped


def v2_eval_script(test_cmds: Iterable[str]) -> str:
    """Upstream's ``run_in_container`` script after the model patch: ``set -e``, the test patch with
    upstream's lenient ``git apply``, then each test command. ``git add -A`` first, because
    ``--3way`` implies ``--index`` and upstream applied the model patch to the index as well."""
    lines = [
        "set -e",
        "git add -A",
        f"{V2_TEST_PATCH_APPLY} {V2_TEST_PATCH_PATH} || {{ echo '{TEST_PATCH_FAILED}'; exit 1; }}",
        *test_cmds,
    ]
    return "\n".join(lines) + "\n"


def grade_subset(
    status_map: Mapping[str, str], fail_to_pass: Iterable[str], pass_to_pass: Iterable[str]
) -> tuple[dict[str, str], dict[str, TestGroup]]:
    """V2's rule: each required test is met iff its (timing-normalized) name is PASSED.

    Returns the normalized status map and the F2P/P2P groups; later duplicates of a name after
    normalization win, as upstream's dict comprehension does.
    """
    normalized = {normalize_test_name(name): status for name, status in status_map.items()}
    passed = {name for name, status in normalized.items() if status == TestStatus.PASSED.value}
    groups: dict[str, TestGroup] = {}
    for group_name, tests in ((FAIL_TO_PASS, fail_to_pass), (PASS_TO_PASS, pass_to_pass)):
        group = TestGroup()
        for test in tests:
            (group.success if normalize_test_name(test) in passed else group.failure).append(test)
        groups[group_name] = group
    return normalized, groups


def v2_resolved(groups: Mapping[str, TestGroup]) -> bool:
    """Resolved iff F2P is non-empty and F2P and P2P hold no failure (an empty F2P never resolves)."""
    f2p, p2p = groups[FAIL_TO_PASS], groups[PASS_TO_PASS]
    return f2p.total > 0 and not f2p.failure and not p2p.failure


class RebenchV2Family(BaseFamily):
    """SWE-rebench V2 rows: many languages, per-row image and workdir, subset grading."""

    name = "swe-rebench-v2"
    grader_version = V2_GRADER

    def normalize(self, row: Mapping[str, Any], settings: BenchmarkSettings) -> Task:
        instance_id = require_str(row, "instance_id")
        rid = instance_id
        repo = require_str(row, "repo", row_id=rid)
        owner, _, name = repo.partition("/")
        if not owner or not name or "/" in name:
            raise RowError("repo", f"must be 'owner/name', got {repo!r}", row=rid)
        image = require_str(row, "image_name", row_id=rid).strip()
        test_patch = require_str(row, "test_patch", row_id=rid)
        config = json_mapping(row.get("install_config"), "install_config", row_id=rid)
        if not config:
            raise RowError(
                "install_config",
                "is missing or empty: it names the test commands and the log parser",
                row=rid,
            )
        test_cmds = [
            c for c in str_list(config.get("test_cmd"), "install_config.test_cmd", row_id=rid) if c.strip()
        ]
        if not test_cmds:
            raise RowError("install_config.test_cmd", "is missing or empty", row=rid)
        parser = resolve_v2_parser(config.get("log_parser"), rid)
        language = optional_str(row, "language", row_id=rid)
        return Task(
            family=self.name,
            instance_id=instance_id,
            image=image,
            workdir=f"/{name}",
            repo=repo,
            base_commit=optional_str(row, "base_commit", row_id=rid),
            test_patch=test_patch,
            **problem_fields(row, rid),
            install_cmds=str_list(config.get("install"), "install_config.install", row_id=rid),
            test_cmds=test_cmds,
            eval_script=v2_eval_script(test_cmds),
            log_parser=parser,
            eval_env=dict(V2_ENV),
            created_at=created_at_str(row.get("created_at")),
            raw={"language": language or ""},
        )

    def evaluate(self, task: Task, patch: str, sandbox: Sandbox, ctx: EvalContext) -> Verdict:
        eval_script = task.required_eval_script()
        sandbox.write_file(V2_TEST_PATCH_PATH, patch_bytes(task.test_patch or ""))
        run = grading.patch_and_run(
            task,
            patch,
            sandbox,
            ctx,
            eval_script,
            grader=self.grader_version,
            commands=V2_APPLY_COMMANDS,
        )
        if not run.ran:
            return run.verdict
        run.verdict.test_exit_code = run.exit_code
        return grade_v2_log(task, run.log, run.verdict)

    def regrade(self, task: Task, log: str, verdict: Verdict, settings: BenchmarkSettings) -> Verdict:
        return grading.regrade(verdict, self.grader_version, lambda fresh: grade_v2_log(task, log, fresh))


def grade_v2_log(task: Task, log: str, verdict: Verdict) -> Verdict:
    """V2 grading of a whole eval log (there are no markers): the row's parser, V2's own reading
    first, then the subset rule."""
    from pytest_swe.families.logparsers import LogParseError
    from pytest_swe.families.logparsers import get_parser

    from .v2parsers import v2_parser

    status_map: dict[str, str] = {}
    if TEST_PATCH_FAILED in log:
        verdict.log_valid = False
        verdict.reasons.append("the test patch did not apply on top of the patch")
    else:
        try:
            name = task.log_parser or "parse_log_pytest"
            own = v2_parser(name)
            status_map = own(log) if own is not None else get_parser(name)(log, parse_context(task))
        except LogParseError as exc:
            verdict.log_valid = False
            verdict.reasons.append(f"the {task.log_parser} parser cannot read the log: {exc}")
    verdict.test_results, verdict.tests_status = grade_subset(
        status_map, task.fail_to_pass, task.pass_to_pass
    )
    if not task.fail_to_pass:
        verdict.reasons.append(EMPTY_F2P_REASON)
    verdict.resolved = verdict.patch_exists and verdict.log_valid and v2_resolved(verdict.tests_status)
    verdict.resolution = "RESOLVED_FULL" if verdict.resolved else "RESOLVED_NO"
    return verdict


V2_FAMILY = RebenchV2Family()
