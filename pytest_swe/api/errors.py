"""Exceptions that decide an item's outcome.

An item ends as an infrastructure ``<error>`` (masked, reward 0.0) only through
:class:`InfraError`; a malformed row is a :class:`RowError`; everything the model
did wrong is a failure, never one of these.
"""

from __future__ import annotations


class SweError(Exception):
    """Base class of pytest-swe's own exceptions."""


class ConfigError(SweError):
    """The benchmark configuration is invalid; raised before any sandbox exists."""


class InfraError(SweError):
    """An infrastructure fault: the item errors (masked), it does not fail.

    ``kind`` is recorded as the ``error_kind`` property, e.g. ``image_missing``,
    ``sandbox_start``, ``sandbox_died``, ``eval_timeout``, ``item_timeout``, ``oom``,
    ``provider_unavailable``, ``model_endpoint``, ``eval_error``.
    """

    retryable: bool = True
    """Whether another attempt in this run could help (``--swe-retries``); not when, say, the
    run's budget is spent."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind

    def __str__(self) -> str:
        return f"[{self.kind}] {self.args[0]}"


class RowError(SweError):
    """A dataset row cannot be turned into a task; names the row and the field."""

    def __init__(self, field: str, message: str, *, row: str | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.row = row

    def __str__(self) -> str:
        where = f"row {self.row}: " if self.row else ""
        return f"{where}field {self.field!r}: {self.args[0]}"


class NotApplicable(SweError):
    """The item cannot run in this configuration; it is skipped with this reason."""


class DatasetUnavailable(SweError):
    """A dataset cannot be loaded right now (offline, not cached, no credentials)."""
