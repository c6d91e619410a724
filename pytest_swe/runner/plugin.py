"""pytest hooks of pytest-swe: a thin layer over the modules that do the work."""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_swe.api import hookspecs
from pytest_swe.api.sandbox import this_run
from pytest_swe.runner import cleanup
from pytest_swe.runner import debugging
from pytest_swe.runner import gcpause
from pytest_swe.runner import heap
from pytest_swe.runner import interrupt
from pytest_swe.runner import options
from pytest_swe.runner import prestart
from pytest_swe.runner import progress
from pytest_swe.runner import retry
from pytest_swe.runner.collect import BenchmarkFile
from pytest_swe.runner.collect import SweItem
from pytest_swe.runner.collect import UnavailableItem
from pytest_swe.runner.collect import is_benchmark_file
from pytest_swe.runner.collect import register_benchmark_markers
from pytest_swe.runner.collect import split_shard
from pytest_swe.runner.header import header_lines
from pytest_swe.runner.ledger import Ledger
from pytest_swe.runner.outcome import item_properties
from pytest_swe.runner.outcome import note_setup_fault
from pytest_swe.runner.properties import BENCHMARK
from pytest_swe.runner.properties import get_record
from pytest_swe.runner.properties import instance_key
from pytest_swe.runner.resume import finished_entries
from pytest_swe.runner.resume import load_ledger
from pytest_swe.runner.resume import recorded_run_id
from pytest_swe.runner.resume import replay
from pytest_swe.runner.session import SweSession
from pytest_swe.runner.session import get_session
from pytest_swe.runner.session import new_run_id
from pytest_swe.runner.session import session_key
from pytest_swe.runner.xdist import XdistController
from pytest_swe.runner.xdist import is_crash_report
from pytest_swe.runner.xdist import will_run

if TYPE_CHECKING:
    from pytest_swe.api.sandbox import RunInfo
    from pytest_swe.api.task import Task
    from pytest_swe.api.verdict import Verdict

_reports_key = pytest.StashKey[dict[str, pytest.TestReport]]()
_ledger_key = pytest.StashKey[Ledger]()
_progress_key = pytest.StashKey[progress.Progress]()
_html_key = pytest.StashKey[Any]()
_reruns = retry.Reruns()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    options.add_options(parser)


def _register_fixtures(config: pytest.Config) -> None:
    """The item fixtures. The family, provider and agent plugins are registered when a session
    first needs them (:attr:`.session.SweSession.registry`): a run without benchmarks loads none."""
    from pytest_swe.runner import fixtures

    pm = config.pluginmanager
    if not pm.has_plugin(fixtures.__name__):
        pm.register(fixtures, fixtures.__name__)


def _run_identity(config: pytest.Config) -> tuple[RunInfo, Path]:
    """Who owns this run's sandboxes, and its run directory (the controller's, on a worker), which
    the run's identity carries too (providers coordinate the run's processes there)."""
    run, path = _owner_and_dir(config)
    return dataclasses.replace(run, run_dir=str(path)), path


def _owner_and_dir(config: pytest.Config) -> tuple[RunInfo, Path]:
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and "swe_run_id" in workerinput:
        run = this_run(
            worker=workerinput.get("workerid", "worker"),
            run_id=workerinput["swe_run_id"],
            owner_pid=int(workerinput["swe_owner_pid"]),
        )
        return run, Path(workerinput["swe_run_dir"])
    base = Path(config.invocation_params.dir)
    run_dir = options.get(config, "--swe-run-dir")
    resume = options.get(config, "--swe-resume")
    if resume:
        path = Path(base, resume).resolve()
        if run_dir and Path(base, run_dir).resolve() != path:
            raise pytest.UsageError(
                "--swe-resume DIR continues that run in DIR: do not give another --swe-run-dir"
            )
        run_id = recorded_run_id(load_ledger(path)) or new_run_id()
        return this_run(run_id=run_id), path
    run = this_run(run_id=new_run_id())
    path = Path(base, run_dir) if run_dir else base / "swe-runs" / run.run_id
    return run, path.resolve()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    # Registered before any other plugin's cleanup, so it runs last: pytest's own end-of-session
    # garbage collections still find the session's objects frozen (see runner.heap).
    config.add_cleanup(functools.partial(heap.thaw, config))
    _register_fixtures(config)
    config.addinivalue_line(
        "markers", "swe_task(benchmark_file, instance_id): give a test the pytest-swe fixtures of one task"
    )
    run, run_dir = _run_identity(config)
    session = SweSession(config, run, run_dir)
    config.stash[session_key] = session
    resume = options.get(config, "--swe-resume")
    if resume:
        session.resumed = finished_entries(run_dir)
    session.retries = max(0, int(options.get(config, "--swe-retries") or 0))
    if config.option.markers or _strict_markers(config):
        # `pytest --markers` lists the family and provider markers (registered with the plugins);
        # with strict markers, a test module may name them before any benchmark is collected.
        session.load_plugins()
    if config.option.markers:  # `pytest --markers` lists markers without collecting
        register_benchmark_markers(config)
    if not session.is_worker:
        ledger = Ledger(config, run.run_id, run_dir)
        config.stash[_ledger_key] = ledger
        config.pluginmanager.register(ledger, "swe-ledger")
        live = config.stash[_progress_key] = progress.Progress(config)
        config.pluginmanager.register(live, "swe-progress")
        # The controller's xdist hooks are optional: without xdist it is this process.
        config.pluginmanager.register(XdistController(config), "swe-xdist-controller")
        html = options.get(config, "--swe-html")
        if html:
            from pytest_swe.runner.htmlreport import HtmlReport

            writer = config.stash[_html_key] = HtmlReport(ledger, Path(config.invocation_params.dir, html))
            config.pluginmanager.register(writer, "swe-html")
    interrupt.install_signal_handlers(config)


