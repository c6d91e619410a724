"""The Docker sandbox provider (docker SDK).

One container per sandbox. The image's entrypoint is replaced by ``docker-init`` with a
``sleep <ttl>`` keep-alive, so a container ends itself (and, with auto-remove, disappears)
even if the process that created it is killed with SIGKILL. Every container carries the
``pytest-swe`` label plus the run id, the owner's pid, host and start time, so orphans
can be found and removed by the next run or by ``pytest-swe reap``.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import io
import os
import shlex
import socket
import struct
import tarfile
import threading
import time
import uuid
from collections.abc import Mapping
from typing import Any

import pytest

from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import InfraError
from pytest_swe.api.sandbox import LABEL
from pytest_swe.api.sandbox import CleanupResult
from pytest_swe.api.sandbox import ExecResult
from pytest_swe.api.sandbox import RunInfo
from pytest_swe.api.sandbox import SandboxSpec

DEFAULT_OUTPUT_LIMIT = 4_000_000
OUTPUT_DRAIN_SECONDS = 10.0
"""After a command exits, how long its output may still take to arrive (Docker ends the stream)."""
EXEC_START_SECONDS = 60.0
STOP_SETTLE_SECONDS = 3.0
"""How long a container whose command was cut may take to be reported stopped."""
KEEP_TTL = 24 * 3600
REAP_PARALLEL = 8
_PIDDIR = "/tmp/.pytest-swe"
DEFAULT_DISK_LIMIT = "10g"
"""What a sandbox may write (provider option ``disk_limit``): overlay2 on ext4 has no quota, so
every file is capped by an ``fsize`` ulimit and the writable layer is measured while commands run."""
DISK_CHECK_INTERVAL = 1.0
_SIZE = {"": 1, "b": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}


def parse_size(value: Any, option: str) -> int | None:
    """``512m``/``10g``/bytes as bytes; None, 0, ``none`` or ``off``: no limit."""
    if value is None or value is False or str(value).strip().lower() in ("", "0", "none", "off"):
        return None
    text = str(value).strip().lower()
    number, unit = text.rstrip("bkmgt"), text[len(text.rstrip("bkmgt")) :]
    try:
        size = int(float(number) * _SIZE[unit])
    except (ValueError, KeyError):
        raise ConfigError(f"provider.{option}: {value!r} is not a size (for example 512m or 10g)") from None
    if size <= 0:
        raise ConfigError(f"provider.{option}: {value!r} must be positive")
    return size


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
    'if command -v bash >/dev/null 2>&1; then bash -c "$1" 2>&1; else sh -c "$1" 2>&1; fi; '
    'rc=$?; printf "\\n{end_mark} %d\\n" "$rc"; exit "$rc"'
)
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


def _docker():
    import docker

    return docker


class _CappedBuffer:
    """Keeps the first and last ``limit/2`` bytes of a stream and counts what it dropped."""

    def __init__(self, limit: int) -> None:
        self.half = max(limit // 2, 1)
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, data: bytes) -> None:
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if not data:
            return
        self.tail += data
        excess = len(self.tail) - self.half
        if excess > 0:
            del self.tail[:excess]
            self.dropped += excess

    def text(self) -> str:
        middle = f"\n[... {self.dropped} bytes of output dropped ...]\n".encode() if self.dropped else b""
        return (bytes(self.head) + middle + bytes(self.tail)).decode("utf-8", errors="replace")


def _demux(pending: bytes, buffer: _CappedBuffer) -> bytes:
    """Move every complete stdout/stderr frame of ``pending`` into ``buffer``; return the rest."""
    while len(pending) >= 8:
        stream_type, size = struct.unpack(">BxxxL", pending[:8])
        if stream_type not in (0, 1, 2):  # not multiplexed (tty): take it raw
            buffer.add(pending)
            return b""
        if len(pending) < 8 + size:
            break
        buffer.add(pending[8 : 8 + size])
        pending = pending[8 + size :]
    return pending


def _read_frames(
    raw: socket.socket, buffer: _CappedBuffer, stop: threading.Event, initial: bytes = b""
) -> None:
    """Read Docker's multiplexed stdout/stderr frames until EOF or ``stop``.

    ``initial`` holds stream bytes the HTTP client had already read with the upgrade response.
    """
    pending = _demux(initial, buffer)
    raw.settimeout(0.2)
    while True:
        try:
            chunk = raw.recv(65536)
        except TimeoutError:
            if stop.is_set():
                return
            continue
        except OSError:
            return
        if not chunk:
            return
        pending = _demux(pending + chunk, buffer)


def _read_ahead(sock: Any, raw: socket.socket) -> bytes:
    """Stream bytes the HTTP client buffered while reading the upgrade response.

    When a command's output reaches the client together with the response headers (a fast
    command, a busy client), the HTTP library keeps it in its read buffer, not the socket:
    reading only the socket would lose the start of the output, or all of it.
    """
    try:
        reader = sock._response.raw._fp.fp
    except AttributeError:
        return b""
    raw.setblocking(False)
    try:
        data = reader.read1(1 << 20)
    except (BlockingIOError, OSError, ValueError):
        data = b""
    finally:
        raw.setblocking(True)
    return data or b""


def _start_time(pid: int) -> str:
    """A process's start time in clock ticks since boot: with the pid, it names the process."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def owner_alive(pid: int, start: str) -> bool:
    """True while the process with this pid and start time still runs on this host."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not start or _start_time(pid) == start


def this_run(worker: str = "main", run_id: str | None = None, owner_pid: int | None = None) -> RunInfo:
    pid = owner_pid or os.getpid()
    return RunInfo(
        run_id=run_id or uuid.uuid4().hex[:12],
        owner_pid=pid,
        owner_host=socket.gethostname(),
        owner_start=_start_time(pid),
        worker=worker,
    )


class DockerSandbox:
    """One running container."""

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
        wrapper = _EXEC_WRAPPER.format(piddir=_PIDDIR, token=token, end_mark=end_mark)
        finished = False
        started = time.monotonic()
        try:
            exec_id = api.exec_create(
                self.id,
                ["/bin/sh", "-c", wrapper, "pytest-swe", command],
                stdout=True,
                stderr=True,
                workdir=workdir or self.spec.workdir,
                environment=dict(env or {}),
                user=user or "",
            )["Id"]
            sock = api.exec_start(exec_id, socket=True)
        except Exception as exc:
            raise self._fault("exec", exc) from None
        raw = getattr(sock, "_sock", sock)
        buffer = _CappedBuffer(output_limit or DEFAULT_OUTPUT_LIMIT)
        stop = threading.Event()
        initial = _read_ahead(sock, raw)
        reader = threading.Thread(target=_read_frames, args=(raw, buffer, stop, initial), daemon=True)
        reader.start()
        deadline = started + timeout
        next_disk_check = started + DISK_CHECK_INTERVAL
        timed_out = False
        exit_code: int | None = None
        try:
            while True:
                reader.join(timeout=min(0.5, max(deadline - time.monotonic(), 0.01)))
                info = api.exec_inspect(exec_id)
                if not info.get("Running"):
                    if info.get("ExitCode") is not None:
                        exit_code = info["ExitCode"]
                        reader.join(timeout=OUTPUT_DRAIN_SECONDS)  # the stream ends once all output is in
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
                        reader.join(timeout=2.0)
                        info = api.exec_inspect(exec_id)
                        exit_code = None if info.get("Running") else info.get("ExitCode")
                        break
                    # A walk of a large layer costs time: check less often, not less surely.
                    next_disk_check = time.monotonic() + max(DISK_CHECK_INTERVAL, 10 * self._disk_check_cost)
                if time.monotonic() >= deadline:
                    timed_out = True
                    self._kill_tree(token)
                    reader.join(timeout=2.0)
                    info = api.exec_inspect(exec_id)
                    exit_code = None if info.get("Running") else info.get("ExitCode")
                    break
        except InfraError:
            raise
        except Exception as exc:
            raise self._fault("exec", exc) from None
        finally:
            stop.set()
            try:
                sock.close()
                raw.close()
            except OSError:
                pass
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
                raise InfraError("provider_unavailable", f"Docker daemon stopped answering during a command ({cut})")
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
            with contextlib.suppress(Exception):
                self.container.kill()
            return
        try:
            self._run_helper(_KILL_TREE.format(piddir=_PIDDIR, token=token))
        except Exception:
            # The tree could not be found (pid file gone): end everything rather than leave it running.
            try:
                self.end_processes()
            except InfraError:
                # No helper can start (a fork bomb holds every pid): stop the container itself.
                self.limit_counters()
                with contextlib.suppress(Exception):
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
        except Exception:
            return None
        return int(found[0].get("SizeRw") or 0) if found else None

    def _pids_limit_hits(self) -> int:
        for path in (
            f"/sys/fs/cgroup/pids/docker/{self.id}/pids.events",
            f"/sys/fs/cgroup/system.slice/docker-{self.id}.scope/pids.events",
        ):
            try:
                with open(path) as fh:
                    for line in fh:
                        if line.startswith("max "):
                            return int(line.split()[1])
            except OSError:
                continue
        return 0

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
        except Exception as exc:
            raise self._fault("end processes", exc) from None

    def _oom_kills(self) -> int:
        for path in (
            f"/sys/fs/cgroup/memory/docker/{self.id}/memory.oom_control",
            f"/sys/fs/cgroup/system.slice/docker-{self.id}.scope/memory.events",
        ):
            try:
                with open(path) as fh:
                    for line in fh:
                        if line.startswith("oom_kill "):
                            return int(line.split()[1])
            except OSError:
                continue
        return 0

    # -- files ------------------------------------------------------------------------------

    def write_file(self, path: str, data: bytes, *, mode: int = 0o644) -> None:
        directory, name = os.path.split(path.rstrip("/"))
        archive = io.BytesIO()
        with tarfile.open(fileobj=archive, mode="w") as tar:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = mode
            info.mtime = int(time.time())
            tar.addfile(info, io.BytesIO(data))
        try:
            self._ensure_dir(directory or "/")
            ok = self.container.put_archive(directory or "/", archive.getvalue())
        except Exception as exc:
            raise self._fault(f"write {path}", exc) from None
        if not ok:
            raise InfraError("sandbox_died", f"could not write {path} into sandbox {self.short_id}")

    def _ensure_dir(self, directory: str) -> None:
        api = self.provider.client.api
        exec_id = api.exec_create(self.id, ["mkdir", "-p", directory], user="root")["Id"]
        api.exec_start(exec_id)

    def read_file(self, path: str) -> bytes:
        docker = _docker()
        try:
            stream, _ = self.container.get_archive(path)
            data = b"".join(stream)
        except docker.errors.NotFound as exc:
            if not self.alive():  # the container itself is gone: no file can be read, none is missing
                raise self._fault(f"read {path}", exc) from None
            raise FileNotFoundError(f"{path} not found in sandbox {self.short_id}") from None
        except Exception as exc:
            raise self._fault(f"read {path}", exc) from None
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            member = tar.next()
            if member is None or not member.isfile():
                raise FileNotFoundError(f"{path} is not a regular file in sandbox {self.short_id}")
            extracted = tar.extractfile(member)
            assert extracted is not None
            return extracted.read()

    # -- life -------------------------------------------------------------------------------

    def _status(self) -> str | None:
        """The container's state (running, paused, exited, ...); None when it is gone."""
        try:
            self.container.reload()
        except Exception:
            return None
        return self.container.status

    def alive(self) -> bool:
        return self._status() == "running"

    def enter_command(self) -> str:
        return f"docker exec -it -w {shlex.quote(self.spec.workdir)} {self.short_id} bash"

    def close(self) -> CleanupResult:
        return self.provider.remove(self.id)

    def _fault(self, action: str, exc: Exception) -> InfraError:
        """Classify an SDK error raised while using a started sandbox."""
        if isinstance(exc, InfraError):
            return exc
        if not self.provider.daemon_alive():
            return InfraError(
                "provider_unavailable", f"Docker daemon stopped answering during {action}: {exc}"
            )
        if not self.alive():
            oom = self._oom_kills() > 0
            kind = "oom" if oom else "sandbox_died"
            return InfraError(kind, f"sandbox {self.short_id} is gone ({action}): {exc}")
        return InfraError("sandbox_error", f"{action} failed in sandbox {self.short_id}: {exc}")


