"""pytest hooks of pytest-swe: a thin layer over the modules that do the work."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import signal
import threading
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.api import hookspecs
from pytest_swe.api.errors import InfraError
from pytest_swe.runner import options
from pytest_swe.runner.collect import BenchmarkFile
from pytest_swe.runner.collect import SweItem
from pytest_swe.runner.collect import UnavailableItem
from pytest_swe.runner.collect import is_benchmark_file
from pytest_swe.runner.ledger import Ledger
from pytest_swe.runner.outcome import ItemRecord
from pytest_swe.runner.outcome import as_user_properties
from pytest_swe.runner.outcome import error_kind
from pytest_swe.runner.outcome import final_properties
from pytest_swe.runner.outcome import get_record
from pytest_swe.runner.outcome import record_key
from pytest_swe.runner.resume import finished_entries
from pytest_swe.runner.resume import item_key
from pytest_swe.runner.resume import load_ledger
from pytest_swe.runner.resume import recorded_run_id
from pytest_swe.runner.resume import replay
from pytest_swe.runner.session import SweSession
from pytest_swe.runner.session import get_session
from pytest_swe.runner.session import new_run_id
from pytest_swe.runner.session import session_key

# Built-in families, providers and agents are plugins found in these packages: every public
# module (or package) in them is registered, so adding one needs no list to edit.
BUILTIN_PACKAGES = ("pytest_swe.families", "pytest_swe.providers", "pytest_swe.agents")
NOT_PLUGINS = {"pytest_swe.families.logparsers"}
ENTRY_POINT_GROUP = "pytest_swe"
_reports_key = pytest.StashKey[dict[str, pytest.TestReport]]()
_attempt_key = pytest.StashKey[tuple[int, list[str]]]()
_ledger_key = pytest.StashKey[Ledger]()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    options.add_options(parser)


def builtin_plugin_modules() -> list[str]:
    """Names of the built-in family, provider and agent modules."""
    import importlib
    import pkgutil

    names = []
    for package_name in BUILTIN_PACKAGES:
        package = importlib.import_module(package_name)
        for info in pkgutil.iter_modules(package.__path__):
            name = f"{package_name}.{info.name}"
            if not info.name.startswith("_") and name not in NOT_PLUGINS:
                names.append(name)
    return sorted(names)


def _register_builtins(config: pytest.Config) -> None:
    import importlib

    pm = config.pluginmanager
    for name in ("pytest_swe.runner.fixtures", *builtin_plugin_modules()):
        if not pm.has_plugin(name):
            pm.register(importlib.import_module(name), name)
    pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)


def _run_identity(config: pytest.Config) -> tuple[Any, Path]:
    from pytest_swe.api.sandbox import this_run

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
    _register_builtins(config)
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
    for family in session.registry.families.entries.values():
        _register_marker(config, family.name, "family")
    for provider in session.registry.providers.entries:
        _register_marker(config, provider, "provider")
    if not session.is_worker:
        ledger = Ledger(config, run.run_id, run_dir)
        config.stash[_ledger_key] = ledger
        config.pluginmanager.register(ledger, "swe-ledger")
        config.pluginmanager.register(XdistController(config), "swe-xdist-controller")  # its xdist hooks are optional
    _install_signal_handlers(config)


def _register_marker(config: pytest.Config, name: str, kind: str) -> None:
    from pytest_swe.api.family import marker_name
    from pytest_swe.runner.collect import register_marker

    register_marker(config, marker_name(name), f"pytest-swe {kind} {name}")


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
            popen = getattr(getattr(getattr(node, "gateway", None), "_io", None), "popen", None)
            if popen is not None and popen.poll() is None:
                with contextlib.suppress(OSError):
                    popen.kill()
                    killed += 1
        _drop_unfinished_testcases(self.config, self.open_items)
        removed = _reap(self.config)
        stopped = f"{killed} worker(s) stopped, " if killed else ""
        _note(f"pytest-swe: interrupted: {stopped}{len(removed)} sandbox(es) removed")

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        session = get_session(self.config)
        node.workerinput["swe_run_id"] = session.run.run_id
        node.workerinput["swe_owner_pid"] = session.run.owner_pid
        node.workerinput["swe_run_dir"] = str(session.run_dir)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if any(".yaml::" in nodeid or ".yml::" in nodeid for nodeid in ids):
            get_session(self.config).had_items = True
        if not self.checked:  # every worker collects the same items: check the first collection once
            self.checked = True
            if _will_run(self.config):
                from pytest_swe.runner import preflight

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
            report.outcome = "retried"  # type: ignore[assignment]
            return
        parts = crashitem.split("::")
        props = {
            "reward": 0.0,
            "resolved": False,
            "masked": True,
            "error_kind": "worker_crashed",
            "outcome": "error",
            "benchmark": parts[-2] if len(parts) >= 3 else "",
            "instance_id": parts[-1],
            "run_id": session.run.run_id,
            "attempts": attempts,
        }
        report.swe_crash_properties = as_user_properties(props)  # type: ignore[attr-defined]

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> Any:
        """After a crashed item's report, a teardown report carries its properties (JUnit reads them there)."""
        result = yield
        if report.when == "teardown":
            self.open_items.discard(report.nodeid)
        else:
            self.open_items.add(report.nodeid)
        props = getattr(report, "swe_crash_properties", None)
        if report.when == "???" and props:
            teardown = pytest.TestReport(
                report.nodeid, report.location, {}, "passed", None, "teardown", user_properties=props
            )
            teardown.node = getattr(report, "node", None)  # type: ignore[attr-defined]
            self.config.hook.pytest_runtest_logreport(report=teardown)
        return result

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        if error:
            worker = getattr(getattr(node, "gateway", None), "id", None)
            if worker:
                _reap(self.config, worker=worker)