def _strict_markers(config: pytest.Config) -> bool:
    """Whether unknown markers are errors: ``--strict-markers`` or ``--strict`` on the command line
    (pytest 8 reads only these), or the ``strict_markers`` or ``strict`` ini keys (pytest 9)."""
    if getattr(config.option, "strict_markers", False) or getattr(config.option, "strict", False):
        return True
    for name in ("strict_markers", "strict"):
        try:
            value = config.getini(name)
        except ValueError:  # an ini key this pytest does not have
            continue
        if value is not None:
            return bool(value)
    return False


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    interrupt.rearm(item.config)


def pytest_enter_pdb(config: pytest.Config, pdb: Any) -> None:
    interrupt.rearm(config)
    opened = config.stash.get(debugging.pdb_item_key, None)
    if opened is not None:  # the debugger opens on a pytest-swe item's failure: say what is left to see
        del config.stash[debugging.pdb_item_key]
        for line in debugging.help_lines(*opened):
            print(line)


@pytest.hookimpl(tryfirst=True)
def pytest_exception_interact(node: Any, call: pytest.CallInfo[Any], report: Any) -> None:
    """Before the debugger opens on an item (``--pdb``): remember which, for its help."""
    if isinstance(node, SweItem) and node.config.getoption("usepdb", False):
        node.config.stash[debugging.pdb_item_key] = (node, call.when)


def pytest_leave_pdb(config: pytest.Config, pdb: Any) -> None:
    interrupt.rearm(config)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if is_benchmark_file(file_path, parent.config):
        gcpause.pause(parent.config)  # until pytest_collection_finish
        return BenchmarkFile.from_parent(parent, path=file_path)
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    shard = options.parse_shard(options.get(config, "--swe-shard"))
    if shard is None:
        return
    keep, drop = split_shard(items, *shard)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_report_header(config: pytest.Config) -> list[str]:
    return header_lines(config)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    try:
        _check_before_items(session)
    finally:
        gcpause.resume(session.config)


def _check_before_items(session: pytest.Session) -> None:
    items = [item for item in session.items if isinstance(item, SweItem)]
    if not items:
        return
    swe = get_session(session.config)
    swe.had_items = True
    if not swe.is_worker and will_run(session.config):
        from pytest_swe.runner import preflight

        preflight.check(
            session.config,
            swe,
            [preflight.Target(item.settings, item.instance_id, item.nodeid) for item in items],
        )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """Replays items a resumed run already finished; retries infrastructure errors."""
    if not isinstance(item, SweItem):
        return None
    item.stash[prestart.next_item_key] = nextitem
    session = get_session(item.config)
    entry = session.resumed.get(instance_key(item.benchmark, item.instance_id, item.nodeid))
    if entry is not None:
        replay(item, entry)
        return True
    if session.retries <= 0:
        return None
    retry.run_with_retries(item, nextitem, session.retries)
    return True


def pytest_report_teststatus(report: pytest.TestReport) -> tuple[str, str, str] | None:
    if str(report.outcome) == "retried":  # set by XdistController.pytest_handlecrashitem
        return "retried", "R", "RETRIED"
    if is_crash_report(report):
        return "error", "E", "ERROR worker_crashed"  # an infrastructure error, as in the JUnit file
    return progress.teststatus(report)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    if not isinstance(item, (SweItem, UnavailableItem)):
        return (yield)
    record = get_record(item)
    note_setup_fault(record, call)
    if call.when == "teardown":
        if isinstance(item, UnavailableItem):
            record.default(BENCHMARK, item.parent.name if item.parent else "")
        reports: dict[str, pytest.TestReport] = item.stash.get(_reports_key, {})
        item_properties(item, reports, retry.attempts_of(item))
    report = yield
    item.stash.setdefault(_reports_key, {})[call.when] = report
    word = progress.status_word(call.when, report, record)
    if word:
        report.swe_status = word  # read by pytest_report_teststatus (and kept by xdist)
    if call.when == "call" and report.failed and record.verdict is not None and not record.verdict.resolved:
        retry.no_rerun_of_clean_failure(item)
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _reruns.seen(report)


@pytest.hookimpl(trylast=True)
def pytest_swe_reward(item: pytest.Item, task: Task, verdict: Verdict) -> float:
    """The default reward, 1.0 iff resolved; last, so any other plugin's reward comes first."""
    return 1.0 if verdict.resolved else 0.0


def pytest_unconfigure(config: pytest.Config) -> None:
    gcpause.resume(config)  # a collection that never finished (interrupted, or an error)
    session = config.stash.get(session_key, None)
    if session is None:
        return
    ledger = config.stash.get(_ledger_key, None)
    cleanup.end_of_run(
        config,
        # --collect-only starts no sandbox: nothing to reap (building providers to ask would cost
        # more than the collection of a large benchmark).
        ran=bool(session.providers())
        or (will_run(config) and (session.had_items or (ledger is not None and bool(ledger.counts)))),
    )
    if ledger is not None:
        ledger.close()


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The pytest-swe section: the live line's last state, the table per benchmark, the ledger."""
    ledger = config.stash.get(_ledger_key, None)
    if ledger is None or not ledger.counts:
        return
    terminalreporter.section("pytest-swe")
    config.stash[_progress_key].write_summary(terminalreporter)
    for line in ledger.summary_lines():
        terminalreporter.write_line(line)
    html = config.stash.get(_html_key, None)
    for line in html.lines if html is not None else []:
        terminalreporter.write_line(line)
    if ledger.kept:
        terminalreporter.write_line(
            f"remove the kept sandboxes with: pytest-swe reap --kept --run {ledger.run_id}"
        )
