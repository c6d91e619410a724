"""A sandbox on the host (a temp directory and bash) for tests that need no Docker engine."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_swe.api.sandbox import CleanupResult
from pytest_swe.api.sandbox import ExecResult
from pytest_swe.api.sandbox import SandboxSpec
from pytest_swe.providers.docker.stream import CappedBuffer


class LocalSandbox:
    """Runs commands with bash in ``root``; a timeout kills the command's whole process group."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.id = f"local-{root.name}"
        self.spec = SandboxSpec(image="local", workdir=str(root))
        self.commands: list[str] = []

    def exec(
        self,
        command: str,
        *,
        timeout: float,
        workdir: str | None = None,
        env: Mapping[str, str] | None = None,
        user: str | None = None,
        output_limit: int | None = None,
    ) -> ExecResult:
        self.commands.append(command)
        started = time.monotonic()
        proc = subprocess.Popen(
            ["bash", "-c", command],
            cwd=workdir or self.root,
            env={**os.environ, **(env or {})},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            out, _ = proc.communicate(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            timed_out = True
        return ExecResult(
            exit_code=None if timed_out else proc.returncode,
            output=out.decode("utf-8", "replace"),
            timed_out=timed_out,
            duration=time.monotonic() - started,
        )

    def write_file(self, path: str, data: bytes, *, mode: int = 0o644) -> None:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        target.chmod(mode)

    def read_file(self, path: str) -> bytes:
        return Path(path).read_bytes()

    def end_processes(self) -> None:
        return None

    def alive(self) -> bool:
        return True

    def enter_command(self) -> str:
        return f"cd {self.root}"

    def close(self) -> CleanupResult:
        return CleanupResult(True)


class CappingSandbox(LocalSandbox):
    """Bash here, its output capped as the Docker provider caps it (head and tail kept)."""

    def exec(self, command: str, **kwargs: Any) -> ExecResult:
        result = super().exec(command, **{**kwargs, "output_limit": None})
        buffer = CappedBuffer(kwargs.get("output_limit") or 1 << 30)
        buffer.add(result.output.encode())
        return ExecResult(result.exit_code, buffer.text(), truncated_bytes=buffer.dropped)
