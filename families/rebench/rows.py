"""What V1 and V2 rows share: the problem and test-list columns and the context the log parsers get."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from typing import TypedDict

from pytest_swe.api.task import Task
from pytest_swe.api.task import optional_str
from pytest_swe.families.logparsers import ParseContext
from pytest_swe.families.swebench import required_tests

FAIL_TO_PASS = "FAIL_TO_PASS"
PASS_TO_PASS = "PASS_TO_PASS"


class ProblemFields(TypedDict):
    """The task fields V1 and V2 rows give alike: the issue, its fix and the tests that judge it."""

    problem_statement: str
    gold_patch: str
    fail_to_pass: list[str]
    pass_to_pass: list[str]


def problem_fields(row: Mapping[str, Any], row_id: str) -> ProblemFields:
    """The problem statement, the gold ``patch`` and both test lists (either spelling) of a row."""
    return ProblemFields(
        problem_statement=optional_str(row, "problem_statement", row_id=row_id) or "",
        gold_patch=optional_str(row, "patch", row_id=row_id) or "",
        fail_to_pass=required_tests(row, FAIL_TO_PASS, row_id),
        pass_to_pass=required_tests(row, PASS_TO_PASS, row_id),
    )


def parse_context(task: Task) -> ParseContext:
    return ParseContext(
        instance_id=task.instance_id,
        repo=task.repo or "",
        version=task.version or "",
        fail_to_pass=tuple(task.fail_to_pass),
        pass_to_pass=tuple(task.pass_to_pass),
        test_cmds=tuple(task.test_cmds),
    )
