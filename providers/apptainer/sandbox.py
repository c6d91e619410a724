"""One Apptainer instance as a sandbox: commands through ``apptainer exec instance://NAME``.

A timeout kills the command's process tree from inside the instance (its shell's pid is written to
a pid file first, the tree found through /proc), as the Docker provider does: killing the
``apptainer exec`` client alone would leave the command running in the instance.
"""

from __future__ import annotations

import contextlib
import shlex
import subprocess
import threading
import time
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING

from pytest_swe.api.errors import InfraError
from pytest_swe.api.sandbox import CleanupResult
from pytest_swe.api.sandbox import ExecResult
from pytest_swe.api.sandbox import SandboxSpec

from ..bubblewrap.sandbox import READ
from ..bubblewrap.sandbox import WRITE
from ..bubblewrap.sandbox import read_output
from ..bubblewrap.sandbox import shell_exit_code
from ..docker.sandbox import _END_MARK
from ..docker.sandbox import _EXEC_WRAPPER
from ..docker.sandbox import _KILL_TREE
from ..docker.sandbox import _PIDDIR
from ..docker.stream import CappedBuffer
from . import commands

if TYPE_CHECKING:
    from .provider import ApptainerProvider

DEFAULT_OUTPUT_LIMIT = 4_000_000
OUTPUT_DRAIN_SECONDS = 0.5
HELPER_TIMEOUT = 60.0

# Every process but the instance's init (pid 1), this script and the process that started it.
KILL_ALL = r"""
for round in 1 2 3 4 5 6 7 8; do
  found=""
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    case "$p" in 1|$$|$PPID) continue;; esac
    found="$found $p"
  done
  [ -z "$found" ] && exit 0
  kill -KILL $found 2>/dev/null
  sleep 0.2
done
"""


class ApptainerSandbox:
    """One running instance, named ``name`` (which carries the run id)."""

    def __init__(
        self, provider: ApptainerProvider, name: str, spec: SandboxSpec, env: Mapping[str, str]
    ) -> None:
        self.provider = provider
        self.id = name
        self.spec = spec
        self.env = dict(env)

    def _helper(
        self, script: str, *args: str, data: bytes | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        argv = commands.exec_argv(self.id, ["/bin/sh", "-c", script, "helper", *args], workdir="/", env={})
        try:
            return self.provider.runner(argv, input=data or b"", capture_output=True, timeout=HELPER_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise self._fault("helper", exc) from None

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
        token = uuid.uuid4().hex
        end_mark = _END_MARK.format(token=token)
        wrapper = _EXEC_WRAPPER.format(piddir=_PIDDIR, token=token, end_mark=end_mark)
        argv = commands.exec_argv(
            self.id,
            ["/bin/sh", "-c", wrapper, "pytest-swe", command],
            workdir=workdir or self.spec.workdir,
            env={**self.env, **(env or {})},
            user=user,
        )
        started = time.monotonic()
        try:
            proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
            )
        except OSError as exc:
            raise self._fault("exec", exc) from None
        assert proc.stdout is not None
        buffer = CappedBuffer(output_limit or DEFAULT_OUTPUT_LIMIT)
        stop = threading.Event()
        reader = threading.Thread(target=read_output, args=(proc.stdout.fileno(), buffer, stop), daemon=True)
        reader.start()
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            self._helper(_KILL_TREE.format(piddir=_PIDDIR, token=token))
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
            if proc.poll() is None:
                proc.kill()
        finally:
            reader.join(OUTPUT_DRAIN_SECONDS)
            stop.set()
            reader.join(2)
            proc.stdout.close()
        returncode = proc.wait()
        output = buffer.text()
        at = output.rfind(f"\n{end_mark} ")
        if at >= 0:
            output = output[:at]
        elif not timed_out and not self.alive():
            raise InfraError("sandbox_died", f"instance {self.id} stopped during a command")
        return ExecResult(
            exit_code=137 if timed_out else shell_exit_code(returncode),
            output=output,
            timed_out=timed_out,
            duration=time.monotonic() - started,
            truncated_bytes=buffer.dropped,
        )

    def write_file(self, path: str, data: bytes, *, mode: int = 0o644) -> None:
        done = self._helper(WRITE, path, f"{mode:o}", data=data)
        if done.returncode != 0:
            raise InfraError(
                "sandbox_error", f"cannot write {path} in instance {self.id}: {done.stderr.decode()[-500:]}"
            )

    def read_file(self, path: str) -> bytes:
        done = self._helper(READ, path)
        if done.returncode == 0:
            return done.stdout
        if done.returncode in (2, 3):
            raise FileNotFoundError(f"{path} is not a regular file in instance {self.id}")
        raise InfraError(
            "sandbox_error", f"cannot read {path} in instance {self.id}: {done.stderr.decode()[-500:]}"
        )

    def end_processes(self) -> None:
        self._helper(KILL_ALL)

    def alive(self) -> bool:
        return any(instance.name == self.id for instance in self.provider.instances())

    def enter_command(self) -> str:
        return f"apptainer shell --pwd {shlex.quote(self.spec.workdir)} instance://{self.id}"

    def close(self) -> CleanupResult:
        return self.provider.remove(self.id)

    def _fault(self, action: str, exc: BaseException) -> InfraError:
        if not self.alive():
            return InfraError("sandbox_died", f"instance {self.id} is gone ({action}): {exc}")
        return InfraError("sandbox_error", f"{action} failed in instance {self.id}: {exc}")

    def __repr__(self) -> str:
        return f"ApptainerSandbox({self.id!r})"
