"""Test statuses and the verdict of one evaluation."""

from __future__ import annotations

import enum
from typing import Any

from pydantic import BaseModel
from pydantic import Field


class Word(str, enum.Enum):
    """A closed set of words that prints as the word itself (in logs, JUnit properties, JSON)."""

    def __str__(self) -> str:
        return str.__str__(self)


class TestStatus(Word):
    """Per-test status as the official SWE-bench parsers report it."""

    __test__ = False  # not a pytest test class

    PASSED = "PASSED"
    FAILED = "FAILED"
    SKIPPED = "SKIPPED"
    ERROR = "ERROR"
    XFAIL = "XFAIL"


StatusMap = dict[str, str]
"""Test id -> status value (one of :class:`TestStatus`'s values)."""


class TestGroup(BaseModel):
    """Which required tests of one kind (F2P, P2P, ...) succeeded and which did not."""

    __test__ = False

    success: list[str] = Field(default_factory=list)
    failure: list[str] = Field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.success) + len(self.failure)


class Verdict(BaseModel):
    """The outcome of grading one patch in a fresh sandbox."""

    resolved: bool
    resolution: str = "RESOLVED_NO"
    """``RESOLVED_FULL``, ``RESOLVED_PARTIAL`` or ``RESOLVED_NO`` (SWE-bench's names)."""
    patch_exists: bool = False
    patch_applied: bool | None = None
    apply_method: str | None = None
    tests_status: dict[str, TestGroup] = Field(default_factory=dict)
    """``FAIL_TO_PASS``, ``PASS_TO_PASS`` (and family-specific groups) -> success/failure."""
    test_results: StatusMap = Field(default_factory=dict)
    test_exit_code: int | None = None
    log_valid: bool = True
    reasons: list[str] = Field(default_factory=list)
    """Human-readable reasons the patch is not resolved (empty when resolved)."""
    tamper: list[str] = Field(default_factory=list)
    suspicious: list[str] = Field(default_factory=list)
    grader: str = ""
    artifacts: dict[str, str] = Field(default_factory=dict)
    extra: dict[str, Any] = Field(default_factory=dict)

    def group(self, name: str) -> TestGroup:
        return self.tests_status.get(name, TestGroup())
