"""One bubblewrap sandbox: a keep-alive ``bwrap`` holding the namespaces, commands entered with nsenter.

Why a keep-alive and not a fresh ``bwrap`` per command: a sandbox must keep its state between
commands as a container does, and that state is more than files: a server started by one command
answers the next on the sandbox's loopback, a background process is still there for
``end_processes`` to end, and the process limit counts them all. Only long-lived namespaces give
that; nsenter costs a few milliseconds per command, about what a new bwrap would.

Every command runs in the sandbox's cgroups (memory and cpu for the sandbox, pids and freezer per
command); its first process, a host shell, joins them before it becomes nsenter, so no process of
the command is ever outside them. Files are written and read by commands too (``cat`` inside the
sandbox): a path is resolved by the sandbox's own root, so a symlink planted inside cannot reach
a host file.
"""

from __future__ import annotations

import contextlib
import os
import select
import shlex
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING
from typing import Any

from pytest_swe.api.errors import InfraError
from pytest_swe.api.sandbox import CleanupResult
from pytest_swe.api.sandbox import ExecResult
from pytest_swe.api.sandbox import SandboxSpec
from pytest_swe.api.sandbox import process_start

from ..docker.stream import CappedBuffer
from .cgroups import SandboxGroups
from .layer import Layer

if TYPE_CHECKING:
    from .provider import BubblewrapProvider

DEFAULT_OUTPUT_LIMIT = 4_000_000
DISK_CHECK_INTERVAL = 1.0
OUTPUT_DRAIN_SECONDS = 0.5
"""After a command exits, how long background processes still holding its output may write."""
FILE_TIMEOUT = 120.0

# The host side of every command: join the cgroups named before ``--``, then become the rest.
ENTER = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'
# The sandbox side: the working directory, then the command in bash (sh when there is none).
INSIDE = (
    'mkdir -p "$1" 2>/dev/null; cd "$1" || exit 126; '
    'if command -v bash >/dev/null 2>&1; then exec bash -c "$2"; else exec sh -c "$2"; fi'
)
WRITE = 'mkdir -p "$(dirname "$1")" && cat > "$1" && chmod "$2" "$1"'
READ = '[ -f "$1" ] || { [ -e "$1" ] && exit 3; exit 2; }; exec cat -- "$1"'


def read_output(fd: int, buffer: CappedBuffer, stop: threading.Event) -> None:
    """Read a command's output until EOF, or until ``stop`` once nothing more is waiting."""
    try:
        while True:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if not ready:
                if stop.is_set():
                    return
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                return
            buffer.add(chunk)
    except OSError:
        return


def shell_exit_code(returncode: int) -> int:
    """A signal death as a shell reports it (nsenter re-raises its child's signal)."""
    return 128 - returncode if returncode < 0 else returncode


