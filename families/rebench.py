"""SWE-rebench, in its two shapes: V1 (``nebius/SWE-rebench``) and V2 (``nebius/SWE-rebench-V2``).

V1 rows are SWE-bench rows that carry their own specs: ``install_config`` names the test command,
the install step and the log parser, as the SWE-rebench fork of the SWE-bench harness reads them.
Each instance has its own image, ``swerebench/sweb.eval.x86_64.<id, __ -> _1776_>``, with the conda
env ``testbed`` at ``/testbed``, and grading is SWE-bench's (F2P and P2P all pass).

V2 rows span about twenty languages. The image is the row's ``image_name``, the repository sits at
``/<repo name>``, the test commands are a list and the log has no markers: the parser named by
``install_config.log_parser`` reads all of it. A row is resolved when every FAIL_TO_PASS and
PASS_TO_PASS test is PASSED, after both sides drop timing suffixes from test names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest

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
from pytest_swe.api.task import test_list
from pytest_swe.api.verdict import TestGroup
from pytest_swe.api.verdict import TestStatus
from pytest_swe.api.verdict import Verdict
from pytest_swe.families.swebench.grading import EMPTY_F2P_REASON
from pytest_swe.grading import patch_and_run
from pytest_swe.grading.patching import DIFF_DIR

FAIL_TO_PASS = "FAIL_TO_PASS"
PASS_TO_PASS = "PASS_TO_PASS"


def required_tests(row: Mapping[str, Any], upper: str, row_id: str) -> list[str]:
    """A test list from its UPPERCASE or lowercase column, whichever is non-empty.

    Reading only one spelling and finding it empty would make every patch pass a subset rule
    (the reward-inflation trap), so an empty list never hides a filled one. When both are filled
    the UPPERCASE column, the published one, wins.
    """
    upper_tests = test_list(row.get(upper), upper, row_id=row_id)
    lower = upper.lower()
    lower_tests = test_list(row.get(lower), lower, row_id=row_id)
    return upper_tests or lower_tests


# --- V1 ----------------------------------------------------------------------------------------

V1_GRADER = "pytest-swe/swe-rebench-grader-1 (SWE-rebench SWE-bench-fork semantics)"
LANG_PREFIX = "LANG=C.UTF-8 LC_ALL=C.UTF-8 "
HEREDOC_DELIMITER = "EOF_114329324912"
V1_REPO_DIR = "/testbed"
V1_IMAGE_NAMESPACE = "swerebench"
CONDA_ACTIVATE = ("source /opt/miniconda3/bin/activate", "conda activate testbed")
# The fork drops test-patch paths with these endings from the test directives ("csv" has no dot upstream).
NON_TEST_EXTS = (".json", ".png", "csv", ".txt", ".md", ".jpg", ".jpeg", ".pkl", ".yml", ".yaml", ".toml")
_DIFF_GIT_TARGET = re.compile(r"diff --git a/.* b/(.*)")


@dataclass(frozen=True)
class RebenchSpecs:
    """The parts of a V1 ``install_config`` the eval script and the grader use, cleaned as the fork does."""

    test_cmd: str
    log_parser: str
    install: tuple[str, ...] = ()
    eval_commands: tuple[str, ...] = ()


def read_v1_specs(row: Mapping[str, Any], row_id: str) -> RebenchSpecs:
    """``install_config`` as the fork's loader leaves it: None values dropped, commands prefixed
    with ``LANG=C.UTF-8 LC_ALL=C.UTF-8``; a list ``test_cmd`` counts by its last entry."""
    config = json_mapping(row.get("install_config"), "install_config", row_id=row_id)
    config = {key: value for key, value in config.items() if value is not None}
    if not config:
        raise RowError(
            "install_config", "is missing or empty: it names the test command and the log parser", row=row_id
        )
    raw_cmd = config.get("test_cmd")
    commands = str_list(raw_cmd, "install_config.test_cmd", row_id=row_id)
    commands = [c for c in commands if c.strip()]
    if not commands:
        raise RowError("install_config.test_cmd", "is missing or empty", row=row_id)
    parser = config.get("log_parser")
    if not isinstance(parser, str) or not parser.strip():
        raise RowError("install_config.log_parser", "is missing or empty", row=row_id)
    install = (
        str_list(config.get("install"), "install_config.install", row_id=row_id)
        if "install" in config
        else []
    )
    return RebenchSpecs(
        test_cmd=LANG_PREFIX + commands[-1],
        log_parser=resolve_v1_parser(parser.strip(), row_id),
        install=tuple(LANG_PREFIX + command for command in install) if "install" in config else (),
        eval_commands=tuple(
            str_list(config.get("eval_commands"), "install_config.eval_commands", row_id=row_id)
        ),
    )


def resolve_v1_parser(name: str, row_id: str) -> str:
    """The fork registers its parsers by repository and by three names; both are accepted."""
    from pytest_swe.families.logparsers import get_parser
    from pytest_swe.families.logparsers import parser_name_for_repo

    if "/" in name:
        by_repo = parser_name_for_repo(name)
        if by_repo:
            return by_repo
        raise RowError(
            "install_config.log_parser", f"names repository {name!r}, which has no known parser", row=row_id
        )
    try:
        get_parser(name)
    except KeyError as exc:
        raise RowError("install_config.log_parser", str(exc), row=row_id) from None
    return name


def v1_test_directives(test_patch: str, repo: str) -> list[str]:
    """The fork's ``get_test_directives``: test-patch paths minus data files; Django wants modules."""
    directives = [path for path in _DIFF_GIT_TARGET.findall(test_patch) if not path.endswith(NON_TEST_EXTS)]
    if repo == "django/django":
        modules = []
        for path in directives:
            path = path.removesuffix(".py")
            path = path.removeprefix("tests/")
            modules.append(path.replace("/", "."))
        directives = modules
    return directives


