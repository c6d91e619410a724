"""A sandbox's cgroups (v1 hierarchies, the layout of these machines; v2 where it is the only one).

Limits live on the sandbox's own group: memory and cpu hold every process of the sandbox, pids
and freezer have one child group per command (``keep`` for the keep-alive, ``x-<token>`` per
exec), so a timeout freezes and kills exactly one command's process tree, forks included, and
closing the sandbox freezes and kills all of it. No rlimit is raised: the machine's hard limits
are below what a runtime would need to raise, and a cgroup limit binds every process alike.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(os.environ.get("PYTEST_SWE_CGROUP_ROOT", "/sys/fs/cgroup"))
PARENT = "pytest-swe-bwrap"
LIMITED = ("memory", "cpu")
"""Controllers whose group is the sandbox itself (v1: an OOM is counted in the victim's group)."""
TRACKED = ("pids", "freezer")
"""Controllers with one child group per command."""


def _write(path: Path, value: str) -> bool:
    try:
        path.write_text(value)
    except OSError:
        return False
    return True


def _read_key(path: Path, key: str) -> int:
    """The value after ``key`` in a flat-keyed cgroup file (``oom_kill 2``); 0 when unreadable."""
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def available() -> list[str]:
    """The v1 controllers this process may create groups in (empty when rootless or absent)."""
    found = []
    for controller in (*LIMITED, *TRACKED):
        base = ROOT / controller
        if (base / "cgroup.procs").exists() and os.access(base, os.W_OK):
            found.append(controller)
    return found


class SandboxGroups:
    """The cgroups of one sandbox, by id; every method tolerates groups that do not exist."""

    def __init__(self, sandbox_id: str, controllers: Iterable[str]) -> None:
        self.id = sandbox_id
        self.controllers = [c for c in controllers if c in (*LIMITED, *TRACKED)]
        self._pruned_hits = 0
        """Process-limit hits of command groups already removed (v1 counts a hit in the forker's group)."""

    def group(self, controller: str, child: str | None = None) -> Path:
        base = ROOT / controller / PARENT / self.id
        return base / child if child and controller in TRACKED else base

    def create(self, *, memory: int | None, pids: int | None, cpus: float | None) -> None:
        for controller in self.controllers:
            self.group(controller).mkdir(parents=True, exist_ok=True)
        if memory and "memory" in self.controllers:
            path = self.group("memory")
            if not _write(path / "memory.limit_in_bytes", str(memory)):
                raise OSError(f"cannot set the memory limit in {path}")
            _write(path / "memory.memsw.limit_in_bytes", str(memory))  # no swap beyond it, when accounted
        if pids and "pids" in self.controllers and not _write(self.group("pids") / "pids.max", str(pids)):
            raise OSError(f"cannot set the process limit in {self.group('pids')}")
        if cpus and "cpu" in self.controllers:
            path = self.group("cpu")
            _write(path / "cpu.cfs_period_us", "100000")
            _write(path / "cpu.cfs_quota_us", str(max(int(cpus * 100000), 1000)))

    def procs_files(self, child: str) -> list[str]:
        """The ``cgroup.procs`` files a command's first process writes its pid to (making ``child``)."""
        files = []
        for controller in self.controllers:
            path = self.group(controller, child)
            path.mkdir(exist_ok=True)  # not parents: a removed sandbox's group is not made again
            files.append(str(path / "cgroup.procs"))
        return files

    def pids(self, child: str | None = None) -> set[int]:
        """Every process in the sandbox (or in one command's group)."""
        found: set[int] = set()
        for controller in self.controllers:
            if child and controller not in TRACKED:
                continue
            base = self.group(controller, child)
            groups = [base] if child else [base, *(p for p in _subgroups(base))]
            for group in groups:
                try:
                    found.update(int(line) for line in (group / "cgroup.procs").read_text().split())
                except (OSError, ValueError):
                    continue
        return found

    def kill(self, child: str | None = None, *, keep: str | None = None, settle: float = 5.0) -> bool:
        """Freeze, kill and thaw every process of one command (or of the sandbox, but ``keep``'s);
        True when none is left."""
        victims = self._victims(child, keep)
        end = time.monotonic() + settle
        while victims:
            frozen = self._freeze(child, keep, True)
            for pid in victims:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            if frozen:
                self._freeze(child, keep, False)  # a killed frozen task dies once thawed
            time.sleep(0.02)
            victims = self._victims(child, keep)
            if time.monotonic() > end:
                return False
        return True

    def _victims(self, child: str | None, keep: str | None) -> set[int]:
        victims = self.pids(child)
        if keep:
            victims -= self.pids(keep)
        return victims

    def _freeze(self, child: str | None, keep: str | None, frozen: bool) -> bool:
        if "freezer" not in self.controllers:
            return False
        base = self.group("freezer", child)
        targets = [base] if child or not keep else [g for g in _subgroups(base) if g.name != keep]
        state = "FROZEN" if frozen else "THAWED"
        return any([_write(target / "freezer.state", state) for target in targets])

    def remove(self) -> bool:
        """Remove the empty groups (children first); True when none is left."""
        gone = True
        for controller in self.controllers:
            base = self.group(controller)
            for group in [*_subgroups(base), base]:
                with contextlib.suppress(FileNotFoundError):
                    try:
                        group.rmdir()
                    except OSError:
                        gone = False
        return gone

    def prune(self) -> None:
        """Remove the groups of commands that ended (a finished exec leaves an empty group)."""
        for controller in TRACKED:
            if controller not in self.controllers:
                continue
            for group in _subgroups(self.group(controller)):
                if group.name.startswith("x-"):
                    hits = _read_key(group / "pids.events", "max") if controller == "pids" else 0
                    with contextlib.suppress(OSError):
                        group.rmdir()
                        self._pruned_hits += hits

    # -- counters ----------------------------------------------------------------------------

    def oom_kills(self) -> int:
        if "memory" not in self.controllers:
            return 0
        return _read_key(self.group("memory") / "memory.oom_control", "oom_kill")

    def pids_limit_hits(self) -> int:
        if "pids" not in self.controllers:
            return 0
        base = self.group("pids")
        return self._pruned_hits + sum(_read_key(g / "pids.events", "max") for g in [base, *_subgroups(base)])


def _subgroups(base: Path) -> list[Path]:
    try:
        return [p for p in base.iterdir() if p.is_dir()]
    except OSError:
        return []
