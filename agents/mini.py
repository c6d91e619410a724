"""The mini-swe-agent adapter: its agent, models and configs, run inside pytest-swe items.

mini-swe-agent (``pip install 'pytest-swe[mini]'``) runs unchanged; only its environment is
replaced by :class:`SandboxEnvironment`, which implements its v2 environment protocol
(``execute(action, cwd="", *, timeout=None)``, ``get_template_vars()``, ``serialize()``) over
the item's sandbox. Its trajectory is saved by mini-swe-agent itself after every step.

Settings (the benchmark's ``agent`` section):
``config`` (mini-swe-agent config specs, merged in order; default ``[swebench.yaml]``),
``mini`` (a mapping merged last, with ``agent``/``model``/``environment`` sections), and
the shared ``model``, ``base_url``, ``api_key_env``, ``temperature``, ``prices`` (USD per million
tokens, for a model LiteLLM has no price for), ``limits.{steps,cost,time}``, ``budget.{cost,calls}``. ``patch: submission`` (default) grades what the agent submitted,
or the sandbox's diff when it stopped without submitting; ``patch: diff`` always takes the diff.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.agentkit.budget import BudgetExhausted
from pytest_swe.agentkit.budget import parse_limits
from pytest_swe.agentkit.budget import time_limit
from pytest_swe.agentkit.context import required_sandbox
from pytest_swe.agentkit.endpoint import ModelEndpoint
from pytest_swe.api.agent import AgentContext
from pytest_swe.api.agent import AgentResult
from pytest_swe.api.agent import CallBudget
from pytest_swe.api.agent import ExitStatus
from pytest_swe.api.agent import Usage
from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import SweError
from pytest_swe.api.sandbox import Sandbox

EXTRA = "pip install 'pytest-swe[mini]'"
DEFAULT_CONFIG = ("swebench.yaml",)


def import_mini() -> Any:
    """Import mini-swe-agent on first use, quietly; a clear error names the extra when it is missing."""
    os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")
    try:
        import minisweagent
        import minisweagent.agents.default
        import minisweagent.config
        import minisweagent.exceptions
        import minisweagent.models
        import minisweagent.utils.serialize
    except ImportError as exc:
        raise ConfigError(
            f"agent 'mini-swe-agent' needs the mini-swe-agent package ({exc}): {EXTRA}"
        ) from None
    return minisweagent


class SandboxEnvironment:
    """mini-swe-agent's environment protocol (v2) over a pytest-swe :class:`Sandbox`."""

    def __init__(
        self,
        sandbox: Sandbox,
        *,
        cwd: str,
        timeout: float,
        env: Mapping[str, str] | None = None,
        forward_env: list[str] | None = None,
        output_limit: int | None = None,
        deadline: float | None = None,
        **ignored: Any,
    ) -> None:
        self.sandbox = sandbox
        self.cwd = cwd
        self.timeout = timeout
        self.env = dict(env or {})
        self.forward_env = list(forward_env or [])
        self.output_limit = output_limit
        self.deadline = deadline
        self.ignored = sorted(ignored)
        self.config = {"cwd": cwd, "timeout": timeout, "env": self.env, "forward_env": self.forward_env}

    def execute(self, action: dict[str, Any], cwd: str = "", *, timeout: int | None = None) -> dict[str, Any]:
        """Run ``action["command"]``; a timeout kills it and is reported, never raised (as in mini)."""
        command = action.get("command", "")
        limit = float(timeout or self.timeout)
        if self.deadline is not None:
            limit = max(min(limit, self.deadline - time.monotonic()), 1.0)
        env = {k: os.environ[k] for k in self.forward_env if k in os.environ}
        env.update(self.env)
        result = self.sandbox.exec(
            command, timeout=limit, workdir=cwd or self.cwd, env=env, output_limit=self.output_limit
        )
        output: dict[str, Any] = {
            "output": result.output,
            "returncode": result.exit_code,
            "exception_info": "",
        }
        if result.timed_out:
            output.update(
                returncode=-1,
                exception_info=f"An error occurred while executing the command: the command timed out after "
                f"{limit:.0f} seconds and was killed",
                extra={"exception_type": "TimeoutExpired", "exception": f"timed out after {limit:.0f}s"},
            )
        elif result.exit_code is None:
            output["returncode"] = -1
        self._check_finished(output)
        return output

    def _check_finished(self, output: dict[str, Any]) -> None:
        """Raise mini's ``Submitted`` when the output starts with its submission marker (as its envs do)."""
        from minisweagent.exceptions import Submitted

        lines = output.get("output", "").lstrip().splitlines(keepends=True)
        if (
            lines
            and lines[0].strip() == "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
            and output["returncode"] == 0
        ):
            submission = "".join(lines[1:])
            raise Submitted(
                {
                    "role": "exit",
                    "content": submission,
                    "extra": {"exit_status": "Submitted", "submission": submission},
                }
            )

    def get_template_vars(self, **kwargs: Any) -> dict[str, Any]:
        return {**self.config, **platform.uname()._asdict(), **kwargs}

    def serialize(self) -> dict[str, Any]:
        return {
            "info": {
                "config": {
                    "environment": {**self.config, "sandbox": self.sandbox.id, "ignored_keys": self.ignored},
                    "environment_type": f"{type(self).__module__}.{type(self).__name__}",
                }
            }
        }


