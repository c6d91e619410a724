"""The predictions agent: replays patches from a predictions file.

Accepts the SWE-bench formats (a ``.json`` list of predictions or a mapping keyed by
instance id, or ``.jsonl``), mini-swe-agent's ``preds.json`` (a mapping keyed by id) and
Multi-SWE-bench's (``org``, ``repo``, ``number``, ``fix_patch``; id ``org__repo-number``).
An instance with no prediction is skipped with that reason.

What a file can get wrong, and what happens:

- the file as a whole (absent, a directory, unreadable, not UTF-8, a ``.json`` that is not
  JSON or not a list/mapping): :class:`PredictionsFileError`, which the plugin reports once,
  as a usage error, before any item runs;
- one ``.jsonl`` line that is not JSON: only the instance named on that line (its
  ``"instance_id": "..."`` read from the raw text) errors; when no id can be read from
  it, the line is listed in a warning and every other prediction is used;
- the same ``instance_id`` more than once: a usage error by default, or the first or the
  last one wins (``--swe-predictions-duplicates first|last``).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.api.agent import AgentContext
from pytest_swe.api.agent import AgentResult
from pytest_swe.api.agent import ExitStatus
from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import NotApplicable

DUPLICATE_POLICIES = ("error", "last", "first")
MAX_LISTED = 10

_cache: dict[tuple[str, int, str], Predictions] = {}
_lock = threading.Lock()
_ID_IN_TEXT = re.compile(r'"instance_id"\s*:\s*"((?:[^"\\]|\\.)*)"')


class PredictionsFileError(ConfigError):
    """The predictions file as a whole cannot be used (reported once, before any item runs)."""


class PredictionError(ConfigError):
    """One instance's prediction cannot be used; only that instance errors."""

    kind = "bad_prediction"


def listed(names: list[str], limit: int = MAX_LISTED) -> str:
    """At most ``limit`` names, then how many more."""
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


@dataclass
class Predictions:
    """The usable predictions of one file, and what could not be used."""

    path: Path
    by_id: dict[str, dict[str, Any]] = field(default_factory=dict)
    bad: dict[str, str] = field(default_factory=dict)
    """instance id -> why its prediction cannot be used (the instance errors)."""
    unreadable: list[str] = field(default_factory=list)
    """Entries no instance id could be read from, e.g. ``line 7: not valid JSON (...)``."""
    duplicates: dict[str, list[str]] = field(default_factory=dict)
    """instance id -> where it appears (``line 3``), for ids given more than once."""

    @property
    def ids(self) -> set[str]:
        return set(self.by_id) | set(self.bad)

    def unreadable_note(self) -> str:
        if not self.unreadable:
            return ""
        return (
            f"; {len(self.unreadable)} entr{'y' if len(self.unreadable) == 1 else 'ies'} of it could not be read: "
            + listed(self.unreadable, 5)
        )


def _text(path: Path) -> str:
    if path.is_dir():
        raise PredictionsFileError(
            f"predictions file {path}: is a directory; give --swe-predictions a .json or .jsonl file"
        )
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise PredictionsFileError(f"predictions file {path}: no such file") from None
    except OSError as exc:
        raise PredictionsFileError(f"predictions file {path}: cannot read: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise PredictionsFileError(
            f"predictions file {path}: not UTF-8 text: byte 0x{data[exc.start]:02x} at line {line}, "
            f"column {column} (predictions files are UTF-8 JSON)"
        ) from None


