"""The task model: one union schema for every dataset family.

Families turn their raw rows into a :class:`Task`; everything downstream (agents,
providers, the ledger) sees only this model. The fields follow the union schema
of the families reference (section 8).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field

from pytest_swe.api.errors import InfraError
from pytest_swe.api.errors import RowError


class Task(BaseModel):
    """Everything needed to provision, run an agent on, and grade one dataset row."""

    model_config = ConfigDict(frozen=False, arbitrary_types_allowed=True)

    family: str
    instance_id: str
    image: str
    workdir: str = "/testbed"
    repo: str | None = None
    base_commit: str | None = None
    version: str | None = None
    problem_statement: str = ""
    gold_patch: str = ""
    test_patch: str | None = None
    fail_to_pass: list[str] = Field(default_factory=list)
    pass_to_pass: list[str] = Field(default_factory=list)
    extra_required: dict[str, list[str]] = Field(default_factory=dict)
    expected_status_map: dict[str, str] | None = None
    install_cmds: list[str] = Field(default_factory=list)
    test_cmds: list[str] = Field(default_factory=list)
    eval_script: str | None = None
    log_parser: str | None = None
    eval_env: dict[str, str] = Field(default_factory=dict)
    hidden_paths: list[str] = Field(default_factory=list)
    arch: str = "x86_64"
    created_at: str | None = None
    raw: dict[str, Any] = Field(default_factory=dict, repr=False)

    def required_eval_script(self) -> str:
        """The eval script ``normalize`` wrote; a task reaching evaluation without one is the family's
        fault, reported as an eval error on the item rather than a crash of the run."""
        if self.eval_script is None:
            raise InfraError(
                "eval_error", f"{self.instance_id}: the family wrote no eval script for this row"
            )
        return self.eval_script


# --- helpers families use to read raw rows -------------------------------------------------


def first_present(row: Mapping[str, Any], *names: str) -> Any:
    """The value of the first of ``names`` present (and not None) in ``row``, else None."""
    for name in names:
        value = row.get(name)
        if value is not None:
            return value
    return None


def require_str(row: Mapping[str, Any], *names: str, row_id: str | None = None) -> str:
    """A required non-empty string field; accepts aliases, names the first in errors."""
    value = first_present(row, *names)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise RowError(names[0], "is missing or empty", row=row_id)
    if not isinstance(value, str):
        raise RowError(names[0], f"must be a string, got {type(value).__name__}", row=row_id)
    return value


def optional_str(row: Mapping[str, Any], *names: str, row_id: str | None = None) -> str | None:
    value = first_present(row, *names)
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise RowError(names[0], f"must be a string, got {type(value).__name__}", row=row_id)
    return value


def _json(text: str, field: str, row_id: str | None) -> Any:
    """Decode a JSON field; malformed or absurdly nested JSON is a row error naming the field."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RowError(field, f"is not valid JSON: {exc.msg} at position {exc.pos}", row=row_id) from None
    except RecursionError:
        raise RowError(field, "is nested too deeply to be read", row=row_id) from None


def test_list(value: Any, field: str, *, row_id: str | None = None) -> list[str]:
    """A list of test ids given as a JSON-encoded string or a list (None -> [])."""
    if value is None:
        return []
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return []
        value = _json(text, field, row_id)
    if hasattr(value, "tolist") and not isinstance(value, (list, tuple)):  # numpy/pyarrow arrays
        value = value.tolist()
    if not isinstance(value, (list, tuple)):
        raise RowError(field, f"must be a list of test ids, got {type(value).__name__}", row=row_id)
    out: list[str] = []
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise RowError(field, f"item {i} must be a string, got {type(item).__name__}", row=row_id)
        out.append(item)
    return out


test_list.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def json_mapping(value: Any, field: str, *, row_id: str | None = None) -> dict[str, Any]:
    """A mapping given as a JSON-encoded string or a dict (None -> {})."""
    if value is None:
        return {}
    if isinstance(value, str):
        if not value.strip():
            return {}
        value = _json(value, field, row_id)
    if not isinstance(value, Mapping):
        raise RowError(field, f"must be a mapping, got {type(value).__name__}", row=row_id)
    return dict(value)


def str_list(value: Any, field: str, *, row_id: str | None = None) -> list[str]:
    """A list of commands given as one string or a list of strings (None -> [])."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if hasattr(value, "tolist") and not isinstance(value, (list, tuple)):
        value = value.tolist()
    if not isinstance(value, (list, tuple)):
        raise RowError(
            field, f"must be a string or a list of strings, got {type(value).__name__}", row=row_id
        )
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise RowError(field, f"item {i} must be a string, got {type(item).__name__}", row=row_id)
    return list(value)


def created_at_str(value: Any, *, field: str = "created_at", row_id: str | None = None) -> str | None:
    """``created_at`` as a string: accepts ISO strings and epoch ints (seconds or ms)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        from datetime import datetime
        from datetime import timezone

        seconds = value / 1000 if value > 10**11 else value
        try:
            return datetime.fromtimestamp(seconds, tz=timezone.utc).isoformat()
        except (OverflowError, ValueError, OSError) as exc:
            raise RowError(field, f"is not a valid time: {exc}", row=row_id) from None
    return str(value)
