"""The run as people watch it: a live status line, the -v status words, the summary table and the
agent/eval phases in ``--durations``.

Only the process that owns the terminal (the xdist controller, or pytest without xdist) runs
:class:`Progress`; it counts the teardown reports it receives, whose properties carry each
item's outcome, so the counts are the same with and without xdist and workers print nothing.

On a terminal the line is redrawn in place (``\\r``) after each item when pytest's own progress
is dots: pytest's dots keep being written, the next redraw erases them, and pytest's end-of-line
percentage never fires while the line holds a carriage return (pytest measures such a line as
of unknown width). With ``-v`` pytest's output is one line per item, which a redraw would
overwrite, so the live line is printed every N items on its own line, as when the output is
not a terminal (CI logs).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from dataclasses import field
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_swe.runner import options
from pytest_swe.runner.properties import BENCHMARK
from pytest_swe.runner.properties import OUTCOME
from pytest_swe.runner.properties import is_item

if TYPE_CHECKING:
    from pytest_swe.runner.properties import ItemRecord

MODES = ("auto", "live", "lines", "none")
"""``--swe-progress``: auto = redrawn on a terminal, lines otherwise; live / lines force one; none = off."""
DEFAULT_EVERY = 10
PHASES = ("sandbox", "agent", "eval")
"""The timed steps of an item (``time_<phase>`` properties) listed by ``--durations``."""
SEP = " · "


def status_word(when: str, report: pytest.TestReport, record: ItemRecord) -> str | None:
    """The -v word of an item's report: RESOLVED, UNRESOLVED (F2P 5/7) or ERROR <kind>."""
    if when == "call" and report.passed:
        return "RESOLVED"
    if when == "call" and report.failed:
        verdict = record.verdict
        if verdict is not None and verdict.group("FAIL_TO_PASS").total:
            f2p = verdict.group("FAIL_TO_PASS")
            return f"UNRESOLVED (F2P {len(f2p.success)}/{f2p.total})"
        return "UNRESOLVED"
    if when == "setup" and report.failed:
        return f"ERROR {record.error_kind or 'harness_error'}"
    return None


def teststatus(report: pytest.TestReport) -> tuple[str, str, str] | None:
    """``pytest_report_teststatus`` for a report carrying a status word (it survives xdist's
    serialization as a plain attribute); the category follows the report's current outcome, so a
    report another plugin turned into a rerun is left to that plugin."""
    word = getattr(report, "swe_status", None)
    if not word:
        return None
    if report.when == "call" and report.passed:
        return "passed", ".", word
    if report.when == "call" and report.failed:
        return "failed", "F", word
    if report.when == "setup" and report.failed:
        return "error", "E", word
    return None


