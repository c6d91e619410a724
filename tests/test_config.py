"""Benchmark configuration: layering, extends, interpolation, ??? reporting, validation."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pytest_swe.api.errors import ConfigError
from pytest_swe.runner.config import load_benchmark
from pytest_swe.runner.config import parse_dotlist


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def test_layers_apply_in_order(tmp_path: Path) -> None:
    write(tmp_path / "_base.yaml", "timeouts: {eval: 100, agent: 50}\nlimits: {memory: 2g}\n")
    bench = write(
        tmp_path / "b.yaml",
        """
        extends: _base.yaml
        family: swe-bench
        dataset: data.jsonl
        timeouts: {eval: 200}
        """,
    )
    extra = write(tmp_path / "extra.yaml", "timeouts: {agent: 75}\nlimits: {cpus: 3}\n")
    settings = load_benchmark(
        bench,
        extra_config=extra,
        cli_layer={"agent": {"name": "empty"}},
        overrides=parse_dotlist(["timeouts.eval=300", "agent.model=m1"]),
    )
    assert settings.name == "b"  # defaults to the file name
    assert settings.timeouts.eval == 300  # --swe-set beats the file
    assert settings.timeouts.agent == 75  # --swe-config beats the base
    assert settings.limits.memory == "2g" and settings.limits.cpus == 3
    assert settings.agent.name == "empty"
    assert settings.agent.model_extra == {"model": "m1"}
    assert settings.dataset.source == str(tmp_path / "data.jsonl")  # relative to the file


def test_shorthand_strings_become_sections(tmp_path: Path) -> None:
    bench = write(
        tmp_path / "b.yaml", "family: swe-bench\ndataset: x.parquet\nagent: predictions\nprovider: docker\n"
    )
    settings = load_benchmark(bench, overrides=parse_dotlist(["agent.predictions=/p.json"]))
    assert settings.agent.name == "predictions" and settings.agent.predictions == "/p.json"
    assert settings.provider.name == "docker"


def test_interpolation_and_env_resolver(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SWE_TEST_NAMESPACE", "mirror.local/swebench")
    bench = write(
        tmp_path / "b.yaml",
        """
        family: swe-bench
        dataset: {source: org/dataset}
        images: {namespace: "${oc.env:SWE_TEST_NAMESPACE}"}
        timeouts: {eval: 120, agent: "${timeouts.eval}"}
        """,
    )
    settings = load_benchmark(bench)
    assert settings.images["namespace"] == "mirror.local/swebench"
    assert settings.timeouts.agent == 120
    assert settings.dataset.source == "org/dataset"  # a Hugging Face id stays as written
    assert not settings.dataset_is_local


def test_every_missing_value_in_one_error(tmp_path: Path) -> None:
    bench = write(
        tmp_path / "b.yaml",
        """
        family: swe-bench
        dataset:
          source: ???
        agent:
          name: llm
          model: ???
        """,
    )
    with pytest.raises(ConfigError) as excinfo:
        load_benchmark(bench)
    message = str(excinfo.value)
    assert "2 required values" in message
    assert "--swe-set dataset.source=<value>" in message
    assert "--swe-set agent.model=<value>" in message
    assert "MissingMandatoryValue" not in message


def test_missing_values_filled_by_overrides(tmp_path: Path) -> None:
    bench = write(tmp_path / "b.yaml", "family: swe-bench\ndataset:\n  source: ???\n")
    settings = load_benchmark(bench, overrides=parse_dotlist(["dataset.source=rows.jsonl"]))
    assert settings.dataset.source.endswith("rows.jsonl")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("timeouts: {eval: -5}", "timeouts.eval: Input should be greater than 0"),
        ("limits: {memory: lots}", "limits.memory: Value error, must look like 512m or 4g"),
        ("timeoutz: {eval: 5}", "timeoutz: unknown key"),
        ("markers: [ok, 'not-an-identifier']", "markers: Value error, marker 'not-an-identifier'"),
        ("name: 'bad name'", "name: Value error"),
        ("dataset: {source: a.jsonl, splitt: test}", "dataset.splitt: unknown key"),
    ],
)
def test_validation_errors_name_the_path(tmp_path: Path, body: str, expected: str) -> None:
    base = {"family": "swe-bench", "dataset": "a.jsonl"}
    text = "\n".join(f"{k}: {v}" for k, v in base.items() if k not in body.split(":")[0]) + "\n" + body + "\n"
    bench = write(tmp_path / "b.yaml", text)
    with pytest.raises(ConfigError) as excinfo:
        load_benchmark(bench)
    assert expected in str(excinfo.value)
    assert str(bench) in str(excinfo.value)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("timeouts: {evl: 5}", "timeouts.evl: unknown key (did you mean 'eval'?)"),
        ("timeoutz: {eval: 5}", "timeoutz: unknown key (did you mean 'timeouts'?)"),
        ("limits: {memroy: 1g}", "limits.memroy: unknown key (did you mean 'memory'?)"),
        ("network: {evall: false}", "network.evall: unknown key (did you mean 'eval'?)"),
        ("dataset: {source: a.jsonl, splitt: test}", "dataset.splitt: unknown key (did you mean 'split'?)"),
        ("build: {repo: r, dockerfil: []}", "build.dockerfil: unknown key (did you mean 'dockerfile'?)"),
        (
            "eval: {policy_options: {max_patch_byte: 5}}",
            "eval.policy_options.max_patch_byte: unknown key (did you mean 'max_patch_bytes'?)",
        ),
    ],
)
def test_unknown_keys_suggest_the_closest_key_of_their_section(
    tmp_path: Path, body: str, expected: str
) -> None:
    base = {"family": "swe-bench", "dataset": "a.jsonl"}
    text = "\n".join(f"{k}: {v}" for k, v in base.items() if k not in body.split(":")[0]) + "\n" + body + "\n"
    with pytest.raises(ConfigError) as excinfo:
        load_benchmark(write(tmp_path / "b.yaml", text))
    assert expected in str(excinfo.value)


def test_an_unknown_key_like_none_gets_no_suggestion(tmp_path: Path) -> None:
    bench = write(tmp_path / "b.yaml", "family: swe-bench\ndataset: a.jsonl\ntimeouts: {zzzzzz: 5}\n")
    with pytest.raises(ConfigError) as excinfo:
        load_benchmark(bench)
    assert "timeouts.zzzzzz: unknown key\n" in str(excinfo.value) + "\n"
    assert "did you mean" not in str(excinfo.value)


def test_malformed_yaml_names_file_and_line(tmp_path: Path) -> None:
    bench = write(tmp_path / "b.yaml", "family: swe-bench\ndataset: [unclosed\n")
    with pytest.raises(ConfigError, match=r"b\.yaml: line 3, column 1: invalid YAML"):
        load_benchmark(bench)


def test_extends_cycle_and_missing_base(tmp_path: Path) -> None:
    write(tmp_path / "a.yaml", "extends: b.yaml\n")
    write(tmp_path / "b.yaml", "extends: a.yaml\n")
    with pytest.raises(ConfigError, match="cycle"):
        load_benchmark(tmp_path / "a.yaml")
    write(tmp_path / "c.yaml", "extends: nowhere.yaml\nfamily: swe-bench\ndataset: x.jsonl\n")
    with pytest.raises(ConfigError, match=r"'extends' names 'nowhere\.yaml', which does not exist"):
        load_benchmark(tmp_path / "c.yaml")


def test_bad_dotlist_item() -> None:
    with pytest.raises(ConfigError, match=r"--swe-set 'timeouts': expected KEY=VALUE"):
        parse_dotlist(["timeouts"])


def test_unresolvable_env_names_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SWE_TEST_UNSET", raising=False)
    bench = write(
        tmp_path / "b.yaml",
        "family: swe-bench\ndataset: x.jsonl\nimages: {namespace: '${oc.env:SWE_TEST_UNSET}'}\n",
    )
    with pytest.raises(ConfigError, match=r"cannot resolve images\.namespace"):
        load_benchmark(bench)
