"""Plain layers merge without OmegaConf, and the result is the one OmegaConf gives.

Most benchmark files hold plain data: no ``${...}``, no ``???``. Those are merged by a few lines of
Python, so a run (a cached one above all) does not pay OmegaConf's import; anything else goes to
OmegaConf. Generated layers hold both, so the test finds where the two would part.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from pytest_swe.api.errors import ConfigError
from pytest_swe.runner import config
from pytest_swe.runner.config import load_benchmark

KEYS = st.sampled_from(["a", "b", "agent", "name", "x.y", "", "eval", "1"])
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False)
    | st.text(max_size=6)
    | st.sampled_from(["${a}", "???", "x ${oc.env:HOME} y", "\\${a}", "$", "{}", "??"])
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=12,
)
LAYERS = st.lists(st.dictionaries(KEYS, VALUES, max_size=4), min_size=1, max_size=4)


def _by_omegaconf(layers: list[dict[str, Any]]) -> dict[str, Any] | str:
    try:
        return config._resolved(layers, "src")
    except ConfigError as exc:
        return f"error: {exc}"


@settings(max_examples=400, deadline=None)
@given(LAYERS)
@example([{"a": {"b": 1}}, {"a": None}])
@example([{"a": None}, {"a": {"b": 1}}])
@example([{"a": [1, {"b": 2}]}, {"a": [3]}])
@example([{"a": {"b": [1]}}, {"a": {"b": {"c": 1}}}])
@example([{"a": {"b": 1}}, {"a": 2}])
@example([{"a": 2}, {"a": {"b": 1}}])
@example([{"a": 1.0}, {"b": True}, {"a": 0}])
def test_a_plain_merge_is_omegaconfs(layers: list[dict[str, Any]]) -> None:
    try:
        plain: dict[str, Any] | str = config._merge_plain(layers, "src")
    except config._NotPlain:
        return  # OmegaConf's to decide
    except ConfigError as exc:
        assert str(exc).startswith("src: cannot merge config at ")
        assert str(_by_omegaconf(layers)).startswith("error: src: cannot merge config: a mapping and a list")
        return
    expected = _by_omegaconf(layers)
    assert json.dumps(plain) == json.dumps(expected)  # types too: 1 is not 1.0, nor True
    assert [type(v) for v in plain.values()] == [type(v) for v in expected.values()]


@pytest.mark.parametrize(
    "layers",
    [
        [{"a": "${b}", "b": 1}],
        [{"a": "???"}],
        [{1: "int key"}],
        [{"a": (1, 2)}],
    ],
)
def test_what_a_plain_merge_cannot_do_exactly_goes_to_omegaconf(layers: list[dict[str, Any]]) -> None:
    with pytest.raises(config._NotPlain):
        config._merge_plain(layers, "src")


def test_a_mapping_over_a_list_names_the_key(tmp_path: Path) -> None:
    base = tmp_path / "_base.yaml"
    base.write_text("family_options: {skip: [a, b]}\n")
    for text in ("family_options: {skip: {a: 1}}\n", "family_options: {skip: {a: '${name}'}}\n"):
        bench = tmp_path / "b.yaml"
        bench.write_text(f"extends: _base.yaml\ndataset: rows.jsonl\n{text}")
        with pytest.raises(ConfigError, match=r"cannot merge config.*a mapping and a list cannot be merged"):
            load_benchmark(bench)
    with pytest.raises(ConfigError, match=r"cannot merge config at family_options\.skip: a mapping"):
        config._merge_plain([{"family_options": {"skip": [1]}}, {"family_options": {"skip": {}}}], "b")


def test_the_layers_are_not_changed_by_the_merge() -> None:
    defaults = json.dumps(config.DEFAULTS)
    layer = {"timeouts": {"eval": 5}, "markers": ["m"]}
    merged = config._merge_plain([config.DEFAULTS, layer], "src")
    merged["timeouts"]["agent"] = 1
    merged["markers"].append("n")
    assert json.dumps(config.DEFAULTS) == defaults and layer == {"timeouts": {"eval": 5}, "markers": ["m"]}


def test_interpolation_and_missing_values_still_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCH_EVAL", "77")
    bench = tmp_path / "b.yaml"
    bench.write_text(
        "dataset: rows.jsonl\ntimeouts: {eval: '${oc.env:BENCH_EVAL}', agent: '${timeouts.eval}'}\n"
    )
    settings_ = load_benchmark(bench)
    assert (settings_.timeouts.eval, settings_.timeouts.agent) == (77, 77)
    bench.write_text("dataset:\n  source: ???\n")
    with pytest.raises(ConfigError, match=r"1 required value left as \?\?\? \(missing\):\n  dataset.source"):
        load_benchmark(bench)


def test_a_plain_benchmark_loads_without_importing_omegaconf(tmp_path: Path) -> None:
    bench = tmp_path / "b.yaml"
    bench.write_text("dataset: rows.jsonl\ntimeouts: {eval: 60}\nagent: gold\n")
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from pytest_swe.runner.config import load_benchmark\n"
        f"s = load_benchmark(Path({str(bench)!r}))\n"
        "print(s.timeouts.eval, s.agent.name, 'omegaconf' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["60.0", "gold", "False"]