class ModelQueryFailed(Exception):
    """The model could not answer (endpoint down, 401, ...): an infrastructure error, not a failure."""


#: How mini-swe-agent's LiteLLM model starts the error it raises for a model it has no price for.
COST_ERROR = "Error calculating cost for model"


def _usage_of(extra: Mapping[str, Any]) -> dict[str, Any]:
    response = extra.get("response")
    usage = response.get("usage") if isinstance(response, dict) else None
    return usage if isinstance(usage, dict) else {}


class MeteredModel:
    """Wraps a mini-swe-agent model: reserves each call in the run's budget, prices it with the
    configured ``prices`` when there are any, tells endpoint faults from configuration faults."""

    def __init__(self, model: Any, budget: CallBudget | None, endpoint: ModelEndpoint | None = None) -> None:
        self.model = model
        self.budget = budget
        self.endpoint = endpoint
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.model, name)

    def query(self, messages: list[dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
        from minisweagent.exceptions import InterruptAgentFlow

        if self.budget is not None:
            self.budget.reserve_call()
        try:
            message: dict[str, Any] = self.model.query(messages, **kwargs)
        except InterruptAgentFlow as exc:  # a format error: the call was made (and billed)
            if exc.messages:
                extra = exc.messages[0].setdefault("extra", {})
                self._price(extra)
                if self.budget is not None:
                    self.budget.charge(extra.get("cost", 0.0))
            raise
        except RuntimeError as exc:
            if str(exc).startswith(COST_ERROR):
                raise ConfigError(
                    f"agent 'mini-swe-agent': LiteLLM has no price for model {getattr(self.model.config, 'model_name', '?')!r}; "
                    "give agent.prices: {input: USD, output: USD} per million tokens, or "
                    "agent.mini.model.cost_tracking: ignore_errors"
                ) from None
            raise ModelQueryFailed(f"{type(exc).__name__}: {exc}") from exc
        except Exception as exc:  # litellm and the provider SDKs behind it raise types of their own
            status = getattr(exc, "status_code", None)
            where = f"HTTP {status}: " if status else ""
            raise ModelQueryFailed(f"{where}{type(exc).__name__}: {exc}") from exc
        extra = message.setdefault("extra", {})
        self._price(extra)
        if self.budget is not None:
            self.budget.charge(extra.get("cost", 0.0))
        usage = _usage_of(extra)
        self.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        self.completion_tokens += int(usage.get("completion_tokens") or 0)
        return message

    def _price(self, extra: dict[str, Any]) -> None:
        """With configured prices, a call costs its tokens at those prices (a server-reported cost wins)."""
        if self.endpoint is None or not self.endpoint.prices:
            return
        usage = _usage_of(extra)
        reported = usage.get("cost")
        cost = self.endpoint.cost_of(
            int(usage.get("prompt_tokens") or 0),
            int(usage.get("completion_tokens") or 0),
            float(reported) if isinstance(reported, (int, float)) else None,
        )
        extra["cost"] = cost or 0.0


class MiniSweAgent:
    name = "mini-swe-agent"
    needs_sandbox = True

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.settings = dict(settings)
        self.mini = import_mini()
        self.endpoint = ModelEndpoint.from_settings(settings)
        self.limits, _ = parse_limits(settings)
        self.patch_source = str(settings.get("patch") or "submission")
        if self.patch_source not in ("submission", "diff"):
            raise ConfigError(f"agent.patch: {self.patch_source!r} is not 'submission' or 'diff'")
        self.base_config = self._load_config()

    def _load_config(self) -> dict[str, Any]:
        from minisweagent.config import get_config_from_spec
        from minisweagent.utils.serialize import recursive_merge

        specs = self.settings.get("config") or DEFAULT_CONFIG
        if isinstance(specs, str):
            specs = [specs]
        configs = []
        for spec in specs:
            try:
                configs.append(get_config_from_spec(str(spec)))
            except (FileNotFoundError, ValueError) as exc:
                raise ConfigError(f"agent.config: mini-swe-agent config {spec!r}: {exc}") from None
        overrides = self.settings.get("mini") or {}
        if not isinstance(overrides, Mapping):
            raise ConfigError("agent.mini must be a mapping with agent/model/environment sections")
        return dict(recursive_merge(*configs, dict(overrides)))

    def _model_config(self) -> dict[str, Any]:
        config = dict(self.base_config.get("model") or {})
        kwargs = dict(config.get("model_kwargs") or {})
        if self.endpoint.model:
            config["model_name"] = self.endpoint.model
        if self.endpoint.base_url:
            kwargs["api_base"] = self.endpoint.base_url
        key = self.endpoint.api_key()
        if key and self.endpoint.base_url:
            kwargs["api_key"] = key
        if "temperature" in self.settings and self.settings["temperature"] is not None:
            kwargs["temperature"] = self.settings["temperature"]
        if self.endpoint.prices:
            config["cost_tracking"] = "ignore_errors"  # LiteLLM's price is not needed: ours is used
        config["model_kwargs"] = kwargs
        return config

    def run(self, ctx: AgentContext) -> AgentResult:
        from minisweagent.agents.default import DefaultAgent
        from minisweagent.models import get_model

        sandbox = required_sandbox(ctx, self.name)
        limit = time_limit(self.limits, ctx.timeout)
        env_config = dict(self.base_config.get("environment") or {})
        explicit_cwd = ((self.settings.get("mini") or {}).get("environment") or {}).get("cwd")
        environment = SandboxEnvironment(
            sandbox,
            **{k: v for k, v in env_config.items() if k not in ("cwd", "timeout", "environment_class")},
            cwd=explicit_cwd or ctx.task.workdir,
            timeout=min(float(env_config.get("timeout") or ctx.command_timeout), ctx.command_timeout),
            output_limit=ctx.output_limit,
            deadline=time.monotonic() + limit,
        )
        try:
            model = MeteredModel(get_model(config=self._model_config()), ctx.budget, self.endpoint)
        except (ValueError, TypeError) as exc:
            raise ConfigError(f"agent 'mini-swe-agent': cannot build its model: {exc}") from None
        agent_config = dict(self.base_config.get("agent") or {})
        if self.limits.steps is not None:
            agent_config["step_limit"] = self.limits.steps
        if self.limits.cost is not None:
            agent_config["cost_limit"] = self.limits.cost
        agent_config["wall_time_limit_seconds"] = int(limit)
        trajectory = ctx.artifacts / f"{ctx.task.instance_id}.traj.json"
        agent_config["output_path"] = trajectory
        try:
            agent = DefaultAgent(model, environment, **agent_config)
        except (ValueError, TypeError) as exc:  # pydantic's ValidationError is a ValueError
            raise ConfigError(f"agent 'mini-swe-agent': invalid agent config: {exc}") from None
        try:
            info = agent.run(ctx.task.problem_statement)
        except ModelQueryFailed as exc:
            return self._result(
                agent, model, trajectory, ExitStatus.MODEL_ERROR, f"model endpoint failed: {exc}"
            )
        except (BudgetExhausted, SweError):
            raise
        except Exception as exc:  # mini-swe-agent's own code: graded on what it changed, the reason on record
            return self._result(
                agent,
                model,
                trajectory,
                ExitStatus.AGENT_ERROR,
                f"mini-swe-agent raised {type(exc).__name__}: {exc}",
            )
        status = self._status(str(info.get("exit_status") or ""), agent)
        submission = info.get("submission") or ""
        patch = (
            submission
            if status == ExitStatus.SUBMITTED and self.patch_source == "submission" and submission.strip()
            else None
        )
        return self._result(
            agent, model, trajectory, status, f"mini-swe-agent: {info.get('exit_status')}", patch
        )

    def _status(self, exit_status: str, agent: Any) -> ExitStatus:
        if exit_status == "Submitted":
            return ExitStatus.SUBMITTED
        if exit_status == "TimeExceeded":
            return ExitStatus.TIME_LIMIT
        if exit_status == "LimitsExceeded":
            step_limit = agent.config.step_limit
            return ExitStatus.STEP_LIMIT if 0 < step_limit <= agent.n_calls else ExitStatus.COST_LIMIT
        if exit_status == "RepeatedFormatError":
            return ExitStatus.FORMAT_ERROR
        return ExitStatus.AGENT_ERROR

    def _result(
        self,
        agent: Any,
        model: MeteredModel,
        trajectory: Path,
        status: ExitStatus,
        message: str,
        patch: str | None = None,
    ) -> AgentResult:
        usage = Usage(
            calls=agent.n_calls,
            prompt_tokens=model.prompt_tokens,
            completion_tokens=model.completion_tokens,
            cost=agent.cost,
        )
        return AgentResult(
            patch=patch,
            exit_status=status,
            steps=agent.n_calls,
            usage=usage,
            trajectory_path=str(trajectory) if trajectory.exists() else None,
            message=message,
            model_name=getattr(model.config, "model_name", None),
        )


@pytest.hookimpl
def pytest_swe_agents() -> list[Any]:
    return [MiniSweAgent]