README_ENGINE_SECTION = "Starting the Docker engine"


def unreachable_message(exc: BaseException, host: str | None = None) -> str:
    host = host or os.environ.get("DOCKER_HOST") or "the local socket /var/run/docker.sock"
    return (
        f"cannot reach the Docker daemon at {host} ({exc}); start it (README section "
        f"'{README_ENGINE_SECTION}': bash scripts/setup.sh starts it) or choose another provider with --swe-provider"
    )


class DockerProvider:
    """Creates containers with the docker SDK; knows nothing of datasets or grading."""

    name = "docker"
    capabilities = frozenset({"exec", "files", "limits", "network-off", "labels", "ttl"})

    def __init__(self, options: Mapping[str, Any], run: RunInfo) -> None:
        self.options = dict(options)
        self.run = run
        self.pull = self.options.get("pull", "missing")
        self.network = self.options.get("network_name")  # network used when a sandbox needs one
        self.disk_limit = parse_size(self.options.get("disk_limit", DEFAULT_DISK_LIMIT), "disk_limit")
        self._client: Any = None
        self._lock = threading.Lock()

    @property
    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                docker = _docker()
                try:
                    base_url = self.options.get("host")
                    self._client = (
                        docker.DockerClient(base_url=base_url, timeout=120)
                        if base_url
                        else docker.from_env(timeout=120)
                    )
                    self._client.ping()
                except Exception as exc:
                    self._client = None
                    raise InfraError(
                        "provider_unavailable", unreachable_message(exc, self.options.get("host"))
                    ) from None
            return self._client

    def preflight(self, timeout: float = 10.0) -> None:
        """Raise InfraError (``provider_unavailable``) unless the engine answers a ping within ``timeout``."""
        docker = _docker()
        base_url = self.options.get("host")
        try:
            client = (
                docker.DockerClient(base_url=base_url, timeout=timeout)
                if base_url
                else docker.from_env(timeout=timeout)
            )
            try:
                client.ping()
            finally:
                client.close()
        except Exception as exc:
            raise InfraError(
                "provider_unavailable", unreachable_message(exc, self.options.get("host"))
            ) from None

    def daemon_alive(self) -> bool:
        try:
            self.client.ping()
            return True
        except Exception:
            return False

    def labels(self, spec: SandboxSpec) -> dict[str, str]:
        ttl = KEEP_TTL if spec.keep else spec.ttl
        return {
            LABEL: "1",
            f"{LABEL}.run": self.run.run_id,
            f"{LABEL}.owner-pid": str(self.run.owner_pid),
            f"{LABEL}.owner-host": self.run.owner_host,
            f"{LABEL}.owner-start": self.run.owner_start,
            f"{LABEL}.worker": self.run.worker,
            f"{LABEL}.created": str(int(time.time())),
            f"{LABEL}.ttl": str(int(ttl)),
            f"{LABEL}.role": spec.role,
            f"{LABEL}.keep": "1" if spec.keep else "0",
            **spec.labels,
        }

    def _ensure_image(self, image: str) -> None:
        docker = _docker()
        try:
            self.client.images.get(image)
            if self.pull != "always":
                return
        except docker.errors.ImageNotFound:
            if self.pull == "never":
                raise InfraError(
                    "image_missing", f"image {image} is not available locally (pull: never)"
                ) from None
        except InfraError:
            raise
        except Exception as exc:
            raise InfraError("provider_unavailable", f"cannot inspect image {image}: {exc}") from None
        try:
            self.client.images.pull(image)
        except Exception as exc:
            raise InfraError(
                "image_missing",
                f"image {image} is not available locally and could not be pulled: {exc}",
            ) from None

    def create(self, spec: SandboxSpec) -> DockerSandbox:
        self._ensure_image(spec.image)
        ttl = int(KEEP_TTL if spec.keep else spec.ttl)
        kwargs: dict[str, Any] = {
            "image": spec.image,
            "entrypoint": ["sleep"],
            "command": [str(ttl)],
            "init": True,
            "detach": True,
            "labels": self.labels(spec),
            "working_dir": spec.workdir,
            "environment": dict(spec.env),
            "auto_remove": not spec.keep,
            "name": f"pytest-swe-{spec.role}-{uuid.uuid4().hex[:10]}",
        }
        if spec.network:
            if self.network:
                kwargs["network"] = self.network
        else:
            kwargs["network_mode"] = "none"
        if spec.memory:
            kwargs["mem_limit"] = spec.memory
            kwargs["memswap_limit"] = spec.memory
        if spec.cpus:
            kwargs["nano_cpus"] = int(spec.cpus * 1e9)
        if self.disk_limit:
            kwargs["ulimits"] = [
                _docker().types.Ulimit(name="fsize", soft=self.disk_limit, hard=self.disk_limit)
            ]
        if spec.pids:
            kwargs["pids_limit"] = spec.pids
        if spec.mounts:
            kwargs["volumes"] = {host: {"bind": inside, "mode": "rw"} for host, inside in spec.mounts.items()}
        try:
            container = self.client.containers.create(**kwargs)
        except InfraError:
            raise
        except Exception as exc:
            kind = "sandbox_start" if self.daemon_alive() else "provider_unavailable"
            raise InfraError(kind, f"cannot create a container from {spec.image}: {exc}") from None
        try:
            container.start()
        except Exception as exc:
            self.remove(container.id)
            raise InfraError("sandbox_start", f"cannot start a container from {spec.image}: {exc}") from None
        return DockerSandbox(self, container, spec)

    def remove(self, container_id: str, attempts: int = 4) -> CleanupResult:
        """Remove a container and confirm it is gone, retrying; never raises."""
        docker = _docker()
        error: str | None = None
        for attempt in range(1, attempts + 1):
            try:
                self.client.api.remove_container(container_id, force=True)
            except docker.errors.NotFound:
                return CleanupResult(True, attempt)
            except Exception as exc:  # e.g. "removal already in progress" from auto-remove
                error = str(exc)
            try:
                self.client.api.inspect_container(container_id)
            except docker.errors.NotFound:
                return CleanupResult(True, attempt)
            except Exception as exc:
                error = str(exc)
            time.sleep(0.25 * attempt)
        return CleanupResult(False, attempts, error)

    def reap(
        self, *, run_id: str | None = None, worker: str | None = None, orphans: bool = False, kept: bool | None = False
    ) -> list[str]:
        """Remove sandboxes of a run (or of every run), of a worker, or orphans; return their ids.

        ``kept``: False leaves sandboxes kept with ``--swe-keep`` alone, True removes only those,
        None removes both.
        """
        filters = [LABEL]
        if run_id:
            filters.append(f"{LABEL}.run={run_id}")
        if worker:
            filters.append(f"{LABEL}.worker={worker}")
        try:
            containers = self.client.api.containers(all=True, filters={"label": filters})
        except Exception:
            return []
        now = time.time()
        host = socket.gethostname()
        doomed = []
        for info in containers:
            labels = info.get("Labels") or {}
            if orphans and not self._is_orphan(labels, now, host):
                continue
            is_kept = labels.get(f"{LABEL}.keep") == "1"
            if not orphans and kept is not None and is_kept != kept:
                continue
            doomed.append(info["Id"])
        if not doomed:
            return []
        # In parallel: after a Ctrl-C every sandbox of the run goes at once, not one after the other.
        with concurrent.futures.ThreadPoolExecutor(max_workers=min(REAP_PARALLEL, len(doomed))) as pool:
            results = list(pool.map(self.remove, doomed))
        return [cid[:12] for cid, result in zip(doomed, results, strict=True) if result.removed]

    @staticmethod
    def _is_orphan(labels: Mapping[str, str], now: float, host: str) -> bool:
        try:
            created = float(labels.get(f"{LABEL}.created", "0"))
            ttl = float(labels.get(f"{LABEL}.ttl", "0"))
        except ValueError:
            return True
        if created and ttl and now > created + ttl:
            return True
        if labels.get(f"{LABEL}.keep") == "1":
            return False
        if labels.get(f"{LABEL}.owner-host") != host:
            return False
        try:
            pid = int(labels.get(f"{LABEL}.owner-pid", ""))
        except ValueError:
            return True
        return not owner_alive(pid, labels.get(f"{LABEL}.owner-start", ""))

    def close(self) -> None:
        if self._client is not None:
            with contextlib.suppress(Exception):
                self._client.close()
            self._client = None


@pytest.hookimpl
def pytest_swe_providers() -> list[Any]:
    return [DockerProvider]
