"""The predictions agent reads every predictions format users bring."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_swe.agent import AgentContext
from pytest_swe.agents.predictions import PredictionsAgent
from pytest_swe.agents.predictions import load_predictions
from pytest_swe.errors import ConfigError
from pytest_swe.errors import NotApplicable
from pytest_swe.task import Task


def write(path: Path, data: object, jsonl: bool = False) -> Path:
    if jsonl:
        path.write_text("".join(json.dumps(row) + "\n" for row in data))  # type: ignore[union-attr]
    else:
        path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("name", "data", "jsonl"),
    [
        ("list.json", [{"instance_id": "a__b-1", "model_patch": "P1", "model_name_or_path": "m"}], False),
        ("preds.json", {"a__b-1": {"model_patch": "P1", "model_name_or_path": "m"}}, False),
        ("rows.jsonl", [{"instance_id": "a__b-1", "model_patch": "P1", "model_name_or_path": "m"}], True),
        ("mswb.jsonl", [{"org": "a", "repo": "b", "number": 1, "fix_patch": "P1"}], True),
    ],
)
def test_formats(tmp_path: Path, name: str, data: object, jsonl: bool) -> None:
    path = write(tmp_path / name, data, jsonl)
    assert load_predictions(path)["a__b-1"]["model_patch"] == "P1"


def test_missing_instance_is_not_applicable(tmp_path: Path) -> None:
    path = write(tmp_path / "p.jsonl", [{"instance_id": "x", "model_patch": None}], jsonl=True)
    agent = PredictionsAgent({"name": "predictions", "predictions": str(path)})
    ctx = AgentContext(task=Task(family="f", instance_id="y", image="i"), settings={}, artifacts=tmp_path,
                       timeout=1, command_timeout=1)
    with pytest.raises(NotApplicable, match="no prediction for y"):
        agent.run(ctx)
    ctx.task = Task(family="f", instance_id="x", image="i")
    assert agent.run(ctx).patch == ""  # a None patch is an empty patch


def test_bad_files_name_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"instance_id": "a", "model_patch": ""}\n{oops\n')
    with pytest.raises(ConfigError, match=r"bad\.jsonl: line 2 is not valid JSON"):
        load_predictions(bad)
    no_id = write(tmp_path / "noid.json", [{"model_patch": "x"}])
    with pytest.raises(ConfigError, match="prediction 1 has no string 'instance_id'"):
        load_predictions(no_id)
    with pytest.raises(ConfigError, match="needs a file"):
        PredictionsAgent({"name": "predictions"})