def _drop_unfinished_testcases(config: pytest.Config, nodeids: set[str]) -> None:
    """Leave items the interrupt caught half-reported out of the JUnit file, as the ledger does.

    The JUnit writer opens a testcase at an item's first report and closes it at teardown; one
    still open was cut short (say after its call passed, in teardown) and would be written as
    a testcase without failure or properties: a pass nobody earned.
    """
    from pytest_swe.runner.ledger import _junit_writer

    xml = _junit_writer(config)
    ordered = getattr(xml, "node_reporters_ordered", None)
    if not nodeids or not isinstance(ordered, list):
        return
    ordered[:] = [reporter for reporter in ordered if str(getattr(reporter, "id", "")) not in nodeids]


def _reap(config: pytest.Config, *, worker: str | None = None) -> list[str]:
    """Remove this run's sandboxes (all, or one worker's), except kept ones; never raises."""
    session = get_session(config)
    removed: list[str] = []
    providers = session.providers() or _reapers(session)
    for provider in providers:
        try:
            removed += provider.reap(run_id=session.run.run_id, worker=worker)
        except Exception:
            continue
    return removed


def _reapers(session: SweSession) -> list[Any]:
    """Providers built only to reap (the controller under xdist creates no sandboxes itself)."""
    out = []
    for name, factory in session.registry.providers.entries.items():
        try:
            out.append(factory({"name": name}, session.run))
        except Exception:
            continue
    return out


class Interrupt:
    """The run's response to Ctrl-C and SIGTERM.

    In the process that writes the ledger and the JUnit file (the xdist controller, or pytest
    without xdist) the first signal stops the run (a KeyboardInterrupt, so fixtures tear down
    and the finished items are reported); later ones only say that it is stopping, so they can
    no longer cut the writing of the JUnit file or the removal of sandboxes. An xdist worker
    ignores SIGINT while its controller lives: a terminal sends Ctrl-C to the whole process
    group, and the controller stops the workers itself (see
    :meth:`XdistController.pytest_keyboard_interrupt`); a worker whose controller is gone
    (execnet then interrupts it) tears down as usual.
    """

    def __init__(self, controller_pid: int | None = None) -> None:
        self.controller_pid = controller_pid
        self.signalled: int | None = None
        self.repeats = 0

    def rearm(self) -> None:
        """The run goes on after all (pdb took the KeyboardInterrupt, say): a signal stops it again."""
        self.signalled = None
        self.repeats = 0

    def worker_sigint(self, signum: int, frame: Any) -> None:
        if self.controller_pid is not None and os.getppid() == self.controller_pid:
            return
        raise KeyboardInterrupt

    def handle(self, signum: int, frame: Any) -> None:
        if self.signalled is not None:
            self.repeats += 1
            if self.repeats == 1:
                _note(
                    "pytest-swe: already stopping (writing the results of finished items, removing sandboxes); "
                    f"kill -9 {os.getpid()} stops at once"
                )
            return
        self.signalled = signum
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise KeyboardInterrupt(f"signal {signum}")


_interrupt_key = pytest.StashKey[Interrupt]()


def _note(text: str) -> None:
    """A line on stderr, written without Python's buffered streams (safe inside a signal handler)."""
    with contextlib.suppress(OSError):
        os.write(2, ("\n" + text + "\n").encode())


def _rearm(config: pytest.Config) -> None:
    interrupt = config.stash.get(_interrupt_key, None)
    if interrupt is not None:
        interrupt.rearm()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _rearm(item.config)


def pytest_enter_pdb(config: pytest.Config, pdb: Any) -> None:
    _rearm(config)


