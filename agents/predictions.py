"""The predictions agent: replays patches from a predictions file.

Accepts the SWE-bench formats (a ``.json`` list of predictions or a mapping keyed by
instance id, or ``.jsonl``), mini-swe-agent's ``preds.json`` (a mapping keyed by id) and
Multi-SWE-bench's (``org``, ``repo``, ``number``, ``fix_patch``; id ``org__repo-number``).
An instance with no prediction is skipped with that reason.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.agent import AgentContext
from pytest_swe.agent import AgentResult
from pytest_swe.agent import ExitStatus
from pytest_swe.errors import ConfigError
from pytest_swe.errors import NotApplicable

_cache: dict[tuple[str, int], dict[str, dict[str, Any]]] = {}
_lock = threading.Lock()


def _rows(path: Path) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        rows = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ConfigError(f"{path}: line {number} is not valid JSON: {exc.msg}") from None
        return rows
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: not valid JSON: {exc.msg} (line {exc.lineno})") from None
    if isinstance(data, dict):
        return [dict(v, instance_id=v.get("instance_id", k)) if isinstance(v, dict) else v for k, v in data.items()]
    if isinstance(data, list):
        return data
    raise ConfigError(f"{path}: predictions must be a list, a mapping keyed by instance id, or JSONL")


def _multi_swe_bench_form(row: dict[str, Any]) -> dict[str, Any]:
    """A Multi-SWE-bench prediction (org, repo, number, fix_patch) in the SWE-bench form."""
    if "model_patch" in row or "fix_patch" not in row:
        return row
    instance_id = row.get("instance_id")
    if not instance_id and all(k in row for k in ("org", "repo", "number")):
        instance_id = f"{row['org']}__{row['repo']}-{row['number']}"
    return {**row, "instance_id": instance_id, "model_patch": row["fix_patch"]}


def load_predictions(path: Path) -> dict[str, dict[str, Any]]:
    """Predictions keyed by instance id (read once per process)."""
    try:
        key = (str(path.resolve()), path.stat().st_mtime_ns)
    except OSError as exc:
        raise ConfigError(f"predictions file {path}: {exc.strerror or exc}") from None
    with _lock:
        if key not in _cache:
            by_id: dict[str, dict[str, Any]] = {}
            for number, row in enumerate(_rows(path), 1):
                if isinstance(row, dict):
                    row = _multi_swe_bench_form(row)
                if not isinstance(row, dict) or not isinstance(row.get("instance_id"), str):
                    raise ConfigError(f"{path}: prediction {number} has no string 'instance_id'")
                patch = row.get("model_patch")
                if patch is not None and not isinstance(patch, str):
                    raise ConfigError(f"{path}: prediction {row['instance_id']!r}: 'model_patch' must be a string")
                by_id[row["instance_id"]] = row
            _cache[key] = by_id
        return _cache[key]


class PredictionsAgent:
    name = "predictions"
    needs_sandbox = False

    def __init__(self, settings: Mapping[str, Any]) -> None:
        source = settings.get("predictions")
        if not source:
            raise ConfigError("agent 'predictions' needs a file: --swe-predictions FILE (or agent.predictions)")
        self.path = Path(str(source))

    def run(self, ctx: AgentContext) -> AgentResult:
        predictions = load_predictions(self.path)
        row = predictions.get(ctx.task.instance_id)
        if row is None:
            raise NotApplicable(f"no prediction for {ctx.task.instance_id} in {self.path}")
        return AgentResult(
            patch=row.get("model_patch") or "",
            exit_status=ExitStatus.REPLAYED,
            model_name=row.get("model_name_or_path"),
        )


@pytest.hookimpl
def pytest_swe_agents() -> list[Any]:
    return [PredictionsAgent]
