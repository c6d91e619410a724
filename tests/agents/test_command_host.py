"""The command agent's host mode, and the exec helper that points a host program at the sandbox."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from localsandbox import LocalSandbox

from pytest_swe.agentkit.execbridge import MAX_REQUEST
from pytest_swe.agentkit.execbridge import ExecServer
from pytest_swe.agents.command import CommandAgent
from pytest_swe.api.agent import AgentContext
from pytest_swe.api.agent import ExitStatus
from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import InfraError
from pytest_swe.api.task import Task


def context(tmp_path: Path, timeout: float = 30) -> AgentContext:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    artifacts = tmp_path / "agent"
    artifacts.mkdir(exist_ok=True)
    task = Task(
        family="swe-bench",
        instance_id="demo__host-1",
        image="local",
        workdir=str(work),
        problem_statement="Make greeting.txt say hello.",
    )
    return AgentContext(
        task=task,
        settings={},
        artifacts=artifacts,
        timeout=timeout,
        command_timeout=10,
        sandbox=LocalSandbox(work),
    )


def test_exec_helper_runs_in_the_sandbox_with_exit_codes_and_timeouts(tmp_path: Path) -> None:
    sandbox = LocalSandbox(tmp_path)
    server = ExecServer(sandbox, workdir=str(tmp_path), default_timeout=5, deadline=time.monotonic() + 60)
    try:
        helper = server.write_helper(tmp_path / "swe-exec")
        ok = subprocess.run([str(helper), "echo hi > f.txt && cat f.txt"], capture_output=True, text=True)
        assert (ok.returncode, ok.stdout) == (0, "hi\n")
        failed = subprocess.run([str(helper), "exit 3"], capture_output=True, text=True)
        assert failed.returncode == 3
        slow = subprocess.run(
            [str(helper), "--timeout", "1", "sleep 20"], capture_output=True, text=True, timeout=15
        )
        assert slow.returncode == 124
    finally:
        server.close()
    assert (tmp_path / "f.txt").read_text() == "hi\n" and server.count == 3


def _ask(socket_path: str, payload: bytes) -> dict[str, Any]:
    """One raw request to the exec server, the way its client sends one."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(socket_path)
        conn.sendall(payload)
        conn.shutdown(socket.SHUT_WR)
        data = b"".join(iter(lambda: conn.recv(65536), b""))
    reply: dict[str, Any] = json.loads(data)
    return reply


def test_exec_server_reports_bad_requests_and_the_time_limit(tmp_path: Path) -> None:
    sandbox = LocalSandbox(tmp_path)
    server = ExecServer(sandbox, workdir=str(tmp_path), default_timeout=5, deadline=time.monotonic() + 60)
    try:
        path = server.socket_path
        assert _ask(path, json.dumps({"command": "echo ok", "workdir": None}).encode())["output"] == "ok\n"
        not_json = _ask(path, b"{not json")
        assert not_json["exit_code"] == 125 and "JSONDecodeError" in not_json["output"]
        assert "must be a JSON object" in _ask(path, b"[1, 2]")["output"]
        too_large = _ask(path, b" " * (MAX_REQUEST + 1))
        assert too_large["exit_code"] == 125 and "request too large" in too_large["output"]
        server.deadline = time.monotonic() - 1
        late = _ask(path, json.dumps({"command": "touch late"}).encode())
        assert (late["exit_code"], late["timed_out"]) == (124, True) and "time limit is over" in late[
            "output"
        ]
    finally:
        server.close()
    assert sandbox.commands == ["echo ok"] and server.count == 1
    assert not Path(path).exists()
    with pytest.raises(OSError), socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(path)


def test_host_command_edits_the_sandbox_and_reports_usage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SWE_TEST_KEY", "sk-host")
    command = """
        set -e
        grep -q hello "$SWE_PROBLEM_FILE"
        "$SWE_SANDBOX_EXEC" 'echo hello > greeting.txt'
        echo "key=$OPENAI_API_KEY model=$OPENAI_MODEL id=$SWE_SANDBOX_ID"
        echo '{"steps": 4, "usage": {"calls": 4, "cost": 0.25}, "model_name": "ext"}' > "$SWE_RESULT_FILE"
    """
    agent = CommandAgent(
        {"name": "command", "mode": "host", "command": command, "model": "m1", "api_key_env": "SWE_TEST_KEY"}
    )
    ctx = context(tmp_path)
    result = agent.run(ctx)
    assert result.exit_status == ExitStatus.SUBMITTED, result.message
    assert (tmp_path / "work" / "greeting.txt").read_text() == "hello\n"
    assert (result.steps, result.usage.calls, result.usage.cost, result.model_name) == (4, 4, 0.25, "ext")
    stdout = Path(result.extra["stdout_path"]).read_text()
    assert f"key=sk-host model=m1 id={ctx.sandbox.id}" in stdout
    assert json.loads((ctx.artifacts / "command.json").read_text())["sandbox_commands"] == 1


def test_host_command_past_its_limit_is_killed_with_its_children(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    agent = CommandAgent(
        {
            "name": "command",
            "mode": "host",
            "limits": {"time": 2},
            "command": f"sleep 300 & echo $! > {pid_file}; echo started; wait",
        }
    )
    start = time.monotonic()
    result = agent.run(context(tmp_path))
    assert time.monotonic() - start < 15
    assert result.exit_status == ExitStatus.TIME_LIMIT and "time limit of 2s" in result.message
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(child):
        time.sleep(0.1)
    assert not _alive(child)
    assert Path(result.extra["stdout_path"]).read_text() == "started\n"


def test_failing_command_is_an_agent_error_with_stderr(tmp_path: Path) -> None:
    agent = CommandAgent({"name": "command", "mode": "host", "command": "echo boom >&2; exit 4"})
    result = agent.run(context(tmp_path))
    assert result.exit_status == ExitStatus.AGENT_ERROR
    assert "exited 4: boom" in result.message


def test_an_agent_without_its_sandbox_is_an_infrastructure_error(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    ctx.sandbox = None
    agent = CommandAgent({"name": "command", "mode": "host", "command": "touch ran"})
    with pytest.raises(InfraError, match="agent 'command' needs a sandbox"):
        agent.run(ctx)
    assert not (tmp_path / "agent" / "ran").exists()


def test_command_settings_are_checked_before_any_sandbox() -> None:
    with pytest.raises(ConfigError, match="needs a command"):
        CommandAgent({"name": "command"})
    with pytest.raises(ConfigError, match="not on this host's loopback"):
        CommandAgent({"name": "command", "command": "true", "base_url": "http://192.0.2.10:8000/v1"})
    host = CommandAgent(
        {"name": "command", "command": "true", "mode": "host", "base_url": "http://192.0.2.10/v1"}
    )
    assert host.endpoint_bridge_url() is None  # on the host, the command reaches the URL itself


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[1][0] != "Z"
    except OSError:
        return False
