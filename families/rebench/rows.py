"""What V1 and V2 rows share: the test-list columns and the context the log parsers get."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_swe.api.task import Task
from pytest_swe.api.task import test_list
from pytest_swe.families.logparsers import ParseContext

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


def parse_context(task: Task) -> ParseContext:
    return ParseContext(
        instance_id=task.instance_id,
        repo=task.repo or "",
        version=task.version or "",
        fail_to_pass=tuple(task.fail_to_pass),
        pass_to_pass=tuple(task.pass_to_pass),
        test_cmds=tuple(task.test_cmds),
    )