def pytest_leave_pdb(config: pytest.Config, pdb: Any) -> None:
    _rearm(config)


def _install_signal_handlers(config: pytest.Config) -> None:
    """SIGTERM behaves like Ctrl-C, so fixtures tear down and sandboxes are removed; a repeated
    signal never interrupts that cleanup (see :class:`Interrupt`)."""
    if threading.current_thread() is not threading.main_thread():
        return
    workerinput = getattr(config, "workerinput", None)
    controller = int(workerinput["swe_owner_pid"]) if workerinput and "swe_owner_pid" in workerinput else None
    interrupt = config.stash[_interrupt_key] = Interrupt(controller)
    handlers = {
        signal.SIGTERM: interrupt.handle,
        signal.SIGINT: interrupt.worker_sigint if workerinput is not None else interrupt.handle,
    }
    for signum, handler in handlers.items():
        try:
            previous = signal.signal(signum, handler)
        except (ValueError, OSError):
            continue
        config.add_cleanup(functools.partial(signal.signal, signum, previous))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if is_benchmark_file(file_path, parent.config):
        return BenchmarkFile.from_parent(parent, path=file_path)
    return None


def shard_of(item: pytest.Item, total: int) -> int:
    """1-based shard of an item, stable across machines (by benchmark and instance id)."""
    key = f"{item.benchmark}::{item.instance_id}" if isinstance(item, SweItem) else item.nodeid
    return int(hashlib.sha256(key.encode()).hexdigest(), 16) % total + 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    shard = options.parse_shard(options.get(config, "--swe-shard"))
    if shard is None:
        return
    index, total = shard
    keep, drop = [], []
    for item in items:
        if isinstance(item, (SweItem, UnavailableItem)) and shard_of(item, total) != index:
            drop.append(item)
        else:
            keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


MAX_HEADER_BENCHMARKS = 8


def pytest_report_header(config: pytest.Config) -> list[str]:
    """The effective run: run id and directory, and each benchmark's family, agent and provider."""
    from pytest_swe.api.errors import ConfigError
    from pytest_swe.runner.collect import _benchmark_files

    session = get_session(config)
    lines = [f"pytest-swe: run {session.run.run_id}, run dir {session.run_dir}"]
    agent = options.get(config, "--swe-agent") or "(per benchmark)"
    provider = options.get(config, "--swe-provider") or "(per benchmark)"
    lines.append(f"pytest-swe: agent {agent}, provider {provider}")
    files = sorted(set(_benchmark_files(config)))
    for path in files[:MAX_HEADER_BENCHMARKS]:
        try:
            s = session.settings_for(path)
        except ConfigError:
            continue  # reported with its full message at collection
        lines.append(
            f"pytest-swe: benchmark {s.name}: family {s.family}, agent {s.agent.name}, provider {s.provider.name}, "
            f"dataset {s.dataset.source} [{s.dataset.split}], timeouts agent {s.timeouts.agent:g}s eval {s.timeouts.eval:g}s"
        )
    if len(files) > MAX_HEADER_BENCHMARKS:
        lines.append(f"pytest-swe: ... and {len(files) - MAX_HEADER_BENCHMARKS} more benchmark files")
    extras = []
    if session.overrides:
        extras.append(f"--swe-set {session.overrides}")
    if session.extra_config:
        extras.append(f"--swe-config {session.extra_config}")
    shard = options.get(config, "--swe-shard")
    if shard:
        extras.append(f"shard {shard}")
    if session.keep:
        extras.append("keep sandboxes")
    if session.retries:
        extras.append(f"retries {session.retries}")
    if session.resumed:
        extras.append(f"resuming: {len(session.resumed)} finished items re-emitted")
    if extras:
        lines.append("pytest-swe: " + ", ".join(extras))
    return lines


def _will_run(config: pytest.Config) -> bool:
    return not (config.getoption("collectonly", False) or config.getoption("setupplan", False))


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    items = [item for item in session.items if isinstance(item, SweItem)]
    if not items:
        return
    swe = get_session(session.config)
    swe.had_items = True
    if not swe.is_worker and _will_run(session.config):
        from pytest_swe.runner import preflight

        preflight.check(
            session.config, swe, [preflight.Target(item.settings, item.instance_id) for item in items]
        )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """Replays items a resumed run already finished; retries infrastructure errors."""
    if not isinstance(item, SweItem):
        return None
    session = get_session(item.config)
    entry = session.resumed.get(
        item_key(item.nodeid, {"benchmark": item.benchmark, "instance_id": item.instance_id})
    )
    if entry is not None:
        replay(item, entry)
        return True
    if session.retries <= 0:
        return None
    from _pytest.runner import runtestprotocol

    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    earlier: list[str] = []
    for attempt in range(1, session.retries + 2):
        item.stash[_attempt_key] = (attempt, list(earlier))
        item.stash[record_key] = ItemRecord()
        reports = runtestprotocol(item, nextitem=nextitem, log=False)
        record = get_record(item)
        if record.outcome == "error" and record.retryable and attempt <= session.retries:
            earlier.append(record.error_kind or "error")
            continue
        for report in reports:
            item.ihook.pytest_runtest_logreport(report=report)
        break
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True