def format_eta(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{round(seconds / 60)}m"
    hours, rest = divmod(seconds, 3600)
    return f"{hours}h{rest // 60:02d}m"


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def _number(value: Any) -> float | None:
    try:
        return float(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        return None


@dataclass
class Tally:
    """Counts of finished items: the whole run's, or one benchmark and family's."""

    outcomes: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    cost: float | None = None
    seconds: float = 0.0

    def add(self, props: dict[str, Any], seconds: float) -> None:
        outcome = str(props.get(OUTCOME, ""))
        self.outcomes[outcome] += 1
        if outcome == "error":
            self.errors[str(props.get("error_kind") or "harness_error")] += 1
        cost = _number(props.get("agent_cost"))
        if cost is not None:
            self.cost = (self.cost or 0.0) + cost
        self.seconds += seconds

    @property
    def done(self) -> int:
        return sum(self.outcomes.values())

    @property
    def resolved(self) -> int:
        return self.outcomes["passed"]

    @property
    def graded(self) -> int:
        """Items with a verdict: resolved or unresolved (errors and skips are masked)."""
        return self.outcomes["passed"] + self.outcomes["failed"]

    def error_text(self) -> str:
        count = self.outcomes["error"]
        if not count:
            return "0"
        return f"{count} (" + ", ".join(f"{k} {n}" for k, n in sorted(self.errors.items())) + ")"


class Progress:
    """The live line and the summary table, fed by the reports the terminal's process receives."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        mode = str(options.get(config, "--swe-progress") or "auto")
        if mode not in MODES:
            raise pytest.UsageError(
                f"--swe-progress (ini: swe_progress) {mode!r}: expected one of {', '.join(MODES)}"
            )
        every = int(options.get(config, "--swe-progress-every") or DEFAULT_EVERY)
        if every < 1:
            raise pytest.UsageError(
                f"--swe-progress-every (ini: swe_progress_every) {every}: expected N >= 1"
            )
        self.mode = mode
        self.every = every
        self.total: int | None = None
        self.workers = 1
        self._nodes: set[str] = set()
        self.run = Tally()
        self.groups: dict[tuple[str, str], Tally] = {}
        self._seconds: dict[str, float] = {}
        self._printed = -1
        self.started = time.monotonic()

    # -- what the run holds ----------------------------------------------------------------------

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        from pytest_swe.runner.collect import SweItem
        from pytest_swe.runner.collect import UnavailableItem

        items = [i for i in session.items if isinstance(i, (SweItem, UnavailableItem))]
        if items:
            self.total = len(items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """Under xdist the controller collects nothing: the total is the first worker's count of
        benchmark items, the parallelism the number of workers that collected."""
        from pytest_swe.runner.xdist import is_benchmark_nodeid

        self._nodes.add(str(getattr(getattr(node, "gateway", None), "id", node)))
        self.workers = max(1, len(self._nodes))
        if self.total is None:
            self.total = sum(map(is_benchmark_nodeid, ids))

    # -- as items finish -------------------------------------------------------------------------

    @pytest.hookimpl(trylast=True)  # after the terminal reporter wrote its letter
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "setup":
            self._seconds.pop(report.nodeid, None)
        self._seconds[report.nodeid] = self._seconds.get(report.nodeid, 0.0) + float(report.duration or 0.0)
        if report.when not in ("teardown", "???"):  # "???": xdist's report of a crashed worker's item
            return
        seconds = self._seconds.pop(report.nodeid, 0.0)
        props = dict(report.user_properties)
        if not is_item(props):
            return
        self.run.add(props, seconds)
        key = (str(props.get(BENCHMARK, "")), str(props.get("family", "")))
        self.groups.setdefault(key, Tally()).add(props, seconds)
        self._phase_durations(report, props)
        self._draw()

    def _phase_durations(self, report: pytest.TestReport, props: dict[str, Any]) -> None:
        """Each item's sandbox, agent and eval times as entries of pytest's ``--durations`` list
        (which lists every report with a duration in the terminal's stats): all three run inside the
        setup phase, whose duration alone would not say where the time went."""
        if self.config.option.durations is None:
            return
        tr = self._reporter()
        if tr is None:
            return
        for phase in PHASES:
            seconds = _number(props.get(f"time_{phase}"))
            if seconds is None:
                continue
            entry = pytest.TestReport(
                report.nodeid,
                report.location,
                {},
                "passed",
                None,
                phase,  # type: ignore[arg-type]  # a step inside setup, named as --durations prints it
                duration=seconds,
            )
            # "": the key of passed setup/teardown reports, which the summary line does not count.
            tr.stats.setdefault("", []).append(entry)

    # -- the line --------------------------------------------------------------------------------

    def line(self) -> str:
        """``[123/300] resolved 41 (33.3%) · unresolved 80 · errors 2 · $4.10 · ETA 12m``, or without a
        known total ``resolved 41/123 (33.3%) · ...`` (no ETA)."""
        tally, done = self.run, self.run.done
        rate = _percent(tally.resolved, done)
        if self.total is not None:
            parts = [f"[{done}/{self.total}] resolved {tally.resolved} ({rate})"]
        else:
            parts = [f"resolved {tally.resolved}/{done} ({rate})"]
        parts += [f"unresolved {tally.outcomes['failed']}", f"errors {tally.outcomes['error']}"]
        if tally.outcomes["skipped"]:
            parts.append(f"skipped {tally.outcomes['skipped']}")
        if tally.cost is not None:
            parts.append(f"${tally.cost:.2f}")
        if self.total is not None:
            remaining = max(0, self.total - done)
            mean = tally.seconds / done if done else 0.0
            parts.append(f"ETA {format_eta(mean * remaining / self.workers)}")
        return SEP.join(parts)

    def _reporter(self) -> Any:
        return self.config.pluginmanager.get_plugin("terminalreporter")

    def _redraws(self, tr: Any) -> bool:
        if self.mode == "live":
            return True
        return (
            self.mode == "auto"
            and bool(getattr(tr, "isatty", False))
            and (self.config.getoption("verbose") or 0) <= 0
        )

    def _draw(self) -> None:
        tr = self._reporter()
        if tr is None or self.mode == "none":
            return
        done = self.run.done
        if self._redraws(tr):
            if getattr(tr, "isatty", False):
                # Erase to the end of the line rather than pad it: pytest's next letters then follow the
                # line, and never reach the last column, where the terminal would wrap them onto a new row.
                # The last item's state ends its line: pytest's closing [100%] goes on the next one.
                tr.write("\r" + self.line() + "\x1b[K" + ("\n" if done == self.total else ""))
            else:
                tr.rewrite(self.line(), erase=True)
            self._printed = done
        elif done % self.every == 0 or done == self.total:
            self._own_line(tr)
            self._printed = done

    def _own_line(self, tr: Any) -> None:
        """The line on a line of its own: pytest's dots stay on theirs, and under xdist (which writes
        no file name that would tell pytest a line is open) they continue below it."""
        # pytest's private terminal writer knows whether the current line holds anything.
        if getattr(getattr(tr, "_tw", None), "width_of_current_line", 0):
            tr.write("\n")
        tr.write_line(self.line())

    # -- the end ---------------------------------------------------------------------------------

    def final_line(self, tr: Any) -> None:
        """The line's last state, unless it is on screen already (not every N-th count is printed)."""
        if self.mode != "none" and self.run.done and self._printed != self.run.done:
            self._own_line(tr)
            self._printed = self.run.done

    def table(self) -> list[str]:
        """One row per benchmark and family: resolved/graded, resolved/total, errors by kind, cost, time."""
        header = ("benchmark", "family", "resolved/graded", "resolved/total", "unresolved", "errors",
                  "skipped", "cost", "time")  # fmt: skip
        rows = [header]
        for (benchmark, family), t in sorted(self.groups.items()):
            rows.append(
                (
                    benchmark or "-",
                    family or "-",
                    f"{t.resolved}/{t.graded} ({_percent(t.resolved, t.graded)})",
                    f"{t.resolved}/{t.done} ({_percent(t.resolved, t.done)})",
                    str(t.outcomes["failed"]),
                    t.error_text(),
                    str(t.outcomes["skipped"]),
                    "-" if t.cost is None else f"${t.cost:.2f}",
                    f"{t.seconds:.1f}s",
                )
            )
        widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
        return [
            "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows
        ]

    def write_summary(self, tr: Any) -> None:
        if not self.groups:
            return
        self.final_line(tr)
        for line in self.table():
            tr.write_line(line)