class BubblewrapSandbox:
    """One running sandbox; its state lives in ``provider.sandbox_dir(id)``."""

    def __init__(
        self,
        provider: BubblewrapProvider,
        sandbox_id: str,
        spec: SandboxSpec,
        *,
        layer: Layer,
        groups: SandboxGroups,
        init_pid: int,
        env: Mapping[str, str],
    ) -> None:
        self.provider = provider
        self.id = sandbox_id
        self.short_id = sandbox_id
        self.spec = spec
        self.layer = layer
        self.groups = groups
        self.init_pid = init_pid
        self.env = dict(env)
        self.disk_exceeded = False
        self._init_start = process_start(init_pid)
        self.namespaces = entered_namespaces(init_pid)
        self._counters: dict[str, Any] = {}
        # The keep-alive is pid 1's only child now. Told apart later by pid, not by order: pids wrap
        # around, and an orphan reparented to pid 1 may then sort before it.
        self._keep_pids = _children(init_pid)

    # -- processes -------------------------------------------------------------------------------

    def _argv(self, child: str, inside: list[str], user: str | None = None) -> list[str]:
        joins = self.groups.procs_files(child) if self.groups.controllers else []
        nsenter = ["nsenter", *self.namespaces, "-t", str(self.init_pid), "-r", "-w"]
        uid_gid = self.provider.lookup_user(self, user)
        if uid_gid is not None:
            nsenter += ["-S", str(uid_gid[0]), "-G", str(uid_gid[1])]
        return ["/bin/sh", "-c", ENTER, "enter", *joins, "--", *nsenter, *inside]

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
        self._require_alive("exec")
        token = f"x-{uuid.uuid4().hex[:12]}"
        inside = ["/bin/sh", "-c", INSIDE, "pytest-swe", workdir or self.spec.workdir, command]
        started = time.monotonic()
        try:
            proc = subprocess.Popen(
                self._argv(token, inside, user),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env={**self.env, **(env or {})},
                start_new_session=True,
            )
        except OSError as exc:
            raise self._fault("exec", exc) from None
        assert proc.stdout is not None
        buffer = CappedBuffer(output_limit or DEFAULT_OUTPUT_LIMIT)
        stop = threading.Event()
        reader = threading.Thread(target=read_output, args=(proc.stdout.fileno(), buffer, stop), daemon=True)
        reader.start()
        deadline = started + timeout
        next_disk_check = started + DISK_CHECK_INTERVAL
        timed_out = False
        oom_before = self.groups.oom_kills()
        try:
            while True:
                try:
                    proc.wait(timeout=max(min(0.25, deadline - time.monotonic()), 0.01))
                    break
                except subprocess.TimeoutExpired:
                    pass
                now = time.monotonic()
                if now >= next_disk_check:
                    next_disk_check = now + DISK_CHECK_INTERVAL
                    if self.layer.full():  # full now: stopped as the Docker provider stops it
                        self.disk_exceeded = True
                        self._kill(token, proc)
                        break
                if now >= deadline:
                    timed_out = True
                    self._kill(token, proc)
                    break
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)
            reader.join(OUTPUT_DRAIN_SECONDS)
        finally:
            stop.set()
            reader.join(2)
            proc.stdout.close()
        returncode = proc.poll()
        exit_code = shell_exit_code(returncode) if returncode is not None else None
        if exit_code == 125 and not self.alive():
            raise InfraError("sandbox_died", f"sandbox {self.id} is gone (exec)")
        self.groups.prune()
        oom = exit_code == 137 and self.groups.oom_kills() > oom_before
        if not oom and exit_code is not None and exit_code >= 128 and not self.alive():
            kind = "oom" if self.groups.oom_kills() > 0 else "sandbox_died"
            raise InfraError(kind, f"sandbox {self.id} stopped during a command (exit {exit_code})")
        return ExecResult(
            exit_code=exit_code,
            output=buffer.text(),
            timed_out=timed_out,
            duration=time.monotonic() - started,
            truncated_bytes=buffer.dropped,
            oom_killed=oom,
        )

    def _kill(self, token: str, proc: subprocess.Popen[bytes]) -> None:
        """Kill one command's whole process tree: its cgroup, else every descendant of its nsenter."""
        if self.groups.controllers and self.groups.kill(token):
            return
        _kill_descendants(proc.pid)
        with contextlib.suppress(OSError):
            proc.kill()

    def end_processes(self) -> None:
        """Kill every process but the keep-alive."""
        if self.groups.controllers:
            if not self.groups.kill(keep="keep"):
                raise InfraError("sandbox_error", f"processes of sandbox {self.id} would not die")
            self.groups.prune()
            return
        _kill_descendants(self.init_pid, spare={self.init_pid, *self._keep_pids})

    # -- limits ----------------------------------------------------------------------------------

    def _over_disk_limit(self) -> bool:
        if not self.disk_exceeded and self.layer.full():
            self.disk_exceeded = True
        return self.disk_exceeded

    def limit_counters(self) -> dict[str, Any]:
        """Memory kills, process-limit hits and the disk state; the last values read survive removal."""
        self._counters = {
            "oom_kills": max(self.groups.oom_kills(), self._counters.get("oom_kills", 0)),
            "pids_limit_hits": max(self.groups.pids_limit_hits(), self._counters.get("pids_limit_hits", 0)),
            "disk_exceeded": self._over_disk_limit(),
            "disk_limit": self.provider.disk_limit,
        }
        return dict(self._counters)

    # -- files -----------------------------------------------------------------------------------

    def _file_command(self, script: str, args: list[str], data: bytes | None) -> tuple[int, bytes]:
        self._require_alive(f"file {args[0]}")
        argv = self._argv(f"x-{uuid.uuid4().hex[:12]}", ["/bin/sh", "-c", script, "file", *args], "root")
        try:
            proc = subprocess.run(
                argv,
                input=data if data is not None else b"",
                capture_output=True,
                env=self.env,
                timeout=FILE_TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise self._fault(f"file {args[0]}", exc) from None
        finally:
            self.groups.prune()
        if proc.returncode in (125, 1) and not self.alive():
            raise InfraError("sandbox_died", f"sandbox {self.id} is gone (file {args[0]})")
        return proc.returncode, proc.stdout if proc.returncode == 0 else proc.stderr

    def write_file(self, path: str, data: bytes, *, mode: int = 0o644) -> None:
        code, err = self._file_command(WRITE, [path, f"{mode:o}"], data)
        if code != 0:
            if self._over_disk_limit():
                raise InfraError("disk_full", f"cannot write {path}: sandbox {self.id}'s disk is full")
            raise InfraError(
                "sandbox_error", f"cannot write {path} in sandbox {self.id}: {err.decode()[-500:]}"
            )

    def read_file(self, path: str) -> bytes:
        code, out = self._file_command(READ, [path], None)
        if code == 0:
            return out
        if code in (2, 3):
            what = "not found" if code == 2 else "is not a regular file"
            raise FileNotFoundError(f"{path} {what} in sandbox {self.id}")
        raise InfraError("sandbox_error", f"cannot read {path} in sandbox {self.id}: {out.decode()[-500:]}")

    # -- life ------------------------------------------------------------------------------------

    def alive(self) -> bool:
        import psutil  # imported here: every run registers this provider, few use it

        try:
            process = psutil.Process(self.init_pid)
            # Boot-relative ticks, not psutil's epoch time: that moves with the clock (btime).
            return (
                process.status() != psutil.STATUS_ZOMBIE and process_start(self.init_pid) == self._init_start
            )
        except psutil.Error:
            return False

    def _require_alive(self, action: str) -> None:
        """Commands enter the namespaces of a pid: once the sandbox is gone that pid may be another
        process's, so nothing is entered without checking it is still this sandbox's."""
        if not self.alive():
            kind = "oom" if self.groups.oom_kills() > 0 else "sandbox_died"
            raise InfraError(kind, f"sandbox {self.id} is gone ({action})")

    def enter_command(self) -> str:
        inside = f"cd {shlex.quote(self.spec.workdir)} && exec bash"
        flags = " ".join(self.namespaces)
        return f"nsenter {flags} -t {self.init_pid} -r -w sh -c {shlex.quote(inside)}"

    def close(self) -> CleanupResult:
        self.limit_counters()
        return self.provider.remove(self.id)

    def _fault(self, action: str, exc: BaseException) -> InfraError:
        if not self.alive():
            kind = "oom" if self.groups.oom_kills() > 0 else "sandbox_died"
            return InfraError(kind, f"sandbox {self.id} is gone ({action}): {exc}")
        return InfraError("sandbox_error", f"{action} failed in sandbox {self.id}: {exc}")


NAMESPACES = {"user": "-U", "mnt": "-m", "uts": "-u", "ipc": "-i", "net": "-n", "pid": "-p", "cgroup": "-C"}


def entered_namespaces(pid: int) -> list[str]:
    """nsenter's flags for the namespaces of ``pid`` that are not this process's own.

    Not ``nsenter -a``: bwrap may leave one shared, and entering a namespace owned by the host's
    user namespace from the sandbox's is refused.
    """
    flags = []
    for name, flag in NAMESPACES.items():
        try:
            if os.readlink(f"/proc/{pid}/ns/{name}") != os.readlink(f"/proc/self/ns/{name}"):
                flags.append(flag)
        except OSError:
            continue
    if "-U" in flags:
        flags.append("--preserve-credentials")  # no setgroups: refused in a user namespace made rootless
    return flags


def _children(pid: int) -> set[int]:
    import psutil

    with contextlib.suppress(psutil.Error):
        return {child.pid for child in psutil.Process(pid).children()}
    return set()


def _kill_descendants(pid: int, spare: set[int] | None = None) -> None:
    """SIGKILL every descendant of ``pid`` (and ``pid`` unless spared), repeating while forks race."""
    import psutil

    for _ in range(8):
        try:
            root = psutil.Process(pid)
            victims = [p for p in root.children(recursive=True) if p.pid not in (spare or set())]
        except psutil.Error:
            return
        if pid not in (spare or set()):
            victims.append(root)
        if not victims:
            return
        for victim in victims:
            with contextlib.suppress(psutil.Error, OSError):
                victim.send_signal(signal.SIGKILL)
        time.sleep(0.05)
