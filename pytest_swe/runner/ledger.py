"""The controller's crash-safe ledger and the run-level metadata of the JUnit file.

Only the process that writes the JUnit file (the xdist controller, or pytest without
xdist) runs this plugin. Each finished item becomes one flushed and fsynced JSON line
in ``<run dir>/ledger.jsonl``, so a controller killed with SIGKILL loses nothing that
had finished.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import pytest_swe
from pytest_swe.runner.properties import OUTCOME
from pytest_swe.runner.properties import RUN_LEVEL
from pytest_swe.runner.properties import is_item
from pytest_swe.runner.properties import item_key
from pytest_swe.runner.properties import kept_sandboxes

LEDGER_NAME = "ledger.jsonl"
RUN_META_NAME = "run.json"
RUNS_DIR = "swe-runs"
LATEST_NAME = "latest"


def point_latest(run_dir: Path) -> None:
    """Make ``swe-runs/latest`` a relative symlink to ``run_dir``, replaced atomically.

    Only for run directories directly under a ``swe-runs`` folder (the default place); a
    ``latest`` that is not a symlink (a run named so) is left alone.
    """
    runs = run_dir.parent
    latest = runs / LATEST_NAME
    if runs.name != RUNS_DIR or run_dir.name == LATEST_NAME:
        return
    if latest.exists() and not latest.is_symlink():
        return
    tmp = runs / f".{LATEST_NAME}-{os.getpid()}"
    try:
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(run_dir.name, target_is_directory=True)
        os.replace(tmp, latest)
    except OSError:
        tmp.unlink(missing_ok=True)  # a file system without symlinks: the run goes on without one


class LedgerFormatError(ValueError):
    """A ledger line that is not a JSON object (other than a last line cut by a crash)."""


def read_entries(path: Path) -> dict[str, dict[str, Any]]:
    """The last recorded entry of every item in a ``ledger.jsonl`` (later lines win).

    A last line that is not valid JSON was cut by a crash mid-write and is left out; any other
    bad line raises :class:`LedgerFormatError` naming the file and the line.
    """
    entries: dict[str, dict[str, Any]] = {}
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):
                continue  # a line cut by a crash mid-write: that item simply runs again
            raise LedgerFormatError(f"{path}: line {number} is not valid JSON") from None
        if not isinstance(entry, dict) or "nodeid" not in entry:
            raise LedgerFormatError(f"{path}: line {number} is not a ledger entry (no 'nodeid')")
        entries[item_key(entry["nodeid"], entry.get("properties", {}))] = entry
    return entries


def describe_longrepr(report: pytest.TestReport) -> dict[str, Any]:
    """What the ledger keeps of a failing report to rebuild it exactly on resume."""
    longrepr = report.longrepr
    if longrepr is None:
        return {}
    if isinstance(longrepr, tuple):
        return {"kind": "skip", "location": list(longrepr)}
    crash = getattr(longrepr, "reprcrash", None)
    text = str(longrepr)
    if crash is not None:
        return {
            "kind": "exception",
            "crash": crash.message,
            "path": crash.path,
            "lineno": crash.lineno,
            "text": text,
        }
    return {"kind": "text", "text": text}


def message_of(report: pytest.TestReport) -> str:
    if report.longrepr is None:
        return ""
    if isinstance(report.longrepr, tuple):  # skip: (path, line, reason)
        return str(report.longrepr[2])
    return str(getattr(report, "longreprtext", "") or report.longrepr)


class Ledger:
    """Appends finished items to the ledger and writes run metadata at the end."""

    def __init__(self, config: pytest.Config, run_id: str, run_dir: Path) -> None:
        self.config = config
        self.run_id = run_id
        self.run_dir = run_dir
        self.path = run_dir / LEDGER_NAME
        self.started = time.time()
        self._phases: dict[str, dict[str, pytest.TestReport]] = {}
        self.run_values: dict[str, set[str]] = {key: set() for key in RUN_LEVEL}
        self.counts: Counter[str] = Counter()
        self.kept: list[str] = []
        self._fh: Any = None
        self._dir_made = False

    def _make_dir(self) -> None:
        if not self._dir_made:
            self.run_dir.mkdir(parents=True, exist_ok=True)
            point_latest(self.run_dir)
            self._dir_made = True

    def _file(self) -> Any:
        if self._fh is None:
            self._make_dir()
            self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115  (kept open for the run)
        return self._fh

    def append(self, entry: dict[str, Any]) -> None:
        fh = self._file()
        fh.write(json.dumps(entry, sort_keys=True) + "\n")
        fh.flush()
        os.fsync(fh.fileno())

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "setup":  # an item's first report, also of each rerun attempt
            self._phases.pop(report.nodeid, None)
        phases = self._phases.setdefault(report.nodeid, {})
        phases[report.when] = report
        if report.when not in ("teardown", "???"):  # "???": xdist's report for an item whose worker crashed
            return
        self._phases.pop(report.nodeid, None)
        props = dict(report.user_properties)
        if not is_item(props):
            return  # not a pytest-swe item
        outcome = str(props.get(OUTCOME, ""))
        message, phase, longrepr = "", None, {}
        for when in ("setup", "call", "teardown", "???"):
            rep = phases.get(when)
            if rep is not None and (rep.failed or rep.skipped):
                message, phase, longrepr = message_of(rep), when, describe_longrepr(rep)
                break
        if not getattr(report, "swe_replayed", False):  # set on the reports resume replays
            self.append(
                {
                    "nodeid": report.nodeid,
                    "outcome": outcome,
                    "properties": props,
                    "message": message,
                    "phase": phase,
                    "longrepr": longrepr,
                    "duration": round(sum(r.duration for r in phases.values()), 3),
                    "finished": time.time(),
                    "worker": _worker_of(report),
                }
            )
        for key in RUN_LEVEL:
            if props.get(key):
                self.run_values[key].add(str(props[key]))
        self.counts[outcome] += 1
        self.kept += kept_sandboxes(props)

    def metadata(self) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "harness": "pytest-swe",
            "harness_version": pytest_swe.__version__,
            "run_id": self.run_id,
            "run_dir": str(self.run_dir),
            "started": self.started,
        }
        for key, values in self.run_values.items():
            if values:
                meta[key] = ",".join(sorted(values))
        return meta

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        xml = junit_writer(self.config)
        if xml is None and not self.counts:
            return  # a run of no benchmark and no JUnit file: not even the version is looked up
        meta = self.metadata()
        if xml is not None:
            for key, value in meta.items():
                if key != "started":
                    xml.add_global_property(key, str(value))
        if self.counts:
            self._make_dir()
            meta = {**meta, "finished": time.time(), "counts": dict(self.counts)}
            (self.run_dir / RUN_META_NAME).write_text(json.dumps(meta, indent=2, sort_keys=True))

    def summary_lines(self) -> list[str]:
        """Where the run's ledger is and which sandboxes were kept (the end of the terminal summary)."""
        if not self.counts:
            return []
        return [f"run {self.run_id}: ledger {self.path}", *(f"kept sandbox {line}" for line in self.kept)]

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def _worker_of(report: pytest.TestReport) -> str:
    gateway = getattr(getattr(report, "node", None), "gateway", None)
    return str(getattr(gateway, "id", "main"))


def junit_writer(config: pytest.Config) -> Any:
    """pytest's JUnit writer of this run (None without ``--junitxml``)."""
    try:
        # The writer's private stash key: pytest has no public API for the run's testsuite properties.
        from _pytest.junitxml import xml_key
    except ImportError:
        return None
    return config.stash.get(xml_key, None)
