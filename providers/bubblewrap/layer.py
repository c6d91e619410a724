"""A sandbox's writable layer over a read-only root filesystem.

The upper directory lives on a filesystem of its own, a sparse file of ``disk_limit`` bytes
formatted ext4 and loop-mounted (root only): a write past the limit fails with ENOSPC inside the
sandbox, and the host sees the filesystem full, which is how ``disk_full`` is told apart from a
test's own failure. A tmpfs would do the same but is charged to the sandbox's memory cgroup, so a
disk fill would read as an OOM. The merged view is the kernel's overlayfs when this process may
mount it, else ``fuse-overlayfs`` (rootless), else a copy of the root filesystem (slow, but
needs nothing).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from pathlib import Path

MODES = ("kernel", "fuse", "copy")
FULL_MARGIN = 1 << 20
"""Free bytes below which the layer's filesystem counts as full (ext4 keeps a few blocks back)."""


def pick_mode(wanted: str = "auto") -> str:
    """The overlay this machine offers: ``kernel`` (root), ``fuse`` (fuse-overlayfs), ``copy``."""
    if wanted != "auto":
        if wanted not in MODES:
            raise ValueError(f"overlay must be one of auto, {', '.join(MODES)}: {wanted!r}")
        return wanted
    if os.geteuid() == 0:
        return "kernel"
    if shutil.which("fuse-overlayfs") and os.access("/dev/fuse", os.R_OK | os.W_OK):
        return "fuse"
    return "copy"


def mounted(path: Path) -> bool:
    """Whether ``path`` is a mount point (read from /proc/self/mountinfo, which sees fuse mounts too)."""
    target = str(path)
    try:
        with open("/proc/self/mountinfo") as fh:
            return any(line.split()[4] == target for line in fh)
    except OSError:
        return os.path.ismount(target)


def mounts_under(path: Path) -> list[str]:
    prefix = str(path).rstrip("/") + "/"
    try:
        with open("/proc/self/mountinfo") as fh:
            found = [line.split()[4] for line in fh]
    except OSError:
        return []
    return [m for m in found if m == str(path) or m.startswith(prefix)]


def _run(argv: list[str]) -> None:
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise OSError(f"{' '.join(argv[:2])} failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")


class Layer:
    """The directories of one sandbox's layer under ``base``: ``disk`` (upper + work), ``merged``."""

    def __init__(self, base: Path, mode: str) -> None:
        self.base = base
        self.mode = mode
        self.disk = base / "disk"
        self.image = base / "disk.img"
        self.merged = base / "merged"

    def create(self, lower: Path, disk_limit: int | None) -> None:
        self.disk.mkdir(parents=True, exist_ok=True)
        self.merged.mkdir(exist_ok=True)
        if disk_limit and os.geteuid() == 0:
            with open(self.image, "wb") as fh:
                fh.truncate(disk_limit)
            _run(["mkfs.ext4", "-q", "-F", "-m", "0", "-O", "^has_journal", "-E", "lazy_itable_init=1",
                  str(self.image)])  # fmt: skip
            _run(["mount", "-o", "loop,noatime", str(self.image), str(self.disk)])
            self.image.unlink()  # the loop device keeps the file; it goes with the last unmount
        upper, work = self.disk / "upper", self.disk / "work"
        if self.mode == "copy":
            _run(["cp", "-a", "--reflink=auto", f"{lower}/.", str(upper)])
            return
        upper.mkdir(exist_ok=True)
        work.mkdir(exist_ok=True)
        options = f"lowerdir={lower},upperdir={upper},workdir={work}"
        if self.mode == "kernel":
            _run(["mount", "-t", "overlay", "overlay", "-o", options, str(self.merged)])
        else:
            _run(["fuse-overlayfs", "-o", options, str(self.merged)])

    @property
    def root(self) -> Path:
        """What the sandbox sees as ``/``."""
        return self.disk / "upper" if self.mode == "copy" else self.merged

    def free_bytes(self) -> int | None:
        """Free bytes of the layer's own filesystem (None without one)."""
        if not mounted(self.disk):
            return None
        try:
            stat = os.statvfs(self.disk)
        except OSError:
            return None
        return stat.f_bavail * stat.f_frsize

    def full(self) -> bool:
        free = self.free_bytes()
        return free is not None and free < FULL_MARGIN

    def remove(self, attempts: int = 5) -> bool:
        """Unmount everything under the layer and delete it; True when nothing is left."""
        for attempt in range(attempts):
            for mount in sorted(mounts_under(self.base), key=len, reverse=True):
                argv = ["umount", mount] if attempt < 2 else ["umount", "-l", mount]
                if self.mode == "fuse" and os.geteuid() != 0:
                    argv = ["fusermount", "-u", *(["-z"] if attempt >= 2 else []), mount]
                subprocess.run(argv, capture_output=True, check=False)
            if not mounts_under(self.base):
                break
            time.sleep(0.2 * (attempt + 1))
        if mounts_under(self.base):
            return False
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(self.base)
        return not self.base.exists()