def v1_eval_script(*, repo: str, base_commit: str, test_patch: str, specs: RebenchSpecs) -> str:
    """The fork's ``make_eval_script_list_py``, line for line."""
    from pytest_swe.families.swebench.evalscript import modified_paths

    reset = f"git checkout {base_commit} {' '.join(modified_paths(test_patch))}"
    test_command = " ".join([specs.test_cmd, *v1_test_directives(test_patch, repo)])
    lines = [
        "#!/bin/bash",
        "set -uxo pipefail",
        *CONDA_ACTIVATE,
        f"cd {V1_REPO_DIR}",
        *specs.eval_commands,
        f"git config --global --add safe.directory {V1_REPO_DIR}",
        f"cd {V1_REPO_DIR}",
        "git status",
        "git show",
        f"git -c core.fileMode=false diff {base_commit}",
        *CONDA_ACTIVATE,
        *specs.install,
        reset,
        f"git apply -v - <<'{HEREDOC_DELIMITER}'\n{test_patch}\n{HEREDOC_DELIMITER}",
        ": '>>>>> Start Test Output'",
        test_command,
        ": '>>>>> End Test Output'",
        reset,
    ]
    return "\n".join(lines) + "\n"


def v1_image(row: Mapping[str, Any], instance_id: str, settings: BenchmarkSettings) -> str:
    """The row's image column if it has one (the ``filtered`` split does), else the name the fork's
    ``--namespace swerebench`` gives; ``images.template`` / ``images.namespace`` point elsewhere."""
    from pytest_swe.families.swebench.images import official_image_name

    named = optional_str(row, "docker_image", "image_name", "image", row_id=instance_id)
    if named and named.strip():
        return named.strip()
    options = settings.images
    template = options.get("template")
    if template:
        return str(template).format(instance_id=instance_id, id=instance_id.lower())
    return official_image_name(
        instance_id,
        namespace=options.get("namespace", V1_IMAGE_NAMESPACE),
        arch=options.get("arch", "x86_64"),
        tag=options.get("tag", "latest"),
    )


class RebenchFamily(BaseFamily):
    """SWE-rebench V1 rows (and ``nebius/SWE-rebench-leaderboard``), graded as SWE-bench."""

    name = "swe-rebench"
    grader_version = V1_GRADER

    def normalize(self, row: Mapping[str, Any], settings: BenchmarkSettings) -> Task:
        instance_id = require_str(row, "instance_id")
        rid = instance_id
        repo = require_str(row, "repo", row_id=rid)
        base_commit = require_str(row, "base_commit", row_id=rid)
        test_patch = optional_str(row, "test_patch", row_id=rid) or ""
        if HEREDOC_DELIMITER in test_patch:
            raise RowError(
                "test_patch", f"contains the eval script's heredoc delimiter {HEREDOC_DELIMITER}", row=rid
            )
        specs = read_v1_specs(row, rid)
        return Task(
            family=self.name,
            instance_id=instance_id,
            image=v1_image(row, instance_id, settings),
            workdir=V1_REPO_DIR,
            repo=repo,
            base_commit=base_commit,
            version=optional_str(row, "version", row_id=rid),
            problem_statement=optional_str(row, "problem_statement", row_id=rid) or "",
            gold_patch=optional_str(row, "patch", row_id=rid) or "",
            test_patch=test_patch,
            fail_to_pass=required_tests(row, FAIL_TO_PASS, rid),
            pass_to_pass=required_tests(row, PASS_TO_PASS, rid),
            install_cmds=list(specs.install),
            test_cmds=[specs.test_cmd],
            eval_script=v1_eval_script(
                repo=repo, base_commit=base_commit, test_patch=test_patch, specs=specs
            ),
            log_parser=specs.log_parser,
            created_at=created_at_str(row.get("created_at")),
        )

    def evaluate(self, task: Task, patch: str, sandbox: Sandbox, ctx: EvalContext) -> Verdict:
        from pytest_swe.families.logparsers import get_parser
        from pytest_swe.families.logparsers import probe_spec
        from pytest_swe.families.swebench import grading

        script = grading.record_exit_code(task.eval_script or "")
        parser_name = task.log_parser or "parse_log_pytest"
        parser, context = get_parser(parser_name), parse_context(task)
        spec = probe_spec(parser_name, lambda text: parser(text, context))
        run = patch_and_run(task, patch, sandbox, ctx, script, grader=self.grader_version, probe_spec=spec)
        if not run.ran:
            return run.verdict
        return grade_v1_log(task, run.log, run.verdict)


