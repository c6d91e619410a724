"""Fixtures of the log-parser tests: real runner logs (made once per run, shared by xdist
workers through a file lock) and the official parsers (in their own venv, over a pipe)."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path

import pytest
from filelock import FileLock
from filelock import Timeout

from .logparsers_official import OfficialParsers
from .logparsers_official import missing_reason
from .logparsers_runners import PROJECTS
from .logparsers_runners import RUNNERS
from conftest import run_shared_dir
from conftest import unavailable

# Sample projects contain test files of their own runners; they are run, never collected here.
collect_ignore = ["projects", "fixtures", "official_driver.py"]


def worker_name() -> str:
    """The xdist worker's id (``gw0``...), or ``master`` without xdist."""
    return os.environ.get("PYTEST_XDIST_WORKER", "master")


@pytest.fixture(scope="session")
def shared_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory every xdist worker of this run sees (the parent of the workers' base temps)."""
    directory = run_shared_dir(tmp_path_factory) / "logparser-logs"
    directory.mkdir(exist_ok=True)
    return directory


_NEEDED_RUNNERS = pytest.StashKey[set[str]]()


def pytest_collection_finish(session: pytest.Session) -> None:
    """Note which runners the selected log-parser tests read, so their logs are made up front, in parallel.

    The hook sees the whole session's items (after ``-k``/``-m`` selection); only those under
    this directory are looked at.
    """
    here = Path(__file__).resolve().parent
    needed: set[str] = set()
    for item in session.items:
        if here not in item.path.resolve().parents:
            continue
        callspec = getattr(item, "callspec", None)
        params = callspec.params if callspec else {}
        source = getattr(params.get("case"), "source", None)
        if isinstance(source, str) and "/" in source and not source.startswith("fixture:"):
            needed.add(source.split("/", 1)[0])
        elif params.get("origin") in RUNNERS:
            needed.add(params["origin"])
    session.config.stash[_NEEDED_RUNNERS] = needed


def _run_one(name: str, shared_dir: Path) -> None:
    """Run one runner into ``<name>.json`` (the caller holds its lock)."""
    runner = RUNNERS[name]
    work = shared_dir / "work" / name
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(PROJECTS / runner.project, work, symlinks=True)
    started = time.monotonic()
    try:
        logs = runner.produce_logs(work)
    except Exception as exc:  # recorded so every test reading it fails fast with the cause
        logs = {"__error__": f"{type(exc).__name__}: {exc}"}
    (shared_dir / f"{name}.json").write_text(json.dumps(logs), encoding="utf-8")
    with (shared_dir / "timings.txt").open("a") as timings:
        timings.write(f"{name} {time.monotonic() - started:.1f}s\n")


def _run_all(names: list[str], shared_dir: Path) -> None:
    """Make every listed runner's logs, taking whichever is free: xdist workers share the work."""
    pending = [name for name in names if not RUNNERS[name].missing()]
    while pending:
        for name in list(pending):
            if (shared_dir / f"{name}.json").exists():
                pending.remove(name)
                continue
            lock = FileLock(str(shared_dir / f"{name}.lock"), timeout=0)
            try:
                lock.acquire()
            except Timeout:
                continue  # another worker is on it
            try:
                if not (shared_dir / f"{name}.json").exists():
                    _run_one(name, shared_dir)
            finally:
                lock.release()
            pending.remove(name)
        if pending:
            time.sleep(0.2)


@pytest.fixture(scope="session")
def runner_logs(shared_dir: Path, pytestconfig: pytest.Config) -> Callable[[str], dict[str, str]]:
    """``runner_logs(name)`` -> that runner's logs, made once per run for all xdist workers."""
    loaded: dict[str, dict[str, str]] = {}
    started = False

    def get(name: str) -> dict[str, str]:
        nonlocal started
        if not started:
            started = True
            needed = sorted(pytestconfig.stash.get(_NEEDED_RUNNERS, set()))
            if needed:  # workers start at different runners and steal the rest
                offset = sum(map(ord, worker_name())) % len(needed)
                _run_all(needed[offset:] + needed[:offset], shared_dir)
        if name not in loaded:
            missing = RUNNERS[name].missing()
            if missing:
                unavailable(f"{name} runner unavailable ({'; '.join(missing)}): run .ci/install-runners.sh")
            with FileLock(str(shared_dir / f"{name}.lock")):
                if not (shared_dir / f"{name}.json").exists():
                    _run_one(name, shared_dir)
            loaded[name] = json.loads((shared_dir / f"{name}.json").read_text(encoding="utf-8"))
        if "__error__" in loaded[name]:
            pytest.fail(f"{name} runner failed: {loaded[name]['__error__']}", pytrace=False)
        return loaded[name]

    return get


@pytest.fixture(scope="session")
def official() -> Iterator[Callable[[str], OfficialParsers]]:
    """``official(release)`` -> a client of that release's parsers; fails in CI when the venv is missing."""
    clients: dict[str, OfficialParsers] = {}
    reasons: dict[str, str | None] = {}

    def get(release: str) -> OfficialParsers:
        if release not in reasons:
            reasons[release] = missing_reason(release)
        reason = reasons[release]
        if reason:
            unavailable(reason)
        if release not in clients:
            clients[release] = OfficialParsers(release)
        return clients[release]

    yield get
    for client in clients.values():
        client.close()