def pytest_report_teststatus(report: pytest.TestReport) -> tuple[str, str, str] | None:
    if report.outcome == "retried":
        return "retried", "R", "RETRIED"
    if report.when == "???" and report.failed and getattr(report, "swe_crash_properties", None):
        return "error", "E", "ERROR"  # a crashed worker's item: an infrastructure error, as in the JUnit file
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    if not isinstance(item, (SweItem, UnavailableItem)):
        return (yield)
    record = get_record(item)
    if (
        call.when == "setup"
        and call.excinfo is not None
        and not call.excinfo.errisinstance(pytest.skip.Exception)
    ):
        record.error_kind = error_kind(call.excinfo.value)
        record.retryable = call.excinfo.errisinstance(InfraError) and getattr(
            call.excinfo.value, "retryable", True
        )  # an InfraError may say a retry in this run cannot help (e.g. the run's budget is spent)
    if call.when == "teardown":
        reports = item.stash.get(_reports_key, {})
        verdict = record.verdict
        reward = None
        if verdict is not None and isinstance(item, SweItem):
            reward = item.config.hook.pytest_swe_reward(item=item, task=record.task, verdict=verdict)
        props = final_properties(item, reports, reward)
        attempt, earlier = item.stash.get(_attempt_key, (1, []))
        attempt = max(attempt, int(getattr(item, "execution_count", 1) or 1))  # pytest-rerunfailures' count
        if attempt > 1:
            props["attempts"] = attempt
            if earlier:
                props["retried_errors"] = "; ".join(earlier)
        if isinstance(item, UnavailableItem):
            props.setdefault("benchmark", item.parent.name if item.parent else "")
        item.config.hook.pytest_swe_item_properties(item=item, properties=props)
        item.user_properties[:] = [p for p in item.user_properties if p[0] not in props]
        item.user_properties.extend(as_user_properties(props))
    report = yield
    item.stash.setdefault(_reports_key, {})[call.when] = report
    if call.when == "call" and report.failed and record.verdict is not None and not record.verdict.resolved:
        _no_rerun_of_clean_failure(item)
    return report


def _no_rerun_of_clean_failure(item: pytest.Item) -> None:
    """An item that ran cleanly and was not resolved is a result: pytest-rerunfailures must not rerun it.

    Its ``flaky`` marker with a false condition says so (the reruns of infrastructure errors stay).
    """
    if item.config.pluginmanager.hasplugin("rerunfailures"):
        item.add_marker(pytest.mark.flaky(reruns=0, condition=False))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """A pytest-rerunfailures attempt that is rerun is not a result: its teardown report (which
    carries the item's properties) is stripped of them, so the JUnit file and the ledger hold
    each instance once, with its last attempt."""
    if report.outcome == "rerun":  # type: ignore[comparison-overlap]
        _rerun_attempts.add(report.nodeid)
    elif report.when == "setup":  # a new attempt (some versions log no teardown for a rerun attempt)
        _rerun_attempts.discard(report.nodeid)
    elif report.when == "teardown" and report.nodeid in _rerun_attempts:
        _rerun_attempts.discard(report.nodeid)
        attempt = int(getattr(report, "rerun", 0) or 0) + 1
        report.user_properties = [("superseded_attempt", str(attempt))]


_rerun_attempts: set[str] = set()


@pytest.hookimpl
def pytest_swe_reward(item: pytest.Item, task: Any, verdict: Any) -> float:
    return 1.0 if verdict.resolved else 0.0


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(session_key, None)
    if session is None:
        return
    ledger = config.stash.get(_ledger_key, None)
    if getattr(session, "had_items", False) or session.providers() or (ledger is not None and ledger.counts):
        # A second Ctrl-C must not stop the final cleanup: ignore SIGINT while reaping.
        try:
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        except (ValueError, OSError):
            previous = None
        try:
            if not session.keep:
                _reap(config, worker=session.run.worker if session.is_worker else None)
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
    session.close()
    if ledger is not None:
        ledger.close()


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    ledger = config.stash.get(_ledger_key, None)
    if ledger is not None and ledger.kept:
        terminalreporter.write_line(f"remove the kept sandboxes with: pytest-swe reap --kept --run {ledger.run_id}")
