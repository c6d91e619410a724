"""One Docker container as a sandbox: commands with a real timeout kill, files, limits, its end."""

from __future__ import annotations

import contextlib
import io
import os
import posixpath
import shlex
import tarfile
import time
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING
from typing import Any

from pytest_swe.api.errors import InfraError
from pytest_swe.api.sandbox import CleanupResult
from pytest_swe.api.sandbox import ExecResult
from pytest_swe.api.sandbox import SandboxSpec

from .engine import engine_errors
from .engine import sdk
from .stream import OutputStream

if TYPE_CHECKING:
    from concurrent.futures import Future

    from .provider import DockerProvider

DEFAULT_OUTPUT_LIMIT = 4_000_000
OUTPUT_DRAIN_SECONDS = 10.0
"""After a command exits, how long its output may still take to arrive (Docker ends the stream)."""
EXEC_START_SECONDS = 60.0
STOP_SETTLE_SECONDS = 3.0
"""How long a container whose command was cut may take to be reported stopped."""
_PIDDIR = "/tmp/.pytest-swe"
DISK_CHECK_INTERVAL = 1.0


def _tree_bytes(root: str, budget: float = 2.0) -> int | None:
    """Bytes allocated under ``root`` (None when unreadable); stops counting after ``budget`` seconds."""
    total = 0
    end = time.monotonic() + budget
    stack = [root]
    if not os.access(root, os.R_OK | os.X_OK):
        return None
    while stack:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    total += info.st_blocks * 512
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
        except OSError:
            continue
        if time.monotonic() > end:
            break
    return total


# Runs the command in bash when the image has it, recording the shell's pid so a timeout
# can kill exactly this command's process tree. stderr joins stdout in the shell, so the
# combined output keeps the order in which lines were written. The wrapper ends the output
# with an end mark unique to this exec: output that arrives without it was cut in transit.
_EXEC_WRAPPER = (
    "mkdir -p {piddir} 2>/dev/null && echo $$ > {piddir}/{token}.pid 2>/dev/null; "
    "if command -v bash >/dev/null 2>&1; then bash -c {run} 2>&1; else sh -c {run} 2>&1; fi; "
    'rc=$?; printf "\\n{end_mark} %d\\n" "$rc"; exit "$rc"'
)
_RUN_ONE = '"$1"'
_RUN_JOINED = '\'c=; for p do c=$c$p; done; set --; eval "$c"\' pytest-swe "$@"'
"""A command longer than one argument may be travels in several; the shell joins and runs them."""
ARGUMENT_LIMIT = 96 << 10
"""The bytes of one argument of the exec: below the kernel's limit on one argument, 128 KiB."""
_END_MARK = ">>>>> pytest-swe end {token}"

# Kills the process tree rooted at the pid in a pid file (pids found through /proc, so no ps is needed).
_KILL_TREE = r"""
root=$(cat {piddir}/{token}.pid 2>/dev/null) || exit 0
pids=" $root "
changed=1
while [ "$changed" = 1 ]; do
  changed=0
  for d in /proc/[0-9]*; do
    p=${{d#/proc/}}
    read -r s < "$d/stat" 2>/dev/null || continue
    s=${{s##*) }}
    set -- $s
    case "$pids" in *" $2 "*) case "$pids" in *" $p "*) ;; *) pids="$pids$p "; changed=1;; esac;; esac
  done
done
kill -STOP $pids 2>/dev/null
kill -KILL $pids 2>/dev/null
rm -f {piddir}/{token}.pid
exit 0
"""

# Kills every process except pid 1 (docker-init) and its session (the keep-alive): everything
# started through exec runs in a session of its own. Repeats so forks racing the kill die too.
_KILL_ALL = r"""
self=$$
for round in 1 2 3 4 5 6 7 8; do
  found=""
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    [ "$p" = 1 ] && continue
    [ "$p" = "$self" ] && continue
    read -r s < "$d/stat" 2>/dev/null || continue
    s=${s##*) }
    set -- $s
    [ "$4" = 1 ] && continue
    [ "$2" = "$self" ] && continue
    found="$found $p"
  done
  [ -z "$found" ] && exit 0
  kill -STOP $found 2>/dev/null
  kill -KILL $found 2>/dev/null
  sleep 0.2
done
exit 0
"""


