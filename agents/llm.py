"""The built-in LLM agent: a bash-tool loop over an OpenAI-compatible Chat Completions endpoint.

Each step asks the model for its next action and runs it in the sandbox. Native tool calls
(``bash`` and ``submit``) are used; a model or server without tool support falls back to
one fenced ```bash block per reply. The trajectory is saved after every model reply and
every command, so a run killed at any moment leaves every finished step on disk. The
harness takes the patch as ``git diff`` of the sandbox, so limits and crashes keep the work.

Settings (the benchmark's ``agent`` section, or ``--swe-set agent.KEY=VALUE``):
``model``, ``base_url`` (default ``$OPENAI_BASE_URL``), ``api_key_env`` (the *name* of the
variable holding the key, default ``OPENAI_API_KEY``), ``temperature``, ``max_tokens``, ``prices``,
``limits.{steps,cost,time}``, ``budget.{cost,calls}``, ``tool_mode`` (auto/native/text),
``observation_limit``, ``templates.{system,instance,observation,format_error}``, ``env``.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Mapping
from typing import Any
from typing import Literal

import pytest
from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field
from pydantic import ValidationError

from pytest_swe.agentkit.budget import BudgetExhausted
from pytest_swe.agentkit.budget import parse_limits
from pytest_swe.agentkit.budget import time_limit
from pytest_swe.agentkit.chat import ChatClient
from pytest_swe.agentkit.chat import ChatResponse
from pytest_swe.agentkit.chat import EndpointDeadline
from pytest_swe.agentkit.chat import ModelEndpointError
from pytest_swe.agentkit.context import required_sandbox
from pytest_swe.agentkit.endpoint import ModelEndpoint
from pytest_swe.agentkit.trajectory import Trajectory
from pytest_swe.api.agent import AgentContext
from pytest_swe.api.agent import AgentResult
from pytest_swe.api.agent import ExitStatus
from pytest_swe.api.agent import Usage
from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import SweError

SUBMIT_MARKER = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
DEFAULT_STEP_LIMIT = 100

SYSTEM_TEMPLATE = """\
You are a software engineer fixing an issue in the repository at {{workdir}}, working through a \
Linux shell. Run one bash command per reply with the `bash` tool. Each command runs in a fresh \
`bash -c` in {{workdir}}: `cd` and variables do not persist. Commands cannot be interactive; \
edit files with sed, python3 or heredocs. Long output is cut in the middle.
When the fix is complete, call the `submit` tool (without a tool: run \
`echo {{submit_marker}}`). Your changes to the working tree are the result; do not commit them.
If you cannot use tools, reply with exactly one fenced block:
```bash
<one command>
```"""

INSTANCE_TEMPLATE = """\
<issue>
{{problem_statement}}
</issue>

