"""The built-in LLM agent against a real loopback HTTP server, with commands run in a host directory."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from localsandbox import LocalSandbox
from modelserver import Reply
from modelserver import Script
from modelserver import bash
from modelserver import error
from modelserver import serving
from modelserver import submit
from modelserver import text
from modelserver import write_file

from pytest_swe.agents.llm import SUBMIT_MARKER
from pytest_swe.agents.llm import LlmAgent
from pytest_swe.agents.llm import truncate
from pytest_swe.api.agent import AgentContext
from pytest_swe.api.agent import AgentResult
from pytest_swe.api.agent import ExitStatus
from pytest_swe.api.errors import ConfigError
from pytest_swe.api.task import Task

KEY = "quokka"  # appears in the problem statement: it selects the server's script


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "mod.py").write_text("def add(a, b):\n    return a - b\n")
    subprocess.run(
        "git init -q && git add -A && git -c user.email=a@b -c user.name=t commit -qm base",
        shell=True,
        cwd=root,
        check=True,
    )
    return root


def run_agent(
    repo: Path, tmp_path: Path, url: str, *, timeout: float = 60, command_timeout: float = 30, **settings: Any
) -> tuple[AgentResult, LocalSandbox]:
    task = Task(
        family="swe-bench",
        instance_id="demo__quokka-1",
        image="local",
        workdir=str(repo),
        problem_statement=f"The {KEY} adder subtracts.",
    )
    sandbox = LocalSandbox(repo)
    agent = LlmAgent(
        {
            "name": "llm",
            "model": "scripted-model",
            "base_url": url,
            "retry_backoff": 0.01,
            "api_key_env": "SWE_TEST_KEY",
            **settings,
        }
    )
    ctx = AgentContext(
        task=task,
        settings={},
        artifacts=tmp_path / "agent",
        timeout=timeout,
        command_timeout=command_timeout,
        sandbox=sandbox,
    )
    return agent.run(ctx), sandbox


def trajectory(result: AgentResult) -> dict[str, Any]:
    assert result.trajectory_path
    return json.loads(Path(result.trajectory_path).read_text())


def test_explores_edits_and_submits_with_native_tools(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SWE_TEST_KEY", "sk-test-123")
    script = Script(
        [
            bash("ls", "look around"),
            bash("cat mod.py"),
            bash(write_file("mod.py", "def add(a, b):\n    return a + b\n")),
            submit(),
        ]
    )
    with serving({KEY: script}) as server:
        result, _ = run_agent(
            repo, tmp_path, server.url, temperature=0.3, prices={"input": 1.0, "output": 2.0}
        )
    assert result.exit_status == ExitStatus.SUBMITTED
    assert result.steps == 4 and result.usage.calls == 4
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (400, 80)
    assert result.usage.cost == pytest.approx(4 * (100 * 1.0 + 20 * 2.0) / 1e6)
    assert result.patch is None  # the harness takes the diff
    assert (repo / "mod.py").read_text().endswith("return a + b\n")
    first = server.requests[0]
    assert first["headers"]["Authorization"] == "Bearer sk-test-123"
    assert first["body"]["model"] == "scripted-model" and first["body"]["temperature"] == 0.3
    assert [t["function"]["name"] for t in first["body"]["tools"]] == ["bash", "submit"]
    # The model saw the output of its commands as tool results.
    last = server.requests[-1]["body"]["messages"]
    tool_results = [m["content"] for m in last if m["role"] == "tool"]
    assert "mod.py" in tool_results[0] and "return a - b" in tool_results[1]
    traj = trajectory(result)
    assert traj["info"]["exit_status"] == "submitted" and len(traj["steps"]) == 4
    assert traj["steps"][1]["actions"][0]["command"] == "cat mod.py"
    assert traj["usage"]["calls"] == 4


def test_text_blocks_when_the_server_rejects_tools(repo: Path, tmp_path: Path) -> None:
    script = Script(
        [
            error(400, json.dumps({"error": {"message": "tools are not supported by this model"}})),
            text("THOUGHT: fix it\n```bash\nsed -i 's/a - b/a + b/' mod.py\n```"),
            text("no command here"),
            text(f"```bash\necho {SUBMIT_MARKER}\n```"),
        ]
    )
    with serving({KEY: script}) as server:
        result, _ = run_agent(repo, tmp_path, server.url)
    assert result.exit_status == ExitStatus.SUBMITTED, result.message
    assert "tools" in server.requests[0]["body"] and "tools" not in server.requests[1]["body"]
    assert "return a + b" in (repo / "mod.py").read_text()
    # the reply without a command was answered with a format error, then the agent went on
    third = server.requests[3]["body"]["messages"]
    assert "no ```bash block" in third[-1]["content"]


def test_step_limit_without_submission(repo: Path, tmp_path: Path) -> None:
    with serving({KEY: Script([], then=bash("ls"))}) as server:
        result, sandbox = run_agent(repo, tmp_path, server.url, limits={"steps": 3})
    assert result.exit_status == ExitStatus.STEP_LIMIT
    assert result.steps == 3 and len(server.requests) == 3 and len(sandbox.commands) == 3
    assert trajectory(result)["info"]["exit_status"] == "step_limit"


def test_500_then_200_is_retried(repo: Path, tmp_path: Path) -> None:
    script = Script([error(500, "upstream hiccup"), error(429, "slow down"), submit()])
    with serving({KEY: script}) as server:
        result, _ = run_agent(repo, tmp_path, server.url)
    assert result.exit_status == ExitStatus.SUBMITTED
    assert len(server.requests) == 3 and result.steps == 1
    assert trajectory(result)["steps"][0]["model"]["attempts"] == 3


def test_401_is_a_model_error_with_status_and_body(repo: Path, tmp_path: Path) -> None:
    body = json.dumps({"error": {"message": "Incorrect API key provided: sk-wrong"}})
    with serving({KEY: Script([error(401, body)])}) as server:
        result, _ = run_agent(repo, tmp_path, server.url)
    assert result.exit_status == ExitStatus.MODEL_ERROR
    assert "HTTP 401" in result.message and "Incorrect API key provided" in result.message
    assert len(server.requests) == 1  # a 401 is not retried


def test_endpoint_down_is_a_model_error_after_retries(repo: Path, tmp_path: Path) -> None:
    with serving({KEY: Script([])}) as server:
        url = server.url
    result, _ = run_agent(repo, tmp_path, url, retries=2)
    assert result.exit_status == ExitStatus.MODEL_ERROR
    assert "no HTTP response" in result.message and "after 3 attempts" in result.message


def test_trajectory_is_on_disk_before_each_command_runs(repo: Path, tmp_path: Path) -> None:
    path = tmp_path / "agent" / "trajectory.json"
    count = f"python3 -c \"import json; print('STEPS', len(json.load(open('{path}'))['steps']))\""
    script = Script([bash("true"), bash(count), submit()])
    with serving({KEY: script}) as server:
        result, _ = run_agent(repo, tmp_path, server.url)
    assert result.exit_status == ExitStatus.SUBMITTED
    observation = [m for m in server.requests[2]["body"]["messages"] if m["role"] == "tool"][-1]["content"]
    assert "STEPS 2" in observation


def test_long_output_keeps_head_and_tail(repo: Path, tmp_path: Path) -> None:
    command = "python3 -c \"print('HEAD' + 'x' * 50000 + 'TAIL')\""
    with serving({KEY: Script([bash(command), submit()])}) as server:
        run_agent(repo, tmp_path, server.url, observation_limit=1000)
    observation = [m for m in server.requests[1]["body"]["messages"] if m["role"] == "tool"][-1]["content"]
    assert "HEAD" in observation and "TAIL" in observation and "characters cut" in observation
    assert len(observation) < 1300
    assert truncate("abc", 10) == "abc"


def test_command_timeout_and_time_limit(repo: Path, tmp_path: Path) -> None:
    with serving({KEY: Script([bash("sleep 30"), bash("echo next")], then=bash("sleep 30"))}) as server:
        start = time.monotonic()
        result, _ = run_agent(repo, tmp_path, server.url, command_timeout=1, limits={"time": 4})
        elapsed = time.monotonic() - start
    assert result.exit_status == ExitStatus.TIME_LIMIT
    assert elapsed < 10
    second = [m for m in server.requests[1]["body"]["messages"] if m["role"] == "tool"][-1]["content"]
    assert "timed out after 1s and was killed" in second


def test_unknown_template_variable_is_a_config_error() -> None:
    agent = LlmAgent(
        {
            "name": "llm",
            "model": "m",
            "base_url": "http://127.0.0.1:9/v1",
            "templates": {"instance": "{{problem}}"},
        }
    )
    ctx = AgentContext(
        task=Task(family="f", instance_id="i", image="x"),
        settings={},
        artifacts=Path("/tmp"),
        timeout=10,
        command_timeout=5,
        sandbox=LocalSandbox(Path("/tmp")),
    )
    with pytest.raises(ConfigError, match=r"unknown variable \{\{problem\}\}"):
        agent.run(ctx)
    with pytest.raises(ConfigError, match="needs a model"):
        LlmAgent({"name": "llm", "base_url": "http://127.0.0.1:9/v1"})


def test_server_reported_cost_wins_over_prices(repo: Path, tmp_path: Path) -> None:
    assert Reply().status == 200
    from pytest_swe.agentkit.endpoint import ModelEndpoint

    endpoint = ModelEndpoint(prices={"input": 3.0, "output": 15.0})
    assert endpoint.cost_of(1_000_000, 0, None) == 3.0
    assert endpoint.cost_of(1_000_000, 0, 0.5) == 0.5
    assert ModelEndpoint().cost_of(10, 10, None) is None


def test_cost_limit_stops_the_agent(repo: Path, tmp_path: Path) -> None:
    # each call costs 100 * 2000 / 1e6 + 20 * 5000 / 1e6 = $0.30
    with serving({KEY: Script([], then=bash("ls"))}) as server:
        result, _ = run_agent(
            repo, tmp_path, server.url, prices={"input": 2000, "output": 5000}, limits={"cost": 0.5}
        )
    assert result.exit_status == ExitStatus.COST_LIMIT and result.steps == 2
    assert result.usage.cost == pytest.approx(0.6) and len(server.requests) == 2
