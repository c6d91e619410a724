"""What V1 and V2 rows share: the test-list column names and the context the log parsers get."""

from __future__ import annotations

from pytest_swe.api.task import Task
from pytest_swe.families.logparsers import ParseContext

FAIL_TO_PASS = "FAIL_TO_PASS"
PASS_TO_PASS = "PASS_TO_PASS"


def parse_context(task: Task) -> ParseContext:
    return ParseContext(
        instance_id=task.instance_id,
        repo=task.repo or "",
        version=task.version or "",
        fail_to_pass=tuple(task.fail_to_pass),
        pass_to_pass=tuple(task.pass_to_pass),
        test_cmds=tuple(task.test_cmds),
    )