def _entries(path: Path, text: str) -> list[tuple[str, Any]]:
    """(where, parsed row or a JSONDecodeError) for every entry of the file."""
    if path.suffix == ".jsonl":
        entries: list[tuple[str, Any]] = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                entries.append((f"line {number}", json.loads(line)))
            except json.JSONDecodeError as exc:
                entries.append((f"line {number}", (exc, line)))
        return entries
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PredictionsFileError(
            f"predictions file {path}: not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    if isinstance(data, dict):
        return [
            (f"entry {k!r}", dict(v, instance_id=v.get("instance_id", k)) if isinstance(v, dict) else v)
            for k, v in data.items()
        ]
    if isinstance(data, list):
        return [(f"prediction {number}", row) for number, row in enumerate(data, 1)]
    raise PredictionsFileError(
        f"predictions file {path}: predictions must be a list, a mapping keyed by instance id, or JSONL"
    )


def _multi_swe_bench_form(row: dict[str, Any]) -> dict[str, Any]:
    """A Multi-SWE-bench prediction (org, repo, number, fix_patch) in the SWE-bench form."""
    if "model_patch" in row or "fix_patch" not in row:
        return row
    instance_id = row.get("instance_id")
    if not instance_id and all(k in row for k in ("org", "repo", "number")):
        instance_id = f"{row['org']}__{row['repo']}-{row['number']}"
    return {**row, "instance_id": instance_id, "model_patch": row["fix_patch"]}


def _id_in_text(line: str) -> str | None:
    match = _ID_IN_TEXT.search(line)
    if match is None:
        return None
    try:
        instance_id: str = json.loads(f'"{match.group(1)}"')  # a JSON string literal decodes to a str
    except json.JSONDecodeError:
        return None
    return instance_id


def _read(path: Path, duplicates: str) -> Predictions:
    result = Predictions(path)
    seen: dict[str, list[str]] = {}
    for where, row in _entries(path, _text(path)):
        value: dict[str, Any] | str
        if isinstance(row, tuple):  # a line that is not JSON
            exc, line = row
            instance_id = _id_in_text(line)
            problem = f"not valid JSON: {exc.msg} (column {exc.colno})"
            if instance_id is None:
                result.unreadable.append(f"{where}: {problem}, and no instance_id can be read from it")
                continue
            value = f"predictions file {path}, {where}: the prediction for {instance_id} is {problem}"
        else:
            if isinstance(row, dict):
                row = _multi_swe_bench_form(row)
            if (
                not isinstance(row, dict)
                or not isinstance(row.get("instance_id"), str)
                or not row["instance_id"]
            ):
                result.unreadable.append(f"{where}: no string 'instance_id'")
                continue
            instance_id = row["instance_id"]
            patch = row.get("model_patch")
            if patch is not None and not isinstance(patch, str):
                value = f"predictions file {path}, {where}: 'model_patch' of {instance_id} must be a string"
            else:
                value = row
        seen.setdefault(instance_id, []).append(where)
        if len(seen[instance_id]) > 1 and duplicates == "first":
            continue
        result.bad.pop(instance_id, None)
        result.by_id.pop(instance_id, None)
        if isinstance(value, str):
            result.bad[instance_id] = value
        else:
            result.by_id[instance_id] = value
    result.duplicates = {k: v for k, v in seen.items() if len(v) > 1}
    if result.duplicates and duplicates == "error":
        described = [f"{k} ({', '.join(v)})" for k, v in result.duplicates.items()]
        raise PredictionsFileError(
            f"predictions file {path}: {len(result.duplicates)} instance id(s) given more than once: "
            f"{listed(described)}; choose which one counts with --swe-predictions-duplicates first|last "
            "(ini: swe_predictions_duplicates)"
        )
    return result


def read_predictions(path: Path, duplicates: str = "error") -> Predictions:
    """The predictions of ``path`` (read once per process); raises :class:`PredictionsFileError`."""
    if duplicates not in DUPLICATE_POLICIES:
        raise ConfigError(
            f"predictions duplicates policy {duplicates!r}: expected one of {', '.join(DUPLICATE_POLICIES)}"
        )
    path = Path(path)
    try:
        key = (str(path.resolve()), path.stat().st_mtime_ns, duplicates)
    except OSError:
        return _read(path, duplicates)  # raises with the reason
    with _lock:
        if key not in _cache:
            _cache[key] = _read(path, duplicates)
        return _cache[key]


def load_predictions(path: Path, duplicates: str = "error") -> dict[str, dict[str, Any]]:
    """Usable predictions keyed by instance id."""
    return read_predictions(path, duplicates).by_id


class PredictionsAgent:
    name = "predictions"
    needs_sandbox = False

    def __init__(self, settings: Mapping[str, Any]) -> None:
        source = settings.get("predictions")
        if not source:
            raise ConfigError(
                "agent 'predictions' needs a file: --swe-predictions FILE (or agent.predictions)"
            )
        self.path = Path(str(source))
        self.duplicates = str(settings.get("predictions_duplicates") or "error")

    def predictions(self) -> Predictions:
        return read_predictions(self.path, self.duplicates)

    def run(self, ctx: AgentContext) -> AgentResult:
        predictions = self.predictions()
        instance_id = ctx.task.instance_id
        if instance_id in predictions.bad:
            raise PredictionError(predictions.bad[instance_id])
        row = predictions.by_id.get(instance_id)
        if row is None:
            raise NotApplicable(
                f"no prediction for {instance_id} in {self.path}{predictions.unreadable_note()}"
            )
        return AgentResult(
            patch=row.get("model_patch") or "",
            exit_status=ExitStatus.REPLAYED,
            model_name=row.get("model_name_or_path"),
        )


@pytest.hookimpl
def pytest_swe_agents() -> list[Any]:
    return [PredictionsAgent]
