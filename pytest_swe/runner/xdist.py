"""pytest-xdist wiring: the run's identity handed to workers, a crashed worker's item and
sandboxes, and Ctrl-C on the controller. Every xdist hook here is optional: without xdist the
controller is the pytest process itself."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from pytest_swe.runner import heap
from pytest_swe.runner import preflight
from pytest_swe.runner.cleanup import reap
from pytest_swe.runner.interrupt import note
from pytest_swe.runner.ledger import junit_writer
from pytest_swe.runner.properties import crash_properties
from pytest_swe.runner.session import get_session

CRASH_PHASE = "???"
"""The ``when`` of xdist's report for an item whose worker died."""
_CRASH_PROPERTIES = "swe_crash_properties"


def will_run(config: pytest.Config) -> bool:
    """Items will run (not ``--collect-only`` or ``--setup-plan``): the run-wide checks are due."""
    return not (config.getoption("collectonly", False) or config.getoption("setupplan", False))


def is_crash_report(report: pytest.TestReport) -> bool:
    """xdist's report of an item whose worker died running it (an infrastructure error)."""
    return (
        str(report.when) == CRASH_PHASE and report.failed and bool(getattr(report, _CRASH_PROPERTIES, None))
    )


def is_benchmark_nodeid(nodeid: str) -> bool:
    """Whether a collected node id (all a controller gets of a worker's items) is a benchmark item."""
    return ".yaml::" in nodeid or ".yml::" in nodeid


class XdistController:
    """Hands the run's identity to workers; reaps a crashed worker's sandboxes at once; on Ctrl-C
    stops the run at once. Registered in the ledger process with or without xdist."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.crashes: dict[str, int] = {}
        self.checked = False
        self.nodes: list[Any] = []
        self.open_items: set[str] = set()
        """Items with some reports but no teardown report yet."""

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodeready(self, node: Any) -> None:
        self.nodes.append(node)

    @pytest.hookimpl(tryfirst=True)
    def pytest_keyboard_interrupt(self, excinfo: Any) -> None:
        """Ctrl-C or SIGTERM reached the controller: stop the workers at once and remove the run's
        sandboxes, before anything else. The items in flight are unfinished (they run on resume);
        every finished item has been reported already. Waiting instead for each worker to notice,
        format its own interrupt and tear down costs seconds of CPU per worker, which a loaded
        machine turns into minutes."""
        killed = 0
        for node in self.nodes:
            # execnet's private popen of the worker: xdist has no API to kill a worker at once.
            popen = getattr(getattr(getattr(node, "gateway", None), "_io", None), "popen", None)
            if popen is not None and popen.poll() is None:
                with contextlib.suppress(OSError):
                    popen.kill()
                    killed += 1
        _drop_unfinished_testcases(self.config, self.open_items)
        removed = reap(self.config)
        stopped = f"{killed} worker(s) stopped, " if killed else ""
        note(f"pytest-swe: interrupted: {stopped}{len(removed)} sandbox(es) removed")

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        session = get_session(self.config)
        node.workerinput["swe_run_id"] = session.run.run_id
        node.workerinput["swe_owner_pid"] = session.run.owner_pid
        node.workerinput["swe_run_dir"] = str(session.run_dir)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if any(map(is_benchmark_nodeid, ids)):
            get_session(self.config).had_items = True
            heap.freeze(self.config)  # the controller collects no item itself (see runner.heap)
        if not self.checked:  # every worker collects the same items: check the first collection once
            self.checked = True
            if will_run(self.config):
                session = get_session(self.config)
                preflight.check(
                    self.config, session, preflight.targets_from_nodeids(session, self.config.rootpath, ids)
                )

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport, sched: Any) -> None:
        """A worker died running an item: an infrastructure error (retried when --swe-retries allows)."""
        session = get_session(self.config)
        attempts = self.crashes.get(crashitem, 0) + 1
        self.crashes[crashitem] = attempts
        if attempts <= session.retries and hasattr(sched, "mark_test_pending"):
            sched.mark_test_pending(crashitem)
            report.outcome = "retried"  # type: ignore[assignment]  # shown as R by pytest_report_teststatus
            return
        setattr(report, _CRASH_PROPERTIES, crash_properties(crashitem, session.run.run_id, attempts))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> Any:
        """After a crashed item's report, a teardown report carries its properties (JUnit reads them there)."""
        result = yield
        if report.when == "teardown":
            self.open_items.discard(report.nodeid)
        else:
            self.open_items.add(report.nodeid)
        props = getattr(report, _CRASH_PROPERTIES, None)
        if str(report.when) == CRASH_PHASE and props:
            teardown = pytest.TestReport(
                report.nodeid, report.location, {}, "passed", None, "teardown", user_properties=props
            )
            teardown.node = getattr(report, "node", None)  # type: ignore[attr-defined]  # xdist's worker, for the ledger
            self.config.hook.pytest_runtest_logreport(report=teardown)
        return result

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        if error:
            worker = getattr(getattr(node, "gateway", None), "id", None)
            if worker:
                reap(self.config, worker=worker)


def _drop_unfinished_testcases(config: pytest.Config, nodeids: set[str]) -> None:
    """Leave items the interrupt caught half-reported out of the JUnit file, as the ledger does.

    The JUnit writer opens a testcase at an item's first report and closes it at teardown; one
    still open was cut short (say after its call passed, in teardown) and would be written as
    a testcase without failure or properties: a pass nobody earned.
    """
    xml = junit_writer(config)
    # The writer's private list of open testcases: pytest has no API to withdraw one.
    ordered = getattr(xml, "node_reporters_ordered", None)
    if not nodeids or not isinstance(ordered, list):
        return
    ordered[:] = [reporter for reporter in ordered if str(getattr(reporter, "id", "")) not in nodeids]