def parse_context(task: Task) -> Any:
    from pytest_swe.families.logparsers import ParseContext

    return ParseContext(
        instance_id=task.instance_id,
        repo=task.repo or "",
        version=task.version or "",
        fail_to_pass=tuple(task.fail_to_pass),
        pass_to_pass=tuple(task.pass_to_pass),
        test_cmds=tuple(task.test_cmds),
    )


def grade_v1_log(task: Task, log: str, verdict: Verdict) -> Verdict:
    """SWE-bench grading of a V1 eval log: the official log checks, the row's parser, F2P and P2P
    all passing. An empty patch or an empty FAIL_TO_PASS never resolves."""
    from pytest_swe.families.logparsers import LogParseError
    from pytest_swe.families.logparsers import get_parser
    from pytest_swe.families.swebench import grading

    parser = get_parser(task.log_parser or "parse_log_pytest")
    context = parse_context(task)
    try:
        log_eval = grading.evaluate_log(log, lambda text: parser(text, context))
    except LogParseError as exc:
        log_eval = grading.LogEval({}, False, f"the {task.log_parser} parser cannot read the log: {exc}")
    verdict.test_exit_code = log_eval.exit_code
    verdict.log_valid = log_eval.valid
    verdict.test_results = log_eval.status_map
    if not log_eval.valid:
        verdict.reasons.append(f"invalid test log: {log_eval.reason}")
    report = grading.tests_report(log_eval.status_map, task.fail_to_pass, task.pass_to_pass)
    return grading.settle(verdict, report, valid=log_eval.valid, refuse_no_fail_to_pass=not task.fail_to_pass)


# --- V2 ----------------------------------------------------------------------------------------

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
# V2-only names, and shared names V2 reads differently) are in _rebench_v2_parsers; the other names
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
    from pytest_swe.families._rebench_v2_parsers import v2_parser
    from pytest_swe.families.logparsers import PARSERS

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
            problem_statement=optional_str(row, "problem_statement", row_id=rid) or "",
            gold_patch=optional_str(row, "patch", row_id=rid) or "",
            test_patch=test_patch,
            fail_to_pass=required_tests(row, FAIL_TO_PASS, rid),
            pass_to_pass=required_tests(row, PASS_TO_PASS, rid),
            install_cmds=str_list(config.get("install"), "install_config.install", row_id=rid),
            test_cmds=test_cmds,
            eval_script=v2_eval_script(test_cmds),
            log_parser=parser,
            eval_env=dict(V2_ENV),
            created_at=created_at_str(row.get("created_at")),
            raw={"language": language or ""},
        )

    def evaluate(self, task: Task, patch: str, sandbox: Sandbox, ctx: EvalContext) -> Verdict:
        assert task.eval_script is not None
        sandbox.write_file(V2_TEST_PATCH_PATH, patch_bytes(task.test_patch or ""))
        run = patch_and_run(
            task,
            patch,
            sandbox,
            ctx,
            task.eval_script,
            grader=self.grader_version,
            commands=V2_APPLY_COMMANDS,
        )
        if not run.ran:
            return run.verdict
        run.verdict.test_exit_code = run.exit_code
        return grade_v2_log(task, run.log, run.verdict)


def grade_v2_log(task: Task, log: str, verdict: Verdict) -> Verdict:
    """V2 grading of a whole eval log (there are no markers): the row's parser, V2's own reading
    first, then the subset rule."""
    from pytest_swe.families._rebench_v2_parsers import v2_parser
    from pytest_swe.families.logparsers import LogParseError
    from pytest_swe.families.logparsers import get_parser

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


V1_FAMILY = RebenchFamily()
V2_FAMILY = RebenchV2Family()


@pytest.hookimpl
def pytest_swe_families() -> list[Any]:
    return [V1_FAMILY, V2_FAMILY]
