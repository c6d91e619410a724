"""SWE-rebench V1: SWE-bench rows that carry their own specs, graded as SWE-bench grades them.

``install_config`` names the test command, the install step and the log parser, as the
SWE-rebench fork of the SWE-bench harness reads them; the eval script, the log checks and the
report come from the SWE-bench lineage.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pytest_swe import grading
from pytest_swe.api.errors import RowError
from pytest_swe.api.family import BaseFamily
from pytest_swe.api.family import EvalContext
from pytest_swe.api.sandbox import Sandbox
from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.api.task import Task
from pytest_swe.api.task import created_at_str
from pytest_swe.api.task import json_mapping
from pytest_swe.api.task import optional_str
from pytest_swe.api.task import require_str
from pytest_swe.api.task import str_list
from pytest_swe.api.verdict import Verdict
from pytest_swe.families.swebench import LogEval
from pytest_swe.families.swebench import evaluate_log
from pytest_swe.families.swebench import modified_paths
from pytest_swe.families.swebench import official_image_name
from pytest_swe.families.swebench import record_exit_code
from pytest_swe.families.swebench import settle_log

from .rows import parse_context
from .rows import problem_fields

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
    from pytest_swe.families.logparsers import check_parser
    from pytest_swe.families.logparsers import parser_name_for_repo

    if "/" in name:
        by_repo = parser_name_for_repo(name)
        if by_repo:
            return by_repo
        raise RowError(
            "install_config.log_parser", f"names repository {name!r}, which has no known parser", row=row_id
        )
    try:
        check_parser(name)
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
            test_patch=test_patch,
            **problem_fields(row, rid),
            install_cmds=list(specs.install),
            test_cmds=[specs.test_cmd],
            eval_script=v1_eval_script(
                repo=repo, base_commit=base_commit, test_patch=test_patch, specs=specs
            ),
            log_parser=specs.log_parser,
            created_at=created_at_str(row.get("created_at")),
        )

    def evaluate(self, task: Task, patch: str, sandbox: Sandbox, ctx: EvalContext) -> Verdict:
        from pytest_swe.families.logparsers import probe_spec

        script = record_exit_code(task.eval_script or "")
        spec = probe_spec(task.log_parser or "parse_log_pytest", _parse_for(task))
        run = grading.patch_and_run(
            task, patch, sandbox, ctx, script, grader=self.grader_version, probe_spec=spec
        )
        if not run.ran:
            return run.verdict
        return grade_v1_log(task, run.log, run.verdict)

    def regrade(self, task: Task, log: str, verdict: Verdict, settings: BenchmarkSettings) -> Verdict:
        return grading.regrade(verdict, self.grader_version, lambda fresh: grade_v1_log(task, log, fresh))


def _parse_for(task: Task) -> Callable[[str], dict[str, str]]:
    """The row's log parser bound to the row (log text -> status map), for the probe and the grade."""
    from pytest_swe.families.logparsers import get_parser

    parser, context = get_parser(task.log_parser or "parse_log_pytest"), parse_context(task)
    return lambda text: parser(text, context)


def grade_v1_log(task: Task, log: str, verdict: Verdict) -> Verdict:
    """SWE-bench grading of a V1 eval log: the official log checks, the row's parser, F2P and P2P
    all passing. An empty patch or an empty FAIL_TO_PASS never resolves."""
    from pytest_swe.families.logparsers import LogParseError

    parse = _parse_for(task)
    try:
        log_eval = evaluate_log(log, parse)
    except LogParseError as exc:
        log_eval = LogEval({}, False, f"the {task.log_parser} parser cannot read the log: {exc}")
    return settle_log(verdict, log_eval, task)


V1_FAMILY = RebenchFamily()
