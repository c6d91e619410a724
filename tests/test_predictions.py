"""The predictions agent reads every predictions format users bring."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_swe.agents.predictions import PredictionError
from pytest_swe.agents.predictions import PredictionsAgent
from pytest_swe.agents.predictions import PredictionsFileError
from pytest_swe.agents.predictions import load_predictions
from pytest_swe.agents.predictions import read_predictions
from pytest_swe.api.agent import AgentContext
from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import NotApplicable
from pytest_swe.api.task import Task


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
    ctx = AgentContext(
        task=Task(family="f", instance_id="y", image="i"),
        settings={},
        artifacts=tmp_path,
        timeout=1,
        command_timeout=1,
    )
    with pytest.raises(NotApplicable, match="no prediction for y"):
        agent.run(ctx)
    ctx.task = Task(family="f", instance_id="x", image="i")
    assert agent.run(ctx).patch == ""  # a None patch is an empty patch


def test_bad_lines_touch_only_their_instance(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"instance_id": "a", "model_patch": ""}\n{"instance_id": "b", oops\n{oops\n[1]\n')
    predictions = read_predictions(bad)
    assert set(predictions.by_id) == {"a"}
    assert predictions.bad == {
        "b": f"predictions file {bad}, line 2: the prediction for b is not valid JSON: "
        "Expecting property name enclosed in double quotes (column 22)"
    }
    assert predictions.unreadable == [
        "line 3: not valid JSON: Expecting property name enclosed in double quotes (column 2), and no instance_id "
        "can be read from it",
        "line 4: no string 'instance_id'",
    ]
    agent = PredictionsAgent({"name": "predictions", "predictions": str(bad)})
    ctx = AgentContext(
        task=Task(family="f", instance_id="b", image="i"),
        settings={},
        artifacts=tmp_path,
        timeout=1,
        command_timeout=1,
    )
    with pytest.raises(PredictionError, match="line 2: the prediction for b is not valid JSON"):
        agent.run(ctx)
    ctx.task = Task(family="f", instance_id="c", image="i")
    with pytest.raises(
        NotApplicable, match=r"no prediction for c in .*; 2 entries of it could not be read: line 3"
    ):
        agent.run(ctx)
    no_id = write(tmp_path / "noid.json", [{"model_patch": "x"}, {"instance_id": "d", "model_patch": 3}])
    predictions = read_predictions(no_id)
    assert predictions.unreadable == ["prediction 1: no string 'instance_id'"]
    assert predictions.bad == {
        "d": f"predictions file {no_id}, prediction 2: 'model_patch' of d must be a string"
    }
    with pytest.raises(ConfigError, match="needs a file"):
        PredictionsAgent({"name": "predictions"})


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (
            b'{"instance_id": "a"}\n{"instance_id": "\xe9"}\n',
            "not UTF-8 text: byte 0xe9 at line 2, column 18 (predictions files are UTF-8 JSON)",
        ),
        (b"[{oops", "not valid JSON: Expecting property name enclosed in double quotes (line 1, column 3)"),
        (b'"a string"', "predictions must be a list, a mapping keyed by instance id, or JSONL"),
    ],
)
def test_unusable_files_name_the_file_and_the_problem(tmp_path: Path, content: bytes, problem: str) -> None:
    path = tmp_path / ("p.jsonl" if content.startswith(b'{"') else "p.json")
    path.write_bytes(content)
    with pytest.raises(PredictionsFileError) as info:
        read_predictions(path)
    assert str(info.value) == f"predictions file {path}: {problem}"
    with pytest.raises(PredictionsFileError, match="is a directory"):
        read_predictions(tmp_path)
    with pytest.raises(PredictionsFileError, match="no such file"):
        read_predictions(tmp_path / "absent.jsonl")


def test_duplicates_follow_the_policy(tmp_path: Path) -> None:
    rows = [
        {"instance_id": "a", "model_patch": "1"},
        {"instance_id": "b"},
        {"instance_id": "a", "model_patch": "2"},
    ]
    path = write(tmp_path / "p.jsonl", rows, jsonl=True)
    with pytest.raises(
        PredictionsFileError, match=r"1 instance id\(s\) given more than once: a \(line 1, line 3\)"
    ):
        read_predictions(path)
    assert load_predictions(path, "first")["a"]["model_patch"] == "1"
    assert load_predictions(path, "last")["a"]["model_patch"] == "2"
    assert read_predictions(path, "last").duplicates == {"a": ["line 1", "line 3"]}
