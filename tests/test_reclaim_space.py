"""scripts/reclaim-space.sh: what it gives back when the disk is short, and what it must keep.

The script runs for real over a bubblewrap cache and a pytest temporary root made here; a
``docker`` on PATH that answers nothing keeps it away from the machine's engine.
"""

from __future__ import annotations

import getpass
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HOUR_AND_A_BIT = 3700


def _reclaim(argument: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(REPO / "scripts" / "reclaim-space.sh"), argument],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _make(path: Path, *, age: float) -> Path:
    path.mkdir(parents=True)
    (path / "file").write_text("x")
    then = time.time() - age
    for each in (path / "file", path):
        os.utime(each, (then, then))
    return path


def test_reclaim_takes_old_unnamed_root_filesystems_chains_and_temp_dirs_and_keeps_the_rest(
    tmp_path: Path,
) -> None:
    cache = tmp_path / "bwrap"
    named = "a" * 64
    (cache / "tags").mkdir(parents=True)
    (cache / "tags" / "t.json").write_text(json.dumps({"tag": "t:1", "digest": f"sha256:{named}"}))
    keep = [
        _make(cache / "images" / named, age=HOUR_AND_A_BIT),  # a tag names it
        _make(cache / "images" / ("b" * 64), age=60),  # unnamed, but new: an unpack may be tagging it
        _make(cache / "chains" / ("c" * 64), age=60),
    ]
    take = [
        _make(cache / "images" / ("d" * 64), age=HOUR_AND_A_BIT),
        _make(cache / "images" / ".dddddddddddd-x1", age=HOUR_AND_A_BIT),  # an unpack that died
        _make(cache / "chains" / ("e" * 64), age=HOUR_AND_A_BIT),
    ]
    same, other = (cache / "images" / named / "lib.py"), (cache / "images" / ("b" * 64) / "lib.py")
    differs = cache / "images" / ("b" * 64) / "file"  # same content as the named image's, newer
    for path in (same, other):
        path.write_text("print('shared')\n")
        os.utime(path, (1_600_000_000, 1_600_000_000))
    temp = tmp_path / "tmp"
    runs = temp / f"pytest-of-{getpass.getuser()}"
    take.append(_make(runs / "pytest-1", age=HOUR_AND_A_BIT))
    keep.append(_make(runs / "pytest-2", age=HOUR_AND_A_BIT))
    (runs / "pytest-2" / "recent").write_text("a run still writes here")
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "docker").write_text("#!/bin/sh\nexit 1\n")
    (fake / "docker").chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{fake}:{os.environ['PATH']}",
        "PYTEST_SWE_BWRAP_ROOT": str(cache),
        "TMPDIR": str(temp),
    }
    done = _reclaim("false", env)
    assert done.returncode == 0, done.stderr
    assert "MB after" in done.stdout
    assert [p for p in keep if not p.exists()] == []
    assert [p for p in take if p.exists()] == []
    assert same.stat().st_ino == other.stat().st_ino and same.stat().st_nlink == 2
    assert differs.stat().st_ino != (cache / "images" / named / "file").stat().st_ino


def test_reclaim_looks_at_the_cache_the_bubblewrap_provider_uses(tmp_path: Path) -> None:
    """The script's rule for the cache's place is the provider's (as root: /var/lib, not ~/.cache)."""
    from pytest_swe.providers.bubblewrap.provider import default_root

    for extra in ({}, {"PYTEST_SWE_BWRAP_ROOT": str(tmp_path / "elsewhere")}):
        env = {k: v for k, v in os.environ.items() if k != "PYTEST_SWE_BWRAP_ROOT"}
        env.update(HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "xdg"), **extra)
        done = _reclaim("--bwrap-root", env)
        assert done.returncode == 0, done.stderr
        printed = done.stdout.strip()
        with pytest.MonkeyPatch.context() as mp:
            for key in ("HOME", "XDG_CACHE_HOME", "PYTEST_SWE_BWRAP_ROOT"):
                mp.delenv(key, raising=False)
                if key in env:
                    mp.setenv(key, env[key])
            assert printed == str(default_root())
