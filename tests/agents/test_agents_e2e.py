"""Every agent end to end on the demo benchmark: real Docker sandboxes, a real loopback model server.

Each test is one pytest run (in a subprocess, read back from its JUnit ledger) that covers
several items at once, to keep the number of runs, and so CI time, small.
"""

from __future__ import annotations

import importlib.util
import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from modelserver import Script
from modelserver import bash
from modelserver import error
from modelserver import serving
from modelserver import submit
from modelserver import text
from modelserver import write_file

from conftest import DEMO_DIR
from conftest import DEMO_JSONL
from conftest import SweProject
from conftest import labelled_containers
from conftest import unavailable

pytestmark = pytest.mark.docker

KEYS = {  # a phrase of each instance's problem statement: it picks the model server's script
    "demo__calc-1": "Subtraction chains",
    "demo__pager-1": "skips the first page",
    "demo__slugkit-1": "mangles accented",
    "demo__envfile-1": "export KEY=value",
    "demo__lru-1": "callback when an entry",
    "demo__confkit-1": "Boolean settings",
    "demo__routes-1": "Trailing slash",
    "demo__ledger-1": "minus sign after",
}


def fix_commands(instance_id: str) -> list[str]:
    """Shell commands writing the gold fix's files, as a model would write them."""
    fix = DEMO_DIR / "instances" / instance_id / "fix"
    return [
        write_file(p.relative_to(fix).as_posix(), p.read_text())
        for p in sorted(fix.rglob("*"))
        if p.is_file()
    ]


def benchmark(
    project: SweProject, name: str, agent: dict[str, Any], instances: list[str], **timeouts: float
) -> None:
    body = {
        "name": name,
        "family": "swe-bench",
        "dataset": {"source": str(DEMO_JSONL), "split": "test", "instances": instances},
        "markers": ["demo"],
        "agent": agent,
        "provider": "docker",
        "timeouts": {"agent": 120, "eval": 120, "command": 60, **timeouts},
        "limits": {"memory": "1g", "cpus": 1, "pids": 512},
    }
    project.benchmark(name, json.dumps(body))  # JSON is YAML


def llm_agent(url: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": "llm",
        "model": "scripted-model",
        "base_url": url,
        "api_key_env": "SWE_E2E_KEY",
        "retry_backoff": 0.05,
        "prices": {"input": 1.0, "output": 4.0},
        **extra,
    }