def _arguments(command: str, limit: int) -> list[str]:
    """``command`` in pieces of at most ``limit`` bytes each (UTF-8), cut between characters."""
    pieces: list[str] = []
    while True:
        head = command[:limit]
        size = len(head.encode("utf-8", "surrogatepass"))
        if size <= limit and len(head) == len(command):
            return [*pieces, command]
        # Each character dropped drops at least one byte; a quarter of the limit always fits.
        count = len(head) if size <= limit else max(limit // 4, len(head) - (size - limit))
        pieces.append(command[:count])
        command = command[count:]


class DockerSandbox:
    """One running container."""

    command_limit = 512 << 10
    """Files up to this size travel in the command that uses them (each engine call is a round
    trip, and an archive upload costs the engine four times the CPU of a command). A command
    over :data:`ARGUMENT_LIMIT` travels in several arguments; all of them together stay far
    below the kernel's limit on a process's arguments (2 MiB under the default stack limit)."""

    def __init__(self, provider: DockerProvider, container: Any, spec: SandboxSpec) -> None:
        self.provider = provider
        self.container = container
        self.spec = spec
        self.id = container.id
        self.short_id = container.id[:12]
        self.disk_exceeded = False
        self._disk_check_cost = 0.0
        self._counters: dict[str, Any] = {}
        data = (container.attrs or {}).get("GraphDriver", {}).get("Data") or {}
        self._upper_dir: str | None = data.get("UpperDir")

    # -- processes --------------------------------------------------------------------------

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
        api = self.provider.client.api
        token = uuid.uuid4().hex
        end_mark = _END_MARK.format(token=token)
        arguments = _arguments(command, ARGUMENT_LIMIT)
        run = _RUN_ONE if len(arguments) == 1 else _RUN_JOINED
        wrapper = _EXEC_WRAPPER.format(piddir=_PIDDIR, token=token, end_mark=end_mark, run=run)
        finished = False
        started = time.monotonic()
        try:
            exec_id = api.exec_create(
                self.id,
                ["/bin/sh", "-c", wrapper, "pytest-swe", *arguments],
                stdout=True,
                stderr=True,
                workdir=workdir or self.spec.workdir,
                environment=dict(env or {}),
                user=user or "",
            )["Id"]
            sock = api.exec_start(exec_id, socket=True)
        except engine_errors() as exc:
            raise self._fault("exec", exc) from None
        stream = OutputStream(sock, output_limit or DEFAULT_OUTPUT_LIMIT)
        buffer = stream.buffer
        deadline = started + timeout
        next_disk_check = started + DISK_CHECK_INTERVAL
        timed_out = False
        exit_code: int | None = None
        try:
            while True:
                stream.wait(min(0.5, max(deadline - time.monotonic(), 0.01)))
                info = api.exec_inspect(exec_id)
                if not info.get("Running"):
                    if info.get("ExitCode") is not None:
                        exit_code = info["ExitCode"]
                        stream.wait(OUTPUT_DRAIN_SECONDS)  # the stream ends once all output is in
                        finished = True
                        break
                    # Not running and no exit code: the process has not started yet (exec_start
                    # returns as soon as the stream is attached). Wait, but not for ever.
                    if time.monotonic() - started > EXEC_START_SECONDS:
                        raise InfraError(
                            "sandbox_error", f"a command never started in sandbox {self.short_id}"
                        )
                if self.provider.disk_limit and time.monotonic() >= next_disk_check:
                    if self._over_disk_limit():
                        self._kill_tree(token)
                        stream.wait(2.0)
                        info = api.exec_inspect(exec_id)
                        exit_code = None if info.get("Running") else info.get("ExitCode")
                        break
                    # A walk of a large layer costs time: check less often, not less surely.
                    next_disk_check = time.monotonic() + max(DISK_CHECK_INTERVAL, 10 * self._disk_check_cost)
                if time.monotonic() >= deadline:
                    timed_out = True
                    self._kill_tree(token)
                    stream.wait(2.0)
                    exit_code = self._exit_after_timeout(exec_id)
                    break
        except engine_errors() as exc:
            raise self._fault("exec", exc) from None
        finally:
            stream.close()
        oom = exit_code == 137 and self._oom_kills() > 0
        output = buffer.text()
        marker = f"\n{end_mark} "
        at = output.rfind(marker)
        if at >= 0:
            output = output[:at]
        elif finished:
            cut = f"exit {exit_code}, {len(output)} bytes received, no end mark"
            # A container that dies ends every stream in it: then the sandbox died, whatever the exit
            # code (the engine may report it running for a moment after its last process is gone).
            if not self.provider.daemon_alive():
                raise InfraError(
                    "provider_unavailable",
                    f"{self.provider.engine} stopped answering during a command ({cut})",
                )
            if self._stops_within(STOP_SETTLE_SECONDS):
                kind = "oom" if self._oom_kills() > 0 else "sandbox_died"
                raise InfraError(kind, f"sandbox {self.short_id} stopped during a command ({cut})")
            if exit_code != 137:  # 137: the command was killed (a memory kill, say) in a live sandbox
                raise InfraError(
                    "sandbox_error",
                    f"the output of a command in sandbox {self.short_id} was cut in transit ({cut})",
                )
        return ExecResult(
            exit_code=exit_code,
            output=output,
            timed_out=timed_out,
            duration=time.monotonic() - started,
            truncated_bytes=buffer.dropped,
            oom_killed=oom,
        )

    def _exit_after_timeout(self, exec_id: str) -> int | None:
        """The exit code of a command killed at its timeout; None while it still runs, or when the
        engine no longer knows the exec: a paused container is killed whole and takes its exec
        instances with it. The harness's own timer fired, so the result is a timeout either way."""
        try:
            info = self.provider.client.api.exec_inspect(exec_id)
        except engine_errors():
            return None
        return None if info.get("Running") else info.get("ExitCode")

    def _stops_within(self, seconds: float) -> bool:
        """Whether the container is stopped now or stops within ``seconds``."""
        end = time.monotonic() + seconds
        while self.alive():
            if time.monotonic() >= end:
                return False
            time.sleep(0.25)
        return True

    def _run_helper(self, script: str, timeout: float = 30) -> None:
        api = self.provider.client.api
        exec_id = api.exec_create(self.id, ["/bin/sh", "-c", script], user="root")["Id"]
        api.exec_start(exec_id)
        end = time.monotonic() + timeout
        while api.exec_inspect(exec_id).get("Running") and time.monotonic() < end:
            time.sleep(0.1)

    def _kill_tree(self, token: str) -> None:
        if self._status() == "paused":
            # Nothing runs in a paused container, a helper neither (an engine may accept it and
            # leave it waiting): only killing the container ends the command.
            self.limit_counters()
            with contextlib.suppress(*engine_errors()):
                self.container.kill()
            return
        try:
            self._run_helper(_KILL_TREE.format(piddir=_PIDDIR, token=token))
        except engine_errors(InfraError):
            # The tree could not be found (pid file gone): end everything rather than leave it running.
            try:
                self.end_processes()
            except InfraError:
                # No helper can start (a fork bomb holds every pid): stop the container itself.
                self.limit_counters()
                with contextlib.suppress(*engine_errors()):
                    self.container.kill()

    # -- limits -----------------------------------------------------------------------------

    def _over_disk_limit(self) -> bool:
        limit = self.provider.disk_limit
        if not limit:
            return False
        started = time.monotonic()
        used = self._disk_bytes()
        self._disk_check_cost = time.monotonic() - started
        if used is not None and used >= limit:
            self.disk_exceeded = True
        return self.disk_exceeded

    def _disk_bytes(self) -> int | None:
        """Bytes in the container's writable layer (from the host, else as the daemon counts them)."""
        if self._upper_dir:
            used = _tree_bytes(self._upper_dir)
            if used is not None:
                return used
        try:
            found = self.provider.client.api.containers(all=True, size=True, filters={"id": self.id})
        except engine_errors(InfraError):
            return None
        return int(found[0].get("SizeRw") or 0) if found else None

    CGROUP_V1 = "/sys/fs/cgroup/{controller}/docker/{id}/{file}"
    CGROUP_V2 = "/sys/fs/cgroup/system.slice/docker-{id}.scope/{file}"
    """Where the engine puts a container's cgroup (v1, v2): another engine's sandbox names its own."""

    def _cgroup_counter(self, controller: str, v1: str, v2: str, key: str) -> int:
        """A counter of the container's cgroup (cgroup v1 file, v2 file); 0 when neither is readable."""
        for path in (
            self.CGROUP_V1.format(controller=controller, id=self.id, file=v1),
            self.CGROUP_V2.format(id=self.id, file=v2),
        ):
            try:
                with open(path) as fh:
                    for line in fh:
                        if line.startswith(f"{key} "):
                            return int(line.split()[1])
            except OSError:
                continue
        return 0

    def _pids_limit_hits(self) -> int:
        return self._cgroup_counter("pids", "pids.events", "pids.events", "max")

    def limit_counters(self) -> dict[str, Any]:
        """Memory kills, process-limit hits and the disk state. The counters only grow, so the values
        read last survive the container (and its cgroup) being removed."""
        self._counters = {
            "oom_kills": max(self._oom_kills(), self._counters.get("oom_kills", 0)),
            "pids_limit_hits": max(self._pids_limit_hits(), self._counters.get("pids_limit_hits", 0)),
            "disk_exceeded": self._over_disk_limit(),
            "disk_limit": self.provider.disk_limit,
        }
        return dict(self._counters)

    def end_processes(self) -> None:
        try:
            self._run_helper(_KILL_ALL)
        except engine_errors(InfraError) as exc:
            raise self._fault("end processes", exc) from None

    def _oom_kills(self) -> int:
        return self._cgroup_counter("memory", "memory.oom_control", "memory.events", "oom_kill")

    # -- files ------------------------------------------------------------------------------

    def write_file(self, path: str, data: bytes, *, mode: int = 0o644) -> None:
        self.write_files({path: (data, mode)})

    def write_files(self, files: Mapping[str, tuple[bytes, int]]) -> None:
        """Every file in one archive unpacked at ``/``: one call to the engine, which creates the
        missing parent directories itself (root's, mode 0755, as ``mkdir -p`` would)."""
        archive = io.BytesIO()
        now = int(time.time())
        with tarfile.open(fileobj=archive, mode="w") as tar:
            for path, (data, mode) in files.items():
                info = tarfile.TarInfo(posixpath.normpath("/" + path).lstrip("/"))
                info.size = len(data)
                info.mode = mode
                info.mtime = now
                tar.addfile(info, io.BytesIO(data))
        named = ", ".join(files)
        try:
            ok = self.container.put_archive("/", archive.getvalue())
        except engine_errors(InfraError) as exc:
            if not self.alive():
                raise self._fault(f"write {named}", exc) from None
            ok = False
        if not ok:
            # An engine whose archive upload does not make missing parents (a Docker-compatible API
            # other than Docker's may not): make them with mkdir -p, then upload once more.
            parents = sorted({posixpath.dirname(posixpath.normpath("/" + path)) for path in files})
            try:
                api = self.provider.client.api
                exec_id = api.exec_create(self.id, ["mkdir", "-p", *parents], user="root")["Id"]
                api.exec_start(exec_id)
                ok = self.container.put_archive("/", archive.getvalue())
            except engine_errors(InfraError) as exc:
                raise self._fault(f"write {named}", exc) from None
        if not ok:
            raise InfraError("sandbox_died", f"could not write {named} into sandbox {self.short_id}")

    def read_file(self, path: str) -> bytes:
        try:
            stream, _ = self.container.get_archive(path)
            data = b"".join(stream)
        except sdk().errors.NotFound as exc:
            if not self.alive():  # the container itself is gone: no file can be read, none is missing
                raise self._fault(f"read {path}", exc) from None
            raise FileNotFoundError(f"{path} not found in sandbox {self.short_id}") from None
        except engine_errors() as exc:
            raise self._fault(f"read {path}", exc) from None
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            member = tar.next()
            if member is None or not member.isfile():
                raise FileNotFoundError(f"{path} is not a regular file in sandbox {self.short_id}")
            extracted = tar.extractfile(member)
            if extracted is None:  # isfile() above: never, but the type says it may be
                raise FileNotFoundError(f"{path} is not a regular file in sandbox {self.short_id}")
            return extracted.read()

    # -- life -------------------------------------------------------------------------------

    def _status(self) -> str | None:
        """The container's state (running, paused, exited, ...); None when it is gone."""
        try:
            self.container.reload()
        except engine_errors():
            return None
        return str(self.container.status)

    def alive(self) -> bool:
        return self._status() == "running"

    def enter_command(self) -> str:
        return f"{self.provider.cli} exec -it -w {shlex.quote(self.spec.workdir)} {self.short_id} bash"

    def close(self) -> CleanupResult:
        return self.provider.remove(self.id)

    def close_soon(self) -> Future[CleanupResult]:
        return self.provider.remove_soon(self.id)

    def _fault(self, action: str, exc: BaseException) -> InfraError:
        """Classify an SDK error raised while using a started sandbox."""
        if isinstance(exc, InfraError):
            return exc
        if not self.provider.daemon_alive():
            return InfraError(
                "provider_unavailable", f"{self.provider.engine} stopped answering during {action}: {exc}"
            )
        if not self.alive():
            oom = self._oom_kills() > 0
            kind = "oom" if oom else "sandbox_died"
            return InfraError(kind, f"sandbox {self.short_id} is gone ({action}): {exc}")
        return InfraError("sandbox_error", f"{action} failed in sandbox {self.short_id}: {exc}")
