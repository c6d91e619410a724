"""Resuming a run from its ledger, and retrying items that hit infrastructure faults.

A resumed run re-emits every item the ledger recorded as finished (passed, failed or
skipped) with its recorded outcome, message and properties, without running it, so the
new JUnit file equals an uninterrupted run's item for item; items that errored or never
finished run again. Retries re-run an item whose setup raised an InfraError, up to N
more times, and record every attempt's error kind.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any
from typing import Literal

import pytest

# pytest's private report classes: a replayed failure must render exactly as the recorded one.
from _pytest._code.code import ReprEntry
from _pytest._code.code import ReprExceptionInfo
from _pytest._code.code import ReprFileLocation
from _pytest._code.code import ReprTraceback

from pytest_swe.runner.ledger import LEDGER_NAME
from pytest_swe.runner.ledger import LedgerFormatError
from pytest_swe.runner.ledger import describe_longrepr
from pytest_swe.runner.ledger import read_entries
from pytest_swe.runner.properties import RUN_ID
from pytest_swe.runner.properties import item_key

__all__ = ["describe_longrepr", "finished_entries", "item_key", "load_ledger", "replay"]

FINISHED = ("passed", "failed", "skipped")


def load_ledger(run_dir: Path, *, reader: str = "--swe-resume") -> dict[str, dict[str, Any]]:
    """The last recorded entry of every item in a run directory's ledger (later lines win);
    ``reader`` names who asked, in the error for a directory without one."""
    path = Path(run_dir) / LEDGER_NAME
    if not path.exists():
        raise pytest.UsageError(
            f"{reader} {run_dir}: no {LEDGER_NAME} there (not a pytest-swe run directory?)"
        )
    try:
        return read_entries(path)
    except LedgerFormatError as exc:
        raise pytest.UsageError(str(exc)) from None


def finished_entries(run_dir: Path) -> dict[str, dict[str, Any]]:
    return {key: e for key, e in load_ledger(run_dir).items() if e.get("outcome") in FINISHED}


def recorded_run_id(entries: dict[str, dict[str, Any]]) -> str | None:
    for entry in entries.values():
        run_id = entry.get("properties", {}).get(RUN_ID)
        if run_id:
            return str(run_id)
    return None


# --- reports from ledger entries ---------------------------------------------------------------


def rebuild_longrepr(info: dict[str, Any]) -> Any:
    kind = info.get("kind")
    if kind == "skip":
        path, lineno, reason = info["location"]
        return (path, lineno, reason)
    if kind == "exception":
        entry = ReprEntry(info["text"].split("\n"), None, None, None, "value")
        crash = ReprFileLocation(info.get("path", ""), info.get("lineno", 0), info["crash"])
        return ReprExceptionInfo(ReprTraceback([entry], None, "value"), crash)
    if kind == "text":
        return info["text"]
    return None


def replay(item: pytest.Item, entry: dict[str, Any]) -> None:
    """Log setup/call/teardown reports that reproduce a recorded outcome, without running the item."""
    ihook = item.ihook
    ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    outcome = entry["outcome"]
    phase = entry.get("phase") or ("setup" if outcome in ("skipped", "error") else "call")
    longrepr = rebuild_longrepr(entry.get("longrepr") or {})
    props = list(entry.get("properties", {}).items())
    now = time.time()

    def report(
        when: Literal["setup", "call", "teardown"],
        result: Literal["passed", "failed", "skipped"],
        rep_longrepr: Any = None,
        user_properties: Any = (),
    ) -> pytest.TestReport:
        rep = pytest.TestReport(
            item.nodeid,
            item.location,
            {k: 1 for k in item.keywords},
            result,
            rep_longrepr,
            when,
            duration=0.0,
            start=now,
            stop=now,
            user_properties=list(user_properties),
        )
        rep.swe_replayed = True  # type: ignore[attr-defined]
        return rep

    reports = []
    if phase == "setup":
        reports.append(report("setup", "skipped" if outcome == "skipped" else "failed", longrepr))
    else:
        reports.append(report("setup", "passed"))
        reports.append(report("call", "passed" if outcome == "passed" else outcome, longrepr))
    reports.append(report("teardown", "passed", None, props))
    for rep in reports:
        ihook.pytest_runtest_logreport(report=rep)
    ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
