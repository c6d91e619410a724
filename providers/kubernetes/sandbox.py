"""One pod as a sandbox: commands over the exec websocket with a real timeout, files over tar.

The exit code comes from the exec's status channel (channel 3: ``Success``, or ``Failure`` with
reason ``NonZeroExitCode`` and an ``ExitCode`` cause); a stream that closes without a status was
cut in transit. Every command runs with ``PYTEST_SWE_EXEC=<token>`` in its environment, which
its children inherit even when they leave its process group: at the timeout a second exec kills
every process whose environment carries the token.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import tarfile
import time
import uuid
from collections.abc import Callable
from collections.abc import Mapping
from typing import TYPE_CHECKING
from typing import Any

from pytest_swe.api.errors import InfraError
from pytest_swe.api.sandbox import CleanupResult
from pytest_swe.api.sandbox import ExecResult
from pytest_swe.api.sandbox import SandboxSpec

from ..docker.stream import CappedBuffer
from .client import api_errors
from .client import sdk
from .manifests import CONTAINER

if TYPE_CHECKING:
    from .provider import KubernetesProvider

Sink = Callable[[bytes], object]
DEFAULT_OUTPUT_LIMIT = 4_000_000
KILL_SETTLE_SECONDS = 2.0
"""After the kill at a timeout, how long the stream may take to close."""
HELPER_TIMEOUT = 30.0
STDIN_CHUNK = 1 << 16
ERROR_CHANNEL = 3
NO_SUCH_FILE = 44
"""The exit status of the file reader when the path is not a regular file."""

# $1: working directory, $2: the exec token, $3: the command. stderr joins stdout in the shell, so
# the combined output keeps the order in which lines were written.
_EXEC_WRAPPER = (
    'cd "$1" || exit 126; export PYTEST_SWE_EXEC="$2"; '
    'if command -v bash >/dev/null 2>&1; then exec bash -c "$3" 2>&1; else exec sh -c "$3" 2>&1; fi'
)

# Kills every process whose environment holds PYTEST_SWE_EXEC=$1 (stopped first, so none forks on):
# one grep over every environ file where grep reads NUL-separated lines, else one file at a time.
_KILL_TOKEN = r"""
mark="PYTEST_SWE_EXEC=$1"
for round in 1 2 3; do
  found=""
  if printf 'a\0' | grep -qzx a 2>/dev/null; then
    for env in $(grep -lszx "$mark" /proc/[0-9]*/environ); do pid=${env#/proc/}; found="$found ${pid%/environ}"; done
  else
    for env in /proc/[0-9]*/environ; do
      tr '\0' '\n' < "$env" 2>/dev/null | grep -qx "$mark" || continue
      pid=${env#/proc/}; found="$found ${pid%/environ}"
    done
  fi
  [ -z "$found" ] && exit 0
  kill -STOP $found 2>/dev/null; kill -KILL $found 2>/dev/null
  sleep 0.2
done
exit 0
"""

# Kills every process but the keep-alive (pid 1) and this script, a few rounds for racing forks.
_KILL_ALL = r"""
for round in 1 2 3 4 5; do
  found=""
  for dir in /proc/[0-9]*; do
    pid=${dir#/proc/}
    [ "$pid" = 1 ] || [ "$pid" = $$ ] || found="$found $pid"
  done
  [ -z "$found" ] && exit 0
  kill -STOP $found 2>/dev/null; kill -KILL $found 2>/dev/null
  sleep 0.2
done
exit 0
"""

_WRITE = 'mkdir -p "$1" && exec tar -xmf - -C "$1"'
_READ = f'[ -f "$1/$2" ] || exit {NO_SUCH_FILE}; cd "$1" && exec tar -cf - -- "$2"'


def exit_status(raw: Any) -> int | None:
    """The exit code in an exec's status message; None when there is none (the stream was cut).

    Raises InfraError when the API server reports that the command could not run at all.
    """
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    if not raw:
        return None
    try:
        status = json.loads(raw)
    except ValueError:
        raise InfraError("sandbox_error", f"unreadable exec status: {raw[:200]!r}") from None
    if status.get("status") == "Success":
        return 0
    if status.get("reason") == "NonZeroExitCode":
        for cause in (status.get("details") or {}).get("causes") or []:
            if cause.get("reason") == "ExitCode":
                return int(cause.get("message"))
    raise InfraError("sandbox_error", f"the command could not run: {status.get('message') or raw[:200]}")


class KubernetesSandbox:
    """One running pod."""

    def __init__(self, provider: KubernetesProvider, name: str, spec: SandboxSpec) -> None:
        self.provider = provider
        self.name = name
        self.id = name
        self.spec = spec

    # -- the exec stream ----------------------------------------------------------------------

    def _open(self, argv: list[str], *, stdin: bool = False) -> Any:
        """An exec websocket (the client's WSClient) running ``argv`` in the sandbox container."""
        k8s = sdk()
        try:
            return k8s.stream.stream(
                self.provider.core.connect_get_namespaced_pod_exec,
                self.name,
                self.provider.namespace,
                command=argv,
                container=CONTAINER,
                stdin=stdin,
                stdout=True,
                stderr=True,
                tty=False,
                binary=True,
                _preload_content=False,
            )
        except api_errors() as exc:
            raise self._fault("exec", exc) from None

    @staticmethod
    def _drain(client: Any, out: Sink, err: Sink | None = None) -> None:
        for channel, sink in ((1, out), (2, err or out)):
            data = client.read_channel(channel)
            if data:
                sink(data)
        # The client also keeps every byte it received for read_all(), which nothing here calls:
        # emptied so that a command's output is held once, capped, not twice and in full.
        if hasattr(client, "_all"):
            client._all = type(client._all)()

    def _finish(self, client: Any, out: Sink, err: Sink | None, deadline: float) -> tuple[bool, int | None]:
        """Read until the stream closes or ``deadline``: (closed, exit code)."""
        while client.is_open() and time.monotonic() < deadline:
            client.update(timeout=min(0.5, max(deadline - time.monotonic(), 0.01)))
            self._drain(client, out, err)
        if client.is_open():
            return False, None
        self._drain(client, out, err)
        return True, exit_status(client.read_channel(ERROR_CHANNEL))

    def _run_helper(self, script: str, *args: str) -> None:
        client = self._open(["sh", "-c", script, "pytest-swe", *args])
        try:
            self._finish(client, CappedBuffer(4096).add, None, time.monotonic() + HELPER_TIMEOUT)
        finally:
            client.close()

    # -- processes ----------------------------------------------------------------------------

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
        if user not in (None, "", "root", "0"):
            raise InfraError(
                "sandbox_error",
                f"the kubernetes provider runs commands as the image's user, not {user!r} "
                "(set the user in the image)",
            )
        token = uuid.uuid4().hex
        script = "".join(f"export {k}={shlex.quote(v)}; " for k, v in (env or {}).items()) + command
        argv = ["sh", "-c", _EXEC_WRAPPER, "pytest-swe", workdir or self.spec.workdir, token, script]
        buffer = CappedBuffer(output_limit or DEFAULT_OUTPUT_LIMIT)
        started = time.monotonic()
        client = self._open(argv)
        timed_out = False
        try:
            closed, exit_code = self._finish(client, buffer.add, None, started + timeout)
            if not closed:
                timed_out = True
                self._run_helper(_KILL_TOKEN, token)
                closed, exit_code = self._finish(
                    client, buffer.add, None, time.monotonic() + KILL_SETTLE_SECONDS
                )
        except api_errors() as exc:
            raise self._fault("exec", exc) from None
        finally:
            client.close()
        if closed and exit_code is None and not timed_out:
            raise self._cut(f"{buffer.received} bytes received, no exit status")
        return ExecResult(
            exit_code=exit_code,
            output=buffer.text(),
            timed_out=timed_out,
            duration=time.monotonic() - started,
            truncated_bytes=buffer.dropped,
        )

    def end_processes(self) -> None:
        self._run_helper(_KILL_ALL)

    # -- files ----------------------------------------------------------------------------------

    def write_file(self, path: str, data: bytes, *, mode: int = 0o644) -> None:
        directory, name = os.path.split(path.rstrip("/"))
        archive = io.BytesIO()
        with tarfile.open(fileobj=archive, mode="w", format=tarfile.GNU_FORMAT) as tar:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = mode
            info.mtime = int(time.time())
            tar.addfile(info, io.BytesIO(data))
        payload = archive.getvalue()  # padded to whole records: tar ends at its end-of-archive blocks
        client = self._open(["sh", "-c", _WRITE, "pytest-swe", directory or "/"], stdin=True)
        errors = CappedBuffer(8192)
        try:
            for start in range(0, len(payload), STDIN_CHUNK):
                client.write_stdin(payload[start : start + STDIN_CHUNK])
            if getattr(client, "subprotocol", None) == "v5.channel.k8s.io":
                client.close_channel(0)  # end of input (v4 has no way to say it: tar stops by itself)
            closed, code = self._finish(client, errors.add, None, time.monotonic() + HELPER_TIMEOUT)
        except api_errors() as exc:
            raise self._fault(f"write {path}", exc) from None
        finally:
            client.close()
        if not closed:
            raise InfraError("sandbox_error", f"writing {path} in sandbox {self.name} did not end")
        if code != 0:
            raise self._cut(f"write {path}: tar exited {code}: {errors.text().strip()}")

    def read_file(self, path: str) -> bytes:
        directory, name = os.path.split(path.rstrip("/"))
        client = self._open(["sh", "-c", _READ, "pytest-swe", directory or "/", name])
        out, err = bytearray(), CappedBuffer(8192)
        try:
            closed, code = self._finish(client, out.extend, err.add, time.monotonic() + HELPER_TIMEOUT)
        except api_errors() as exc:
            raise self._fault(f"read {path}", exc) from None
        finally:
            client.close()
        if code == NO_SUCH_FILE:
            raise FileNotFoundError(f"{path} is not a regular file in sandbox {self.name}")
        if not closed or code != 0:
            raise self._cut(f"read {path}: tar exited {code}: {err.text().strip()}")
        with tarfile.open(fileobj=io.BytesIO(bytes(out))) as tar:
            member = tar.next()
            extracted = tar.extractfile(member) if member is not None and member.isfile() else None
            if extracted is None:
                raise FileNotFoundError(f"{path} is not a regular file in sandbox {self.name}")
            return extracted.read()

    # -- life -----------------------------------------------------------------------------------

    def alive(self) -> bool:
        return self.provider.pod_running(self.name)

    def enter_command(self) -> str:
        context = self.provider.options.get("context")
        where = f"--context {shlex.quote(str(context))} " if context else ""
        return f"kubectl {where}-n {shlex.quote(self.provider.namespace)} exec -it {self.name} -- bash"

    def close(self) -> CleanupResult:
        return self.provider.remove(self.name)

    def _cut(self, detail: str) -> InfraError:
        """A command whose stream ended without its status: the pod died, the API went away, or the
        connection was cut."""
        if not self.provider.api_alive():
            return InfraError("provider_unavailable", f"the Kubernetes API stopped answering ({detail})")
        if not self.alive():
            return InfraError("sandbox_died", f"pod {self.name} stopped during a command ({detail})")
        return InfraError("sandbox_error", f"a command in pod {self.name} failed in transit ({detail})")

    def _fault(self, action: str, exc: BaseException) -> InfraError:
        return self._cut(f"{action}: {exc}")
