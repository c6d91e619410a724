"""The SWE-bench family: SWE-bench, Verified, Lite, Multilingual and SWE-Gym rows.

Rows in the v5 form carry ``image``, ``eval_script`` and ``log_parser``; classic rows
carry none of them, and the family derives them from the repo/version tables.

A benchmark of classic rows for repositories the tables do not know (an internal dataset
in the SWE-bench form) describes them in ``family_options.specs``, in the tables' terms::

    family_options:
      specs:
        acme/widgets:                   # the rows' repo
          log_parser: parse_log_pytest  # for rows without a log_parser column
          versions:
            "1.0": {test_cmd: "pytest -rA", install: [], eval_commands: []}

Each version's mapping holds :class:`~pytest_swe.families.swebench.specs.RepoSpec` fields
(``language`` defaults to python). A benchmark's own spec wins over the tables.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_swe import grading as pipeline
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
from pytest_swe.api.verdict import Verdict
from pytest_swe.families.logparsers import probe_spec

from . import grading
from .evalscript import modified_paths
from .grading import EMPTY_F2P_REASON
from .grading import LogEval
from .grading import evaluate_log
from .grading import record_exit_code
from .grading import settle
from .grading import settle_log
from .grading import tests_report
from .images import official_image_name

if TYPE_CHECKING:
    from .specs import RepoSpec

__all__ = [
    "EMPTY_F2P_REASON",
    "FAMILY",
    "LogEval",
    "evaluate_log",
    "modified_paths",
    "official_image_name",
    "record_exit_code",
    "required_tests",
    "settle",
    "settle_log",
    "tests_report",
]
"""What the SWE-bench lineage shares. SWE-rebench V1 and SWE-smith grade as SWE-bench does:
they build on these names only (the exit-code record, the log checks, the F2P/P2P report and
its decision, both applied to a parsed log, the official image names, the paths a test patch
touches, the reading of the test-list columns), never on the modules behind them, so the
SWE-bench internals can move without breaking them."""


def required_tests(row: Mapping[str, Any], upper: str, row_id: str) -> list[str]:
    """A test list from its UPPERCASE or lowercase column, whichever is non-empty (SWE-rebench and
    SWE-smith rows carry either spelling).

    Reading only one spelling and finding it empty would make every patch pass a subset rule
    (the reward-inflation trap), so an empty list never hides a filled one. When both are filled
    the UPPERCASE column, the published one, wins.
    """
    upper_tests = test_list(row.get(upper), upper, row_id=row_id)
    lower = upper.lower()
    lower_tests = test_list(row.get(lower), lower, row_id=row_id)
    return upper_tests or lower_tests


def _image_for(instance_id: str, settings: BenchmarkSettings) -> str:
    """The image of a row without an ``image`` column, from the ``images`` settings.

    ``images.template`` (``{instance_id}`` / ``{id}`` = lower-cased id) points at locally
    built or mirrored images; otherwise the official name is built from ``namespace``
    (empty: local build names), ``arch``, ``tag`` and ``separator`` (``_s_`` for SWE-Gym).
    """
    opts = settings.images
    template = opts.get("template")
    if template:
        return str(template).format(instance_id=instance_id, id=instance_id.lower())
    kwargs = {k: opts[k] for k in ("namespace", "arch", "tag", "separator") if k in opts}
    return official_image_name(instance_id, **kwargs)


def _benchmark_spec(settings: BenchmarkSettings, repo: str | None, version: str | None) -> RepoSpec | None:
    """The benchmark's own spec for ``repo`` at ``version`` (``family_options.specs``), or None."""
    from pytest_swe.api.errors import ConfigError

    from .specs import RepoSpec

    entry = (settings.family_options.get("specs") or {}).get(repo or "")
    fields = (entry or {}).get("versions", {}).get(str(version)) if isinstance(entry, Mapping) else None
    if fields is None:
        return None
    values: dict[str, Any] = {
        k: tuple(v) if isinstance(v, list) else v for k, v in {"language": "python", **fields}.items()
    }
    try:
        return RepoSpec(**values)
    except (TypeError, ValueError) as exc:
        raise ConfigError(
            f"{settings.file}: family_options.specs[{repo!r}] version {version}: {exc}"
        ) from None


def _eval_script_for(task: Task, settings: BenchmarkSettings) -> str:
    """Build the eval script of a classic row (no ``eval_script`` column)."""
    from .evalscript import make_eval_script

    for field in ("repo", "version", "base_commit"):
        if not getattr(task, field):
            raise RowError(
                field, "is needed to build the eval script (the row has no eval_script)", row=task.instance_id
            )
    try:
        return make_eval_script(
            instance_id=task.instance_id,
            repo=task.repo or "",
            version=task.version or "",
            base_commit=task.base_commit or "",
            test_patch=task.test_patch or "",
            spec=_benchmark_spec(settings, task.repo, task.version),
        )
    except KeyError as exc:
        raise RowError(
            "version",
            f"no test command is known for {task.repo} version {task.version}: {exc}",
            row=task.instance_id,
        ) from None


