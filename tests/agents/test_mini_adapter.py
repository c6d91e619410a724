"""mini-swe-agent's environment protocol over a pytest-swe sandbox; the error when its extra is missing."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest
from localsandbox import LocalSandbox
from modelserver import COMPLETION_TOKENS
from modelserver import PROMPT_TOKENS
from modelserver import Script
from modelserver import bash
from modelserver import serving

from pytest_swe.agents.mini import MiniSweAgent
from pytest_swe.agents.mini import SandboxEnvironment
from pytest_swe.api.agent import ExitStatus
from pytest_swe.api.errors import ConfigError
from pytest_swe.runner.outcome import error_kind

from conftest import unavailable


def test_missing_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "minisweagent", None)  # makes "import minisweagent" fail
    with pytest.raises(ConfigError, match=r"pip install 'pytest-swe\[mini\]'"):
        MiniSweAgent({"name": "mini-swe-agent"})


def test_sandbox_environment_follows_the_v2_protocol(tmp_path: Path) -> None:
    if importlib.util.find_spec("minisweagent") is None:
        unavailable("needs the mini extra: pip install -e '.[mini]' (scripts/setup.sh --tests installs it)")
    import minisweagent.exceptions as exceptions

    env = SandboxEnvironment(LocalSandbox(tmp_path), cwd=str(tmp_path), timeout=1, env={"GREETING": "hi"})
    ok = env.execute({"command": "echo $GREETING > f && cat f; exit 3"})
    assert ok == {"output": "hi\n", "returncode": 3, "exception_info": ""}
    slow = env.execute({"command": "sleep 20"}, timeout=1)
    assert slow["returncode"] == -1 and "timed out after 1 seconds" in slow["exception_info"]
    with pytest.raises(exceptions.Submitted) as submitted:
        env.execute({"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; echo the-patch"})
    assert submitted.value.messages[0]["extra"]["submission"] == "the-patch\n"
    assert env.get_template_vars()["cwd"] == str(tmp_path)
    assert (
        env.serialize()["info"]["config"]["environment_type"] == "pytest_swe.agents.mini.SandboxEnvironment"
    )


def run_mini(tmp_path: Path, url: str, **settings: Any) -> Any:
    """One mini-swe-agent run with its LiteLLM model against the scripted server, in a local sandbox."""
    if importlib.util.find_spec("minisweagent") is None:
        unavailable("needs the mini extra: pip install -e '.[mini]' (scripts/setup.sh --tests installs it)")
    from pytest_swe.api.agent import AgentContext
    from pytest_swe.api.task import Task

    repo = tmp_path / "repo"
    repo.mkdir()
    task = Task(
        family="swe-bench",
        instance_id="demo__mini-1",
        image="local",
        workdir=str(repo),
        problem_statement=f"The {MINI_KEY} is wrong.",
    )
    agent = MiniSweAgent(
        {
            "name": "mini-swe-agent",
            "model": "openai/scripted-unpriced",
            "base_url": url,
            "mini": {"environment": {"env": {"BASH_ENV": ""}}},  # not the host's ~/.bashrc
            **settings,
        }
    )
    ctx = AgentContext(
        task=task,
        settings={},
        artifacts=tmp_path / "agent",
        timeout=60,
        command_timeout=10,
        sandbox=LocalSandbox(repo),
    )
    return agent.run(ctx)


MINI_KEY = "quokka counter"


def test_mini_swe_agent_prices_calls_with_the_configured_prices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-mini")
    script = Script([bash("ls"), bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")])
    with serving({MINI_KEY: script}) as server:
        result = run_mini(tmp_path, server.url, prices={"input": 1.0, "output": 4.0})
    assert result.exit_status == ExitStatus.SUBMITTED and result.steps == 2
    per_call = (PROMPT_TOKENS * 1.0 + COMPLETION_TOKENS * 4.0) / 1e6
    assert result.usage.cost == pytest.approx(2 * per_call)


def test_a_model_without_a_price_is_a_configuration_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a model endpoint fault: the endpoint answered; the run lacks a price for the model."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-mini")
    with serving({MINI_KEY: Script([bash("ls")])}) as server, pytest.raises(ConfigError) as excinfo:
        run_mini(tmp_path, server.url)
    assert error_kind(excinfo.value) == "config"
    assert "agent.prices" in str(excinfo.value) and "openai/scripted-unpriced" in str(excinfo.value)
