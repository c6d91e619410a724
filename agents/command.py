"""The command agent: runs any program as the agent, so an external harness plugs in unchanged.

``mode: sandbox`` (default) runs ``agent.command`` inside the agent sandbox, in the task's
workdir. ``mode: host`` runs it on the host, pointed at the sandbox: ``SWE_SANDBOX_EXEC``
runs a command in the sandbox (any provider), ``SWE_SANDBOX_ID`` names it.

What the command gets (environment variables):
``SWE_PROBLEM_FILE`` (the problem statement as a file) and ``SWE_PROBLEM_STATEMENT``,
``SWE_INSTANCE_ID``, ``SWE_WORKDIR``, ``SWE_BASE_COMMIT``, ``SWE_REPO``, ``SWE_TIME_LIMIT``,
``SWE_RESULT_FILE``; and, when configured, ``OPENAI_BASE_URL``/``OPENAI_API_BASE``/
``SWE_MODEL_BASE_URL``, ``OPENAI_API_KEY``/``SWE_MODEL_API_KEY`` (from the variable named by
``agent.api_key_env``) and ``OPENAI_MODEL``/``SWE_MODEL``. In sandbox mode a loopback
``base_url`` is bridged in (see :mod:`pytest_swe.agentkit.endpoint`) and the URL rewritten to the
in-sandbox forwarder; the sandbox keeps no network.

The wall-time limit (``agent.limits.time``, capped by ``timeouts.agent``) kills the command's
whole process tree (``time_limit``); its changes are graded all the same. stdout and stderr
are saved in the item's ``agent/`` directory. The command may write ``SWE_RESULT_FILE``, a
JSON object with any of ``exit_status``, ``steps``, ``usage`` (calls, prompt_tokens,
completion_tokens, cost), ``model_name``, ``message``, ``patch`` and ``trajectory`` (a path
to copy into the artifacts); ``exit_status: model_error`` makes the item an infrastructure
error. Without it, exit code 0 is ``submitted`` and anything else ``agent_error``.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from typing import Literal

import pytest
from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field
from pydantic import ValidationError

from pytest_swe.agentkit.budget import parse_limits
from pytest_swe.agentkit.budget import time_limit
from pytest_swe.agentkit.context import required_sandbox
from pytest_swe.agentkit.endpoint import ModelEndpoint
from pytest_swe.agentkit.endpoint import loopback_target
from pytest_swe.agentkit.execbridge import ExecServer
from pytest_swe.api.agent import AgentContext
from pytest_swe.api.agent import AgentResult
from pytest_swe.api.agent import ExitStatus
from pytest_swe.api.agent import Usage
from pytest_swe.api.errors import ConfigError
from pytest_swe.api.sandbox import Sandbox

IO_DIR = "/tmp/pytest-swe/command"
MAX_ENV_STATEMENT = 100_000
"""Longer problem statements are cut in the env var (one env string may hold 128 KiB); the file has it all."""

EXIT_ALIASES = {
    "submitted": "submitted",
    "limitsexceeded": "step_limit",
    "timeexceeded": "time_limit",
    "repeatedformaterror": "format_error",
}


class CommandOptions(BaseModel):
    model_config = ConfigDict(extra="ignore")
    command: str | None = None
    mode: Literal["sandbox", "host"] = "sandbox"
    env: dict[str, str] = Field(default_factory=dict)
    files: dict[str, str] = Field(default_factory=dict)
    """Copied into the sandbox before the command: sandbox path -> host path ({instance_id} replaced)."""
    user: str | None = None
    """The sandbox user the command runs as (sandbox mode)."""


class CommandAgent:
    name = "command"
    needs_sandbox = True

    def __init__(self, settings: Mapping[str, Any]) -> None:
        try:
            self.options = CommandOptions.model_validate(dict(settings))
        except ValidationError as exc:
            raise ConfigError(f"agent 'command' settings: {exc}") from None
        if not self.options.command:
            raise ConfigError(
                "agent 'command' needs a command: --swe-set agent.command='...' (or agent.command)"
            )
        self.endpoint = ModelEndpoint.from_settings(settings)
        self.limits, _ = parse_limits(settings)
        if self.wants_bridge:
            loopback_target(self.endpoint.base_url or "")  # a non-loopback URL fails here, before any sandbox

    @property
    def wants_bridge(self) -> bool:
        return self.options.mode == "sandbox" and bool(self.endpoint.base_url)

    def endpoint_bridge_url(self) -> str | None:
        """The loopback endpoint to bridge into the sandbox (sandbox mode with a base_url)."""
        return self.endpoint.base_url if self.wants_bridge else None

    def run(self, ctx: AgentContext) -> AgentResult:
        sandbox = required_sandbox(ctx, self.name)
        if ctx.budget is not None:
            ctx.budget.check()  # the command's calls cannot be counted while it runs: refuse it up front
        limit = time_limit(self.limits, ctx.timeout)
        upload_files(sandbox, self.options.files, ctx.task.instance_id)
        problem_file = ctx.artifacts / "problem_statement.md"
        problem_file.write_text(ctx.task.problem_statement, encoding="utf-8")
        if self.options.mode == "host":
            outcome = self._run_on_host(ctx, sandbox, limit, problem_file)
        else:
            outcome = self._run_in_sandbox(ctx, sandbox, limit)
        result = self._result(ctx, outcome, limit)
        if ctx.budget is not None:
            ctx.budget.charge(result.usage.cost, calls=result.usage.calls)
        return result

    # -- environment --------------------------------------------------------------------------

    def environment(
        self, ctx: AgentContext, *, problem_file: str, result_file: str, base_url: str | None, limit: float
    ) -> dict[str, str]:
        task = ctx.task
        statement = task.problem_statement
        env = {
            "SWE_INSTANCE_ID": task.instance_id,
            "SWE_WORKDIR": task.workdir,
            "SWE_BASE_COMMIT": task.base_commit or "",
            "SWE_REPO": task.repo or "",
            "SWE_PROBLEM_FILE": problem_file,
            "SWE_PROBLEM_STATEMENT": statement[:MAX_ENV_STATEMENT],
            "SWE_RESULT_FILE": result_file,
            "SWE_TIME_LIMIT": str(int(limit)),
        }
        if len(statement) > MAX_ENV_STATEMENT:
            env["SWE_PROBLEM_TRUNCATED"] = "1"
        if base_url:
            env.update(OPENAI_BASE_URL=base_url, OPENAI_API_BASE=base_url, SWE_MODEL_BASE_URL=base_url)
        key = self.endpoint.api_key()
        if key:
            env.update(OPENAI_API_KEY=key, SWE_MODEL_API_KEY=key)
        if self.endpoint.model:
            env.update(OPENAI_MODEL=self.endpoint.model, SWE_MODEL=self.endpoint.model)
        env.update(self.options.env)
        return env

    # -- sandbox mode -------------------------------------------------------------------------

    def _run_in_sandbox(self, ctx: AgentContext, sandbox: Sandbox, limit: float) -> dict[str, Any]:
        started = time.monotonic()
        problem_path = f"{IO_DIR}/problem_statement.md"
        result_path = f"{IO_DIR}/result.json"
        sandbox.write_file(problem_path, ctx.task.problem_statement.encode("utf-8"), mode=0o644)
        sandbox.exec(f"chmod 777 {IO_DIR}", timeout=ctx.command_timeout, user="root")
        base_url = self.endpoint.base_url
        if ctx.endpoint is not None:
            base_url = ctx.endpoint.start_in_sandbox(sandbox, timeout=ctx.command_timeout)
        env = self.environment(
            ctx, problem_file=problem_path, result_file=result_path, base_url=base_url, limit=limit
        )
        quoted = shlex.quote(self.options.command or "")
        script = (
            f"if command -v bash >/dev/null 2>&1; then bash -c {quoted}; else sh -c {quoted}; fi "
            f"> {IO_DIR}/stdout 2> {IO_DIR}/stderr"
        )
        remaining = max(limit - (time.monotonic() - started), 1.0)
        run = sandbox.exec(
            script,
            timeout=remaining,
            workdir=ctx.task.workdir,
            env=env,
            user=self.options.user,
            output_limit=ctx.output_limit,
        )
        saved = _fetch_outputs(sandbox, ctx, timeout=ctx.command_timeout)
        result_data = _read_sandbox_file(sandbox, result_path)
        outcome = {
            "exit_code": run.exit_code,
            "timed_out": run.timed_out,
            "duration": run.duration,
            "result": result_data,
            **saved,
        }
        trajectory = _result_json(result_data).get("trajectory")
        if isinstance(trajectory, str) and trajectory:
            data = _read_sandbox_file(sandbox, trajectory)
            if data is not None:
                target = ctx.artifacts / ("trajectory" + (Path(trajectory).suffix or ".json"))
                target.write_bytes(data)
                outcome["trajectory_path"] = str(target)
        return outcome

    # -- host mode ----------------------------------------------------------------------------

    def _run_on_host(
        self, ctx: AgentContext, sandbox: Sandbox, limit: float, problem_file: Path
    ) -> dict[str, Any]:
        deadline = time.monotonic() + limit
        server = ExecServer(
            sandbox,
            workdir=ctx.task.workdir,
            default_timeout=ctx.command_timeout,
            deadline=deadline,
            output_limit=ctx.output_limit,
        )
        result_file = ctx.artifacts / "result.json"
        result_file.unlink(missing_ok=True)
        try:
            helper = server.write_helper(ctx.artifacts / "swe-exec")
            env = {
                **os.environ,
                **self.environment(
                    ctx,
                    problem_file=str(problem_file),
                    result_file=str(result_file),
                    base_url=self.endpoint.base_url,
                    limit=limit,
                ),
                "SWE_SANDBOX_EXEC": str(helper),
                "SWE_SANDBOX_ID": sandbox.id,
                "SWE_SANDBOX_ENTER": sandbox.enter_command(),
                "SWE_ARTIFACTS_DIR": str(ctx.artifacts),
            }
            stdout_path, stderr_path = ctx.artifacts / "command.stdout", ctx.artifacts / "command.stderr"
            started = time.monotonic()
            with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
                proc = subprocess.Popen(
                    ["bash", "-c", self.options.command or ""],
                    cwd=ctx.artifacts,
                    env=env,
                    stdout=out,
                    stderr=err,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,
                )
                try:
                    code: int | None = proc.wait(timeout=limit)
                    timed_out = False
                except subprocess.TimeoutExpired:
                    _kill_group(proc)
                    code, timed_out = None, True
                except BaseException:  # Ctrl-C or SIGTERM too: the command's processes must not outlive it
                    _kill_group(proc)
                    raise
        finally:
            server.close()
        result_data = result_file.read_bytes() if result_file.exists() else None
        outcome = {
            "exit_code": code,
            "timed_out": timed_out,
            "duration": time.monotonic() - started,
            "result": result_data,
            "stdout_path": str(stdout_path),
            "stderr_path": str(stderr_path),
            "sandbox_commands": server.count,
        }
        trajectory = _result_json(result_data).get("trajectory")
        if isinstance(trajectory, str) and Path(trajectory).is_file():
            target = ctx.artifacts / ("trajectory" + (Path(trajectory).suffix or ".json"))
            if Path(trajectory).resolve() != target.resolve():
                shutil.copyfile(trajectory, target)
            outcome["trajectory_path"] = str(target)
        return outcome

    # -- the account --------------------------------------------------------------------------

    def _result(self, ctx: AgentContext, outcome: dict[str, Any], limit: float) -> AgentResult:
        reported = _result_json(outcome.get("result"))
        record = {k: v for k, v in outcome.items() if k != "result"}
        record.update(
            command=self.options.command, mode=self.options.mode, time_limit=limit, reported=reported
        )
        (ctx.artifacts / "command.json").write_text(json.dumps(record, indent=1, default=str))
        code, timed_out = outcome["exit_code"], outcome["timed_out"]
        tail = _tail(outcome.get("stderr_path"))
        if timed_out:
            status, message = (
                ExitStatus.TIME_LIMIT,
                f"the command was killed at its time limit of {limit:.0f}s",
            )
        elif isinstance(reported.get("exit_status"), str):
            status = _exit_status(reported["exit_status"])
            message = str(
                reported.get("message") or f"the command reported {reported['exit_status']} (exit {code})"
            )
        elif code == 0:
            status, message = ExitStatus.SUBMITTED, "the command exited 0"
        else:
            status, message = (
                ExitStatus.AGENT_ERROR,
                f"the command exited {code}" + (f": {tail}" if tail else ""),
            )
        usage = _usage(reported.get("usage"))
        patch = reported.get("patch") if isinstance(reported.get("patch"), str) else None
        extra = {key: outcome[key] for key in ("stdout_path", "stderr_path") if outcome.get(key)}
        return AgentResult(
            patch=patch,
            exit_status=status,
            steps=int(reported.get("steps") or 0),
            usage=usage,
            trajectory_path=outcome.get("trajectory_path"),
            message=message,
            model_name=str(reported.get("model_name") or self.endpoint.model or "") or None,
            extra=extra,
        )


def upload_files(sandbox: Sandbox, files: Mapping[str, str], instance_id: str) -> None:
    """Copy host files or directories into the sandbox (sandbox path -> host path)."""
    for inside, outside in files.items():
        source = Path(outside.replace("{instance_id}", instance_id)).expanduser()
        if source.is_file():
            sandbox.write_file(inside, source.read_bytes(), mode=source.stat().st_mode & 0o777)
        elif source.is_dir():
            for path in sorted(p for p in source.rglob("*") if p.is_file()):
                target = f"{inside.rstrip('/')}/{path.relative_to(source).as_posix()}"
                sandbox.write_file(target, path.read_bytes(), mode=path.stat().st_mode & 0o777)
        else:
            raise ConfigError(f"agent.files: {source} does not exist (for {inside})")


def _fetch_outputs(sandbox: Sandbox, ctx: AgentContext, *, timeout: float) -> dict[str, str]:
    """Copy the command's stdout and stderr into the artifacts (head and tail when too big)."""
    half = max(ctx.output_limit // 2, 1024)
    cap = (
        f'for f in {IO_DIR}/stdout {IO_DIR}/stderr; do [ -f "$f" ] || continue; '
        f'size=$(wc -c < "$f"); if [ "$size" -gt {2 * half} ]; then '
        f"{{ head -c {half} \"$f\"; printf '\\n[... %s bytes cut ...]\\n' $((size - {2 * half})); "
        f'tail -c {half} "$f"; }} > "$f.cut" && mv "$f.cut" "$f"; fi; done'
    )
    sandbox.exec(cap, timeout=timeout, user="root")
    saved = {}
    for stream in ("stdout", "stderr"):
        data = _read_sandbox_file(sandbox, f"{IO_DIR}/{stream}") or b""
        path = ctx.artifacts / f"command.{stream}"
        path.write_bytes(data)
        saved[f"{stream}_path"] = str(path)
    return saved


def _read_sandbox_file(sandbox: Sandbox, path: str) -> bytes | None:
    try:
        return sandbox.read_file(path)
    except (FileNotFoundError, IsADirectoryError):
        return None


def _result_json(data: bytes | None) -> dict[str, Any]:
    if not data:
        return {}
    try:
        parsed = json.loads(data)
    except ValueError:
        return {"message": "SWE_RESULT_FILE is not valid JSON; ignored"}
    return parsed if isinstance(parsed, dict) else {}


def _exit_status(value: str) -> ExitStatus:
    key = value.strip().lower().replace("-", "_")
    key = EXIT_ALIASES.get(key.replace("_", ""), key)
    try:
        return ExitStatus(key)
    except ValueError:
        return ExitStatus.AGENT_ERROR


def _usage(value: Any) -> Usage:
    if not isinstance(value, dict):
        return Usage()
    try:
        return Usage.model_validate({k: v for k, v in value.items() if k in Usage.model_fields})
    except ValidationError:
        return Usage()


def _tail(path: str | None, chars: int = 500) -> str:
    if not path:
        return ""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""
    return text[-chars:]


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the host command's process group, then SIGKILL whatever is left after a grace period."""
    for sig, wait in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            if sig == signal.SIGTERM:
                os.killpg(proc.pid, signal.SIGKILL)  # stragglers in the group that ignored SIGTERM
            return
        except subprocess.TimeoutExpired:
            continue
        except ProcessLookupError:
            return


@pytest.hookimpl
def pytest_swe_agents() -> list[Any]:
    return [CommandAgent]