Make changes to non-test files in {{workdir}} so that the issue is resolved. Explore the code, \
reproduce the problem, fix it, check the fix, then submit."""

OBSERVATION_TEMPLATE = "<exit_code>{{exit_code}}</exit_code>{{note}}\n<output>\n{{output}}\n</output>"

FORMAT_ERROR_TEMPLATE = """\
Your reply had no command to run ({{error}}). Reply with one `bash` tool call, or with exactly one \
```bash block holding one command. When you are done, call `submit`."""

BASH_TOOL = {
    "type": "function",
    "function": {
        "name": "bash",
        "description": "Run one bash command in the repository and see its exit code and output.",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string", "description": "The command to run."}},
            "required": ["command"],
        },
    },
}
SUBMIT_TOOL = {
    "type": "function",
    "function": {
        "name": "submit",
        "description": "Finish: the current changes to the working tree are your solution.",
        "parameters": {"type": "object", "properties": {}},
    },
}

_BLOCK = re.compile(r"```(?:bash|sh|shell|mswea_bash_command)?[ \t]*\n(.*?)```", re.DOTALL)
_VARIABLE = re.compile(r"\{\{\s*(\w+)\s*\}\}")

DEFAULT_ENV = {
    "PAGER": "cat",
    "MANPAGER": "cat",
    "GIT_PAGER": "cat",
    "LESS": "-R",
    "TQDM_DISABLE": "1",
    "PIP_PROGRESS_BAR": "off",
}


class LlmOptions(BaseModel):
    model_config = ConfigDict(extra="ignore")
    tool_mode: Literal["auto", "native", "text"] = "auto"
    """auto: tool calls, falling back to text blocks when the server rejects tools."""
    observation_limit: int = Field(10_000, gt=200)
    """Characters of command output shown to the model (head and tail kept)."""
    max_format_errors: int = Field(3, ge=1)
    templates: dict[str, str] = Field(default_factory=dict)
    env: dict[str, str] = Field(default_factory=dict)


def render(template: str, variables: Mapping[str, Any], *, name: str) -> str:
    """Fill ``{{name}}`` placeholders (the Jinja spelling, so mini-swe-agent templates read alike)."""

    def value(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in variables:
            known = ", ".join(sorted(variables))
            raise ConfigError(f"agent.templates.{name}: unknown variable {{{{{key}}}}} (known: {known})")
        return str(variables[key])

    return _VARIABLE.sub(value, template)


def truncate(text: str, limit: int) -> str:
    """Keep the head and tail of ``text`` within ``limit`` characters and say how much was cut."""
    if len(text) <= limit:
        return text
    half = limit // 2
    cut = len(text) - 2 * half
    note = f"[... {cut} characters cut; use head, tail, grep or sed to see less at once ...]"
    return f"{text[:half]}\n{note}\n{text[-half:]}"


class _Stop(Exception):
    def __init__(self, status: ExitStatus, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class LlmAgent:
    name = "llm"
    needs_sandbox = True

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.settings = dict(settings)
        self.endpoint = ModelEndpoint.from_settings(settings)
        self.endpoint.base_url = self.endpoint.base_url or os.environ.get("OPENAI_BASE_URL")
        if not self.endpoint.model:
            raise ConfigError(
                "agent 'llm' needs a model: --swe-set agent.model=NAME (or agent.model in the benchmark)"
            )
        if not self.endpoint.base_url:
            raise ConfigError("agent 'llm' needs an endpoint: --swe-set agent.base_url=http://HOST:PORT/v1")
        try:
            self.options = LlmOptions.model_validate(settings)
        except ValidationError as exc:
            raise ConfigError(f"agent 'llm' settings: {exc}") from None
        self.limits, _ = parse_limits(settings)
        unknown = set(self.options.templates) - {"system", "instance", "observation", "format_error"}
        if unknown:
            raise ConfigError(
                f"agent.templates: unknown template(s) {sorted(unknown)} (system, instance, "
                "observation, format_error)"
            )

    def run(self, ctx: AgentContext) -> AgentResult:
        return _Run(self, ctx).run()


class _Run:
    """One task's loop; holds the conversation, usage and trajectory."""

    def __init__(self, agent: LlmAgent, ctx: AgentContext) -> None:
        self.agent = agent
        self.ctx = ctx
        self.sandbox = required_sandbox(ctx, agent.name)
        self.endpoint = agent.endpoint
        self.options = agent.options
        self.step_limit = agent.limits.steps if agent.limits.steps is not None else DEFAULT_STEP_LIMIT
        self.cost_limit = agent.limits.cost or 0.0
        self.started = time.monotonic()
        self.deadline = self.started + time_limit(agent.limits, ctx.timeout)
        self.native = self.options.tool_mode != "text"
        self.usage = Usage(cost=None)
        self.steps = 0
        self.format_errors = 0
        self.client = ChatClient(
            base_url=self.endpoint.base_url or "",
            api_key=self.endpoint.api_key(),
            request_timeout=self.endpoint.request_timeout,
            retries=self.endpoint.retries,
            backoff=self.endpoint.retry_backoff,
        )
        task = ctx.task
        self.variables = {
            "problem_statement": task.problem_statement,
            "task": task.problem_statement,
            "instance_id": task.instance_id,
            "repo": task.repo or "",
            "base_commit": task.base_commit or "",
            "workdir": task.workdir,
            "submit_marker": SUBMIT_MARKER,
            "step_limit": self.step_limit,
        }
        self.trajectory = Trajectory(
            ctx.artifacts / "trajectory.json",
            agent="llm",
            instance_id=task.instance_id,
            model=self.endpoint.model,
            base_url=self.endpoint.base_url,
            limits={"steps": self.step_limit, "cost": self.cost_limit, "time": self.deadline - self.started},
        )

    def template(self, name: str, default: str, **extra: Any) -> str:
        return render(self.options.templates.get(name, default), {**self.variables, **extra}, name=name)

    # -- the loop -------------------------------------------------------------------------------

    def run(self) -> AgentResult:
        messages = self.trajectory.messages
        messages.append({"role": "system", "content": self.template("system", SYSTEM_TEMPLATE)})
        messages.append({"role": "user", "content": self.template("instance", INSTANCE_TEMPLATE)})
        self.trajectory.save()
        try:
            while True:
                self.check_limits()
                if self.step():
                    raise _Stop(ExitStatus.SUBMITTED, "the agent submitted")
        except _Stop as stop:
            return self.finish(stop.status, stop.message)
        except ModelEndpointError as exc:
            return self.finish(ExitStatus.MODEL_ERROR, str(exc))
        except BudgetExhausted as exc:
            self.finish_trajectory("budget_exhausted", str(exc))
            raise
        except SweError as exc:  # an infrastructure fault (the sandbox died ...): the item errors
            self.finish_trajectory("infra_error", str(exc))
            raise
        except Exception as exc:  # a bug: graded on what it changed, with the reason on record
            return self.finish(ExitStatus.AGENT_ERROR, f"the agent raised {type(exc).__name__}: {exc}")
        except BaseException as exc:  # Ctrl-C or SIGTERM: every step so far stays on disk
            self.finish_trajectory("interrupted", f"{type(exc).__name__}: {exc}")
            raise

    def check_limits(self) -> None:
        if time.monotonic() >= self.deadline:
            raise _Stop(ExitStatus.TIME_LIMIT, f"time limit of {self.deadline - self.started:.0f}s reached")
        if self.step_limit and self.steps >= self.step_limit:
            raise _Stop(
                ExitStatus.STEP_LIMIT, f"step limit of {self.step_limit} reached without a submission"
            )
        if self.cost_limit and (self.usage.cost or 0.0) >= self.cost_limit:
            raise _Stop(
                ExitStatus.COST_LIMIT, f"cost limit of ${self.cost_limit} reached (${self.usage.cost:.4f})"
            )

    def step(self) -> bool:
        """One model call and its actions; True when the agent submitted."""
        if self.ctx.budget is not None:
            self.ctx.budget.reserve_call()
        self.steps += 1
        started = time.monotonic()
        response = self.query()
        cost = self.endpoint.cost_of(
            response.prompt_tokens, response.completion_tokens, response.reported_cost
        )
        if self.ctx.budget is not None:
            self.ctx.budget.charge(cost)
        self.account(response, cost)
        message = _api_message(response.message)
        self.trajectory.messages.append(message)
        record: dict[str, Any] = {
            "step": self.steps,
            "started": time.time(),
            "model": {
                "duration": round(time.monotonic() - started, 3),
                "finish_reason": response.finish_reason,
                "prompt_tokens": response.prompt_tokens,
                "completion_tokens": response.completion_tokens,
                "cost": cost,
                "attempts": response.attempts,
                "mode": "native" if self.native else "text",
            },
            "actions": [],
        }
        self.trajectory.steps.append(record)
        self.save_usage()
        tool_calls = message.get("tool_calls") or []
        if tool_calls:
            return self.run_tool_calls(tool_calls, record)
        return self.run_text(message.get("content") or "", record, response.finish_reason)

    def query(self) -> ChatResponse:
        payload: dict[str, Any] = {"model": self.endpoint.model, "messages": self.trajectory.messages}
        if self.endpoint.temperature is not None:
            payload["temperature"] = self.endpoint.temperature
        if self.endpoint.max_tokens:
            payload["max_tokens"] = self.endpoint.max_tokens
        payload.update(self.endpoint.extra_body)
        if self.native:
            payload["tools"] = [BASH_TOOL, SUBMIT_TOOL]
        try:
            return self.client.complete(payload, deadline=self.deadline)
        except EndpointDeadline as exc:
            raise _Stop(ExitStatus.TIME_LIMIT, str(exc)) from None
        except ModelEndpointError as exc:
            if (
                self.native
                and self.options.tool_mode == "auto"
                and exc.status == 400
                and "tool" in exc.body.lower()
            ):
                self.native = False  # the server does not take tools: go on with fenced blocks
                self.trajectory.data["info"]["tool_mode"] = f"text (tools rejected: {exc.body[:300]})"
                payload.pop("tools", None)
                try:
                    return self.client.complete(payload, deadline=self.deadline)
                except EndpointDeadline as again:
                    raise _Stop(ExitStatus.TIME_LIMIT, str(again)) from None
            raise

    def account(self, response: ChatResponse, cost: float | None) -> None:
        self.usage.calls += 1
        self.usage.prompt_tokens += response.prompt_tokens
        self.usage.completion_tokens += response.completion_tokens
        if cost is not None:
            self.usage.cost = (self.usage.cost or 0.0) + cost

    def save_usage(self) -> None:
        self.trajectory.data["usage"] = self.usage.model_dump()
        self.trajectory.save()

    # -- actions --------------------------------------------------------------------------------

    def run_tool_calls(self, tool_calls: list[dict[str, Any]], record: dict[str, Any]) -> bool:
        submitted = False
        for call in tool_calls:
            call_id = call.get("id") or ""
            function = call.get("function") or {}
            name = function.get("name")
            if submitted:
                self.reply(call_id, "not run: the agent already submitted")
                continue
            if name == "submit":
                submitted = True
                self.reply(call_id, "submitted")
                record["actions"].append({"tool": "submit"})
                continue
            error: str | None
            try:
                args = json.loads(function.get("arguments") or "{}")
            except ValueError as exc:
                args, error = None, f"the arguments are not JSON: {exc}"
            else:
                error = (
                    None
                    if isinstance(args, dict) and isinstance(args.get("command"), str)
                    else "the bash tool needs a string 'command' argument"
                )
            if name != "bash":
                error = f"unknown tool {name!r}: use bash or submit"
            if error or args is None:
                self.format_error(error or "bad arguments", reply_to=call_id)
                continue
            self.format_errors = 0
            output, done = self.execute(args["command"], record)
            self.reply(call_id, output)
            submitted = submitted or done
        self.trajectory.save()
        return submitted

    def run_text(self, content: str, record: dict[str, Any], finish_reason: str | None) -> bool:
        blocks = _BLOCK.findall(content)
        if len(blocks) != 1:
            why = "no ```bash block" if not blocks else f"{len(blocks)} ```bash blocks, expected one"
            if finish_reason == "length":
                why += "; the reply was cut off at the token limit"
            self.format_error(why)
            self.trajectory.save()
            return False
        self.format_errors = 0
        output, done = self.execute(blocks[0].strip(), record)
        self.trajectory.messages.append({"role": "user", "content": output})
        self.trajectory.save()
        return done

    def reply(self, call_id: str, content: str) -> None:
        self.trajectory.messages.append({"role": "tool", "tool_call_id": call_id, "content": content})

    def format_error(self, error: str, *, reply_to: str | None = None) -> None:
        self.format_errors += 1
        text = self.template("format_error", FORMAT_ERROR_TEMPLATE, error=error)
        if reply_to is not None:
            self.reply(reply_to, text)
        else:
            self.trajectory.messages.append({"role": "user", "content": text})
        if self.format_errors >= self.options.max_format_errors:
            self.trajectory.save()
            raise _Stop(
                ExitStatus.FORMAT_ERROR, f"{self.format_errors} replies in a row had no usable command"
            )

    def execute(self, command: str, record: dict[str, Any]) -> tuple[str, bool]:
        """Run one command; returns the observation and whether it was the submission signal."""
        remaining = self.deadline - time.monotonic()
        if remaining < 1:
            raise _Stop(ExitStatus.TIME_LIMIT, "time limit reached before the command could run")
        timeout = min(self.ctx.command_timeout, remaining)
        action: dict[str, Any] = {"tool": "bash", "command": command, "started": time.time()}
        record["actions"].append(action)
        self.trajectory.save()  # the command is on disk before it runs (it may never return)
        result = self.sandbox.exec(
            command,
            timeout=timeout,
            workdir=self.ctx.task.workdir,
            env={**DEFAULT_ENV, **self.options.env},
            output_limit=self.ctx.output_limit,
        )
        action.update(
            exit_code=result.exit_code,
            timed_out=result.timed_out,
            duration=round(result.duration, 3),
            output=truncate(result.output, self.options.observation_limit),
        )
        if result.timed_out and time.monotonic() >= self.deadline:
            raise _Stop(ExitStatus.TIME_LIMIT, f"time limit reached while running: {command[:200]}")
        first = result.output.lstrip().splitlines()[:1]
        if result.exit_code == 0 and first and first[0].strip() == SUBMIT_MARKER:
            return "submitted", True
        note = (
            f"\n<note>the command timed out after {timeout:.0f}s and was killed</note>"
            if result.timed_out
            else ""
        )
        observation = self.template(
            "observation",
            OBSERVATION_TEMPLATE,
            exit_code="none" if result.exit_code is None else result.exit_code,
            note=note,
            output=truncate(result.output, self.options.observation_limit),
        )
        return observation, False

    # -- the end --------------------------------------------------------------------------------

    def finish_trajectory(self, status: str, message: str) -> None:
        self.trajectory.data["usage"] = self.usage.model_dump()
        self.trajectory.finish(status, message, steps=self.steps)

    def finish(self, status: ExitStatus, message: str) -> AgentResult:
        self.finish_trajectory(str(status), message)
        return AgentResult(
            patch=None,
            exit_status=status,
            steps=self.steps,
            usage=self.usage,
            trajectory_path=str(self.trajectory.path),
            message=message,
            model_name=self.endpoint.model,
        )


def _api_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """The assistant message as it goes back to the API (role, content, tool calls only)."""
    out: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        out["tool_calls"] = [
            {"id": c.get("id"), "type": c.get("type", "function"), "function": c.get("function") or {}}
            for c in message["tool_calls"]
        ]
    return out


@pytest.hookimpl
def pytest_swe_agents() -> list[Any]:
    return [LlmAgent]