def _parser_name(row: Mapping[str, Any], repo: str | None, row_id: str, settings: BenchmarkSettings) -> str:
    from pytest_swe.families.logparsers import check_parser
    from pytest_swe.families.logparsers import parser_name_for_repo

    name = optional_str(row, "log_parser", row_id=row_id)
    if not name:
        own = (settings.family_options.get("specs") or {}).get(repo or "")
        name = (own.get("log_parser") if isinstance(own, Mapping) else None) or (
            parser_name_for_repo(repo) if repo else None
        )
        if not name:
            raise RowError("log_parser", f"is missing and repo {repo!r} has no known parser", row=row_id)
    try:
        check_parser(name)
    except KeyError as exc:
        raise RowError("log_parser", str(exc.args[0] if exc.args else exc), row=row_id) from None
    return name


class SweBenchFamily(BaseFamily):
    """SWE-bench rows, classic or v5; grading with the official rule."""

    name = "swe-bench"
    grader_version = grading.GRADER_VERSION

    def normalize(self, row: Mapping[str, Any], settings: BenchmarkSettings) -> Task:
        instance_id = require_str(row, "instance_id")
        rid = instance_id
        repo = optional_str(row, "repo", row_id=rid)
        f2p = test_list(first_present(row, "FAIL_TO_PASS", "fail_to_pass"), "FAIL_TO_PASS", row_id=rid)
        p2p = test_list(first_present(row, "PASS_TO_PASS", "pass_to_pass"), "PASS_TO_PASS", row_id=rid)
        image = optional_str(row, "image", row_id=rid) or _image_for(instance_id, settings)
        eval_type = optional_str(row, "eval_type", row_id=rid) or (
            grading.FAIL_ONLY if repo in grading.FAIL_ONLY_REPOS else grading.PASS_AND_FAIL
        )
        if eval_type not in (grading.PASS_AND_FAIL, grading.FAIL_ONLY):
            raise RowError(
                "eval_type", f"must be {grading.PASS_AND_FAIL!r} or {grading.FAIL_ONLY!r}", row=rid
            )
        task = Task(
            family=self.name,
            instance_id=instance_id,
            image=image,
            workdir="/testbed",
            repo=repo,
            base_commit=optional_str(row, "base_commit", row_id=rid),
            version=optional_str(row, "version", row_id=rid),
            problem_statement=optional_str(row, "problem_statement", row_id=rid) or "",
            gold_patch=optional_str(row, "patch", row_id=rid) or "",
            test_patch=optional_str(row, "test_patch", row_id=rid),
            fail_to_pass=f2p,
            pass_to_pass=p2p,
            eval_script=optional_str(row, "eval_script", row_id=rid),
            log_parser=_parser_name(row, repo, rid, settings),
            created_at=created_at_str(row.get("created_at"), row_id=rid),
            raw={"eval_type": eval_type},
        )
        if not task.eval_script:
            task.eval_script = _eval_script_for(task, settings)
        return task

    def evaluate(self, task: Task, patch: str, sandbox: Sandbox, ctx: EvalContext) -> Verdict:
        script = grading.record_exit_code(task.eval_script or "")
        parser_name = task.log_parser or "parse_log_pytest"
        spec = probe_spec(parser_name, _parse_for(task))
        run = pipeline.patch_and_run(
            task, patch, sandbox, ctx, script, grader=self.grader_version, probe_spec=spec
        )
        if not run.ran:
            return run.verdict
        return _grade_log(task, run.log, run.verdict)

    def regrade(self, task: Task, log: str, verdict: Verdict, settings: BenchmarkSettings) -> Verdict:
        return pipeline.regrade(verdict, self.grader_version, lambda fresh: _grade_log(task, log, fresh))


def _parse_for(task: Task) -> Callable[[str], dict[str, str]]:
    """The row's log parser, bound to the row (log text -> status map)."""
    from pytest_swe.families.logparsers import ParseContext
    from pytest_swe.families.logparsers import get_parser

    parser = get_parser(task.log_parser or "parse_log_pytest")
    parse_ctx = ParseContext(
        instance_id=task.instance_id,
        repo=task.repo or "",
        version=task.version or "",
        fail_to_pass=tuple(task.fail_to_pass),
        pass_to_pass=tuple(task.pass_to_pass),
    )
    return lambda text: parser(text, parse_ctx)


def _grade_log(task: Task, log: str, verdict: Verdict) -> Verdict:
    """The official rule on the eval log as graded: its checks, the row's parser, F2P and P2P."""
    log_eval = grading.evaluate_log(log, _parse_for(task))
    return grading.settle_log(verdict, log_eval, task, task.raw.get("eval_type", grading.PASS_AND_FAIL))


FAMILY = SweBenchFamily()


@pytest.hookimpl
def pytest_swe_families() -> list[Any]:
    return [FAMILY]
