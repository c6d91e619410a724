"""A run's owner identity (pid and start time), written into every sandbox's labels and read back
by whoever reaps orphans: possibly another pytest-swe version on the same engine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_swe.api.sandbox import owner_alive
from pytest_swe.api.sandbox import process_start
from pytest_swe.api.sandbox import this_run


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_the_start_time_is_the_kernels_tick_count() -> None:
    """Labels written as /proc counts them: a reaper of another version must not take a live owner
    for a dead one (and remove its sandboxes) because the two spell its start differently."""
    pid = os.getpid()
    ticks = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    assert process_start(pid) == ticks
    assert this_run(run_id="r").owner_start == ticks


def test_an_owner_is_alive_only_with_its_own_start_time() -> None:
    me = os.getpid()
    assert owner_alive(me, process_start(me))
    assert owner_alive(me, "")  # no start recorded: the pid alone decides
    assert not owner_alive(me, str(int(process_start(me)) + 1))  # the pid was reused by another process


def test_an_ended_owner_is_not_alive() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    start = process_start(child.pid)
    assert start and owner_alive(child.pid, start)
    child.wait()
    assert not owner_alive(child.pid, start)
    assert process_start(child.pid) == ""
