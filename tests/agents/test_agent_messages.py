"""What a run of agents tells its user: the agent's outcome in failure messages, the row's repo
on record, and one warning for an API key variable that is not set."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from modelserver import COMPLETION_TOKENS
from modelserver import PROMPT_TOKENS
from modelserver import Script
from modelserver import bash
from modelserver import serving
from test_agents_e2e import KEYS
from test_agents_e2e import benchmark
from test_agents_e2e import llm_agent

from conftest import SweProject

pytestmark = pytest.mark.docker

UNSET = "SWE_E2E_UNSET_KEY"


def test_unresolved_agent_runs_say_how_the_agent_ended(
    swe_project: SweProject, demo_images: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(UNSET, raising=False)
    never_submits = Script([], then=bash("ls"))
    with serving({KEYS["demo__pager-1"]: never_submits, KEYS["demo__calc-1"]: never_submits}) as server:
        agent = llm_agent(server.url, api_key_env=UNSET, limits={"steps": 2})
        benchmark(swe_project, "first", agent, ["demo__pager-1"])
        benchmark(swe_project, "second", agent, ["demo__calc-1"])
        run = swe_project.run("benchmarks/", "-n", "2", "-W", "default")
    out = run.result.stdout.str()
    assert run.outcomes() == {"demo__pager-1": "failed", "demo__calc-1": "failed"}, out[-3000:]

    warning = f"SweAgentWarning: agent.api_key_env names {UNSET}, which is not set"
    assert out.count(warning) == 1, out[-3000:]
    assert "first (agent llm)" in out and "second (agent llm)" in out

    cost = 2 * (PROMPT_TOKENS * 1.0 + COMPLETION_TOKENS * 4.0) / 1e6
    for case in run.cases:
        trajectory = case.properties["trajectory_path"]
        assert Path(trajectory).is_file()
        line = f"  agent: exit step_limit, 2 step(s), cost ${cost:.4f}, trajectory {trajectory}"
        assert line in case.message.splitlines(), case.message
    assert line in out  # the terminal's failure report says it too

    repos = {case.instance_id: case.properties["repo"] for case in run.cases}
    assert repos == {"demo__pager-1": "demo/pager", "demo__calc-1": "demo/calc"}
    by_repo = subprocess.run(
        [sys.executable, "-m", "pytest_swe.tools.cli", "report", "--json", "--by", "repo", str(run.run_dir)],
        capture_output=True,
        text=True,
    )
    assert by_repo.returncode == 0, by_repo.stderr
    assert sorted(json.loads(by_repo.stdout)["by_repo"]) == ["demo/calc", "demo/pager"]