def report_text(junit: Path) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "pytest_swe.tools.cli", "report", str(junit)], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_llm_agent_outcomes(
    swe_project: SweProject, demo_images: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SWE_E2E_KEY", "sk-e2e-secret")
    scripts = {
        # explores, edits, checks, submits: resolved
        KEYS["demo__calc-1"]: Script(
            [
                bash("ls", "Let me look around."),
                bash("cat calc/parser.py"),
                *[bash(c) for c in fix_commands("demo__calc-1")],
                bash("python3 -c 'from calc.parser import evaluate; print(evaluate(\"8-3-2\"))'"),
                submit(),
            ]
        ),
        # never submits and changes nothing: the step limit, unresolved
        KEYS["demo__pager-1"]: Script([], then=bash("ls")),
        # fixes the bug (adding a file) but never submits: the step limit, and the work still resolves
        KEYS["demo__slugkit-1"]: Script(
            [bash(c) for c in fix_commands("demo__slugkit-1")], then=bash("git status")
        ),
        # the endpoint fails once with 500, then answers
        KEYS["demo__envfile-1"]: Script(
            [error(500, "upstream overloaded"), *[bash(c) for c in fix_commands("demo__envfile-1")], submit()]
        ),
        # a bad key: the item is an error with the endpoint's status and body, never a scored empty patch
        KEYS["demo__lru-1"]: Script(
            [error(401, json.dumps({"error": {"message": "Incorrect API key provided"}}))]
        ),
    }
    with serving(scripts) as server:
        benchmark(
            swe_project,
            "llmdemo",
            llm_agent(server.url, limits={"steps": 6}),
            ["demo__calc-1", "demo__pager-1", "demo__slugkit-1", "demo__envfile-1", "demo__lru-1"],
        )
        run = swe_project.run("benchmarks/", "-n", "2")
    cases = run.by_id
    assert run.outcomes() == {
        "demo__calc-1": "passed",
        "demo__pager-1": "failed",
        "demo__slugkit-1": "passed",
        "demo__envfile-1": "passed",
        "demo__lru-1": "error",
    }, run.result.stdout.str()[-3000:]

    calc = cases["demo__calc-1"].properties
    assert (
        calc["agent_exit_status"] == "submitted" and calc["agent_steps"] == "5" and calc["agent_calls"] == "5"
    )
    assert calc["agent_prompt_tokens"] == "500" and calc["agent_completion_tokens"] == "100"
    assert float(calc["agent_cost"]) == pytest.approx(5 * (100 * 1.0 + 20 * 4.0) / 1e6)
    assert calc["model"] == "scripted-model"
    traj = json.loads(Path(calc["trajectory_path"]).read_text())
    assert traj["info"]["exit_status"] == "submitted" and len(traj["steps"]) == 5
    assert (
        "8-3-2" in traj["steps"][3]["actions"][0]["command"]
        and traj["steps"][3]["actions"][0]["output"] == "3\n"
    )
    calc_requests = server.requests_for(KEYS["demo__calc-1"])
    assert {r["headers"]["Authorization"] for r in calc_requests} == {"Bearer sk-e2e-secret"}
    assert "sk-e2e-secret" not in Path(calc["trajectory_path"]).read_text()

    pager = cases["demo__pager-1"]
    assert pager.properties["agent_exit_status"] == "step_limit" and pager.properties["agent_steps"] == "6"
    assert (
        pager.properties["patch_exists"] == "false" and "step limit of 6" in pager.properties["agent_message"]
    )
    assert len(server.requests_for(KEYS["demo__pager-1"])) == 6

    slugkit = cases["demo__slugkit-1"].properties
    assert slugkit["agent_exit_status"] == "step_limit" and slugkit["resolved"] == "true"
    assert (
        "new file mode" in Path(slugkit["patch_path"]).read_text()
    )  # slugkit/ascii.py, created by the agent

    assert cases["demo__envfile-1"].properties["agent_exit_status"] == "submitted"
    assert len(server.requests_for(KEYS["demo__envfile-1"])) == len(scripts[KEYS["demo__envfile-1"]].replies)

    lru = cases["demo__lru-1"]
    assert lru.properties["error_kind"] == "model_endpoint" and lru.properties["masked"] == "true"
    assert lru.properties["agent_exit_status"] == "model_error"
    assert "HTTP 401" in lru.message and "Incorrect API key provided" in lru.message
    assert len(server.requests_for(KEYS["demo__lru-1"])) == 1

    summary = report_text(run.junit)
    assert "exit statuses: model_error=1, step_limit=2, submitted=2" in summary, summary


COMMAND = """\
set -e
case "$SWE_INSTANCE_ID" in
  demo__slugkit-1)
    grep -q "mangles accented" "$SWE_PROBLEM_FILE"
    cp -r /tmp/swe-fix/. .
    printf '\\000\\001\\002\\003binary' > slugkit/blob.bin
    echo "interfaces: $(ls /sys/class/net | tr '\\n' ' ')"
    python3 - <<'PY'
import json, os, socket, urllib.request
probe = socket.socket()
probe.settimeout(3)
try:
    probe.connect(("127.0.0.1", int(os.environ["HOST_MODEL_PORT"])))
    print("DIRECT_CONNECTED")
except OSError as exc:
    print("DIRECT_REFUSED", exc)
statement = os.environ["SWE_PROBLEM_STATEMENT"]
body = {"model": os.environ["OPENAI_MODEL"], "messages": [{"role": "user", "content": statement}]}
url = os.environ["OPENAI_BASE_URL"] + "/chat/completions"
request = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"],
                                          "Content-Type": "application/json"})
reply = json.load(urllib.request.urlopen(request, timeout=20))
print("MODEL_SAID", reply["choices"][0]["message"]["content"])
print("BASE_URL", os.environ["OPENAI_BASE_URL"])
PY
    echo "finished slugkit" >&2
    ;;
  demo__pager-1)
    cp -r /tmp/swe-fix/. .
    echo "fixed; now hanging"
    sleep 600
    ;;
esac
"""

HOST_COMMAND = """\
set -e
code=$(base64 -w0 {fix}/calc/parser.py)
"$SWE_SANDBOX_EXEC" "echo $code | base64 -d > calc/parser.py"
"$SWE_SANDBOX_EXEC" "git status --short" > status.txt
echo '{{"steps": 2, "exit_status": "submitted", "message": "host harness done"}}' > "$SWE_RESULT_FILE"
"""

CRASHING_AGENT = """
import pytest
from pytest_swe.agents.command import upload_files


class CrashingAgent:
    name = "crasher"
    needs_sandbox = True

    def __init__(self, settings):
        self.files = settings["files"]

    def run(self, ctx):
        upload_files(ctx.sandbox, self.files, ctx.task.instance_id)
        raise RuntimeError("the agent fell over after writing its fix")


@pytest.hookimpl
def pytest_swe_agents():
    return [CrashingAgent]
"""


def test_command_and_crashing_agents(
    swe_project: SweProject, demo_images: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SWE_E2E_KEY", "sk-through-the-bridge")
    fix_dir = str(DEMO_DIR / "instances" / "{instance_id}" / "fix")
    swe_project.pytester.makeconftest(CRASHING_AGENT)
    with serving({KEYS["demo__slugkit-1"]: Script([text("pong from the host")])}) as server:
        benchmark(
            swe_project,
            "cmddemo",
            {
                "name": "command",
                "command": COMMAND,
                "model": "bridged-model",
                "base_url": server.url,
                "api_key_env": "SWE_E2E_KEY",
                "files": {"/tmp/swe-fix": fix_dir},
                "env": {"HOST_MODEL_PORT": str(server.port)},
                "limits": {"time": 8},
            },
            ["demo__slugkit-1", "demo__pager-1"],
        )
        benchmark(
            swe_project,
            "hostdemo",
            {
                "name": "command",
                "mode": "host",
                "command": HOST_COMMAND.format(fix=DEMO_DIR / "instances" / "demo__calc-1" / "fix"),
            },
            ["demo__calc-1"],
        )
        benchmark(
            swe_project, "crashdemo", {"name": "crasher", "files": {"/testbed": fix_dir}}, ["demo__ledger-1"]
        )
        start = time.monotonic()
        run = swe_project.run("benchmarks/", "-n", "2")
        elapsed = time.monotonic() - start
    assert run.outcomes() == {
        "demo__slugkit-1": "passed",
        "demo__pager-1": "passed",
        "demo__calc-1": "passed",
        "demo__ledger-1": "passed",
    }, run.result.stdout.str()[-3000:]
    cases = run.by_id

    slugkit = cases["demo__slugkit-1"].properties
    assert slugkit["agent_exit_status"] == "submitted"
    stdout = Path(slugkit["agent_stdout_path"]).read_text()
    assert "interfaces: lo \n" in stdout  # no network interface but loopback
    assert "DIRECT_REFUSED" in stdout  # the host's loopback is not the sandbox's
    assert "MODEL_SAID pong from the host" in stdout  # ... but the model server is, through the bridge
    assert f":{server.port}/" not in stdout.split("BASE_URL ")[1]  # the URL was rewritten to the forwarder
    assert Path(slugkit["agent_stderr_path"]).read_text() == "finished slugkit\n"
    (request,) = server.requests_for(KEYS["demo__slugkit-1"])
    assert request["headers"]["Authorization"] == "Bearer sk-through-the-bridge"
    assert request["body"]["model"] == "bridged-model"
    patch = Path(slugkit["patch_path"]).read_text()
    assert "new file mode" in patch and "slugkit/ascii.py" in patch
    assert "GIT binary patch" in patch and "slugkit/blob.bin" in patch

    pager = cases["demo__pager-1"].properties
    assert pager["agent_exit_status"] == "time_limit"  # killed at 8s, yet the fix it wrote was graded
    assert float(pager["time_agent"]) < 30 and elapsed < 150
    assert Path(pager["agent_stdout_path"]).read_text() == "fixed; now hanging\n"

    calc = cases["demo__calc-1"].properties
    assert calc["agent_exit_status"] == "submitted" and calc["agent_steps"] == "2"
    assert "M calc/parser.py" in (Path(calc["agent_stdout_path"]).parent / "status.txt").read_text()

    ledger = cases["demo__ledger-1"].properties
    assert ledger["agent_exit_status"] == "agent_error"
    assert "RuntimeError: the agent fell over" in ledger["agent_message"]
    assert Path(ledger["patch_path"]).read_text().strip()


def mini_outputs() -> list[dict[str, Any]]:
    def step(command: str) -> dict[str, Any]:
        return {
            "role": "assistant",
            "content": f"THOUGHT: next.\n\n```mswea_bash_command\n{command}\n```",
            "extra": {"actions": [{"command": command}]},
        }

    return [
        step("ls lru"),
        *[step(c) for c in fix_commands("demo__lru-1")],
        step("git diff -- lru/cache.py > patch.txt"),
        step("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt"),
    ]


def test_mini_swe_agent_resolves(
    swe_project: SweProject, demo_images: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SWE_E2E_KEY", "sk-mini")
    if importlib.util.find_spec("minisweagent") is None:
        unavailable("needs the mini extra: pip install -e '.[mini]' (scripts/setup.sh --tests installs it)")
    tool_fix = [bash(c) for c in fix_commands("demo__routes-1")]
    scripts = {
        KEYS["demo__routes-1"]: Script(
            [*tool_fix, bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff")]
        )
    }
    with serving(scripts) as server:
        # its own deterministic test model, with its stock SWE-bench config
        benchmark(
            swe_project,
            "minidemo",
            {
                "name": "mini-swe-agent",
                "limits": {"cost": 100},
                "mini": {"model": {"model_class": "deterministic", "outputs": mini_outputs()}},
            },
            ["demo__lru-1"],
        )
        # its LiteLLM model against the scripted OpenAI-compatible server
        benchmark(
            swe_project,
            "minilitellm",
            {
                "name": "mini-swe-agent",
                "model": "openai/scripted",
                "base_url": server.url,
                "api_key_env": "SWE_E2E_KEY",
                "mini": {"model": {"cost_tracking": "ignore_errors"}},
            },
            ["demo__routes-1"],
        )
        run = swe_project.run("benchmarks/", subprocess=True)  # LiteLLM reads its settings when imported
    assert run.outcomes() == {"demo__lru-1": "passed", "demo__routes-1": "passed"}, run.result.stdout.str()[
        -3000:
    ]
    lru = run.by_id["demo__lru-1"].properties
    assert lru["agent_exit_status"] == "submitted" and lru["agent_steps"] == str(len(mini_outputs()))
    traj = json.loads(Path(lru["trajectory_path"]).read_text())
    assert traj["trajectory_format"] == "mini-swe-agent-1.1" and traj["info"]["exit_status"] == "Submitted"
    assert traj["info"]["config"]["environment_type"] == "pytest_swe.agents.mini.SandboxEnvironment"
    assert "lru/cache.py" in Path(lru["patch_path"]).read_text()
    routes = run.by_id["demo__routes-1"].properties
    assert routes["agent_exit_status"] == "submitted" and routes["model"] == "openai/scripted"
    assert len(server.requests_for(KEYS["demo__routes-1"])) == len(tool_fix) + 1


def test_run_budget_is_shared_by_workers(
    swe_project: SweProject, demo_images: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SWE_E2E_KEY", "k")
    keys = [KEYS["demo__calc-1"], KEYS["demo__pager-1"], KEYS["demo__confkit-1"]]
    with serving({key: Script([], then=bash("sleep 0.3")) for key in keys}) as server:
        benchmark(
            swe_project,
            "budgetdemo",
            llm_agent(server.url, limits={"steps": 10}, budget={"calls": 4}),
            ["demo__calc-1", "demo__pager-1", "demo__confkit-1"],
        )
        run = swe_project.run("benchmarks/", "-n", "2", "--swe-retries", "1")
    assert len(server.requests) == 4  # the budget held across both workers
    # refused items are masked errors, never failures; a retry in the same run would only be refused again
    assert set(run.outcomes().values()) == {"error"}, run.outcomes()
    for case in run.cases:
        assert case.properties["error_kind"] == "budget_exhausted"
        assert "call budget is spent (4 of 4 calls" in case.message
        assert case.properties["masked"] == "true" and case.properties["reward"] == "0.0"
        assert "retried_errors" not in case.properties
    assert json.loads((run.run_dir / "budget.json").read_text())["calls"] == 4


def test_trajectory_survives_sigterm_mid_run(
    swe_project: SweProject,
    demo_images: list[str],
    tmp_path: Path,
    docker_engine: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SWE_E2E_KEY", "k")
    key = KEYS["demo__confkit-1"]
    script = Script([bash("ls"), bash("cat confkit/coerce.py"), bash("sleep 300")], then=submit())
    with serving({key: script}) as server:
        benchmark(swe_project, "killdemo", llm_agent(server.url), ["demo__confkit-1"])
        run_dir = tmp_path / "run"
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pytest",
                "benchmarks/",
                "-p",
                "no:cacheprovider",
                f"--swe-run-dir={run_dir}",
            ],
            cwd=swe_project.path,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        traj_path = run_dir / "killdemo" / "demo__confkit-1" / "agent" / "trajectory.json"
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and len(server.requests) < 3:
            time.sleep(0.2)
        assert len(server.requests) == 3, "the agent never reached its third step"
        time.sleep(1.5)  # the third command (sleep 300) is running now
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    traj = json.loads(traj_path.read_text())
    assert [s["step"] for s in traj["steps"]] == [1, 2, 3], out[-2000:]
    assert traj["steps"][0]["actions"][0]["output"].split() == [
        "README.md",
        "confkit",
        "pyproject.toml",
        "tests",
    ]
    assert "def " in traj["steps"][1]["actions"][0]["output"]
    assert traj["steps"][2]["actions"][0]["command"] == "sleep 300"
    assert traj["info"]["exit_status"] == "interrupted"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and labelled_containers(docker_engine, benchmark="killdemo"):
        time.sleep(0.2)
    assert not labelled_containers(docker_engine, benchmark="killdemo")


def test_agent_settings_come_from_swe_set(
    swe_project: SweProject, demo_images: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Model, endpoint, key variable, temperature and limits all set on the command line."""
    monkeypatch.setenv("OTHER_KEY", "sk-from-cli")
    key = KEYS["demo__ledger-1"]
    with serving({key: Script([], then=bash("true"))}) as server:
        benchmark(swe_project, "setdemo", {"name": "gold"}, ["demo__ledger-1"])
        run = swe_project.run(
            "benchmarks/",
            "--swe-agent",
            "llm",
            "--swe-set",
            "agent.model=cli-model",
            "--swe-set",
            f"agent.base_url={server.url}",
            "--swe-set",
            "agent.api_key_env=OTHER_KEY",
            "--swe-set",
            "agent.temperature=0.7",
            "--swe-set",
            "agent.limits.steps=2",
            "--swe-set",
            "agent.templates.instance='Issue for {{instance_id}}: {{problem_statement}}'",
        )
    (case,) = run.cases
    assert case.outcome == "failed" and case.properties["agent_exit_status"] == "step_limit"
    body = server.requests[0]["body"]
    assert body["model"] == "cli-model" and body["temperature"] == 0.7
    assert body["messages"][1]["content"].startswith("Issue for demo__ledger-1: format_amount()")
    assert server.requests[0]["headers"]["Authorization"] == "Bearer sk-from-cli"
    assert len(server.requests) == 2
    unquoted = swe_project.run("benchmarks/", "--swe-set", "agent.templates.instance={{instance_id}}")
    assert "the value is not valid YAML" in unquoted.result.stdout.str() + unquoted.result.stderr.str()
