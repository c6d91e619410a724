"""mini-swe-agent's environment protocol over a pytest-swe sandbox; the error when its extra is missing."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from localsandbox import LocalSandbox

from pytest_swe.agents.mini import MiniSweAgent
from pytest_swe.agents.mini import SandboxEnvironment
from pytest_swe.api.errors import ConfigError

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
