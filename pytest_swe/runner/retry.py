"""Running an item again: ``--swe-retries`` re-runs infrastructure errors within the run, and
pytest-rerunfailures' reruns are kept out of the results (only an item's last attempt counts)."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_swe.runner.properties import ItemRecord
from pytest_swe.runner.properties import attempt_properties
from pytest_swe.runner.properties import get_record
from pytest_swe.runner.properties import record_key
from pytest_swe.runner.properties import superseded

_attempt_key = pytest.StashKey[tuple[int, list[str]]]()


def run_with_retries(item: pytest.Item, nextitem: pytest.Item | None, retries: int) -> None:
    """Run the item up to ``retries`` more times while its setup raises a retryable InfraError;
    only the last attempt's reports are logged, with every earlier attempt's error kind."""
    # pytest's own run of one item, without logging: no public API runs an item and returns its reports.
    from _pytest.runner import runtestprotocol

    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    earlier: list[str] = []
    for attempt in range(1, retries + 2):
        item.stash[_attempt_key] = (attempt, list(earlier))
        item.stash[record_key] = ItemRecord()
        reports = runtestprotocol(item, nextitem=nextitem, log=False)
        record = get_record(item)
        if record.outcome == "error" and record.retryable and attempt <= retries:
            earlier.append(record.error_kind or "error")
            continue
        for report in reports:
            item.ihook.pytest_runtest_logreport(report=report)
        break
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)


def attempts_of(item: pytest.Item) -> dict[str, Any]:
    """The item's attempt count (ours or pytest-rerunfailures') and earlier errors, as properties."""
    attempt, earlier = item.stash.get(_attempt_key, (1, []))
    attempt = max(attempt, int(getattr(item, "execution_count", 1) or 1))  # set by pytest-rerunfailures
    return attempt_properties(attempt, earlier)


def no_rerun_of_clean_failure(item: pytest.Item) -> None:
    """An item that ran cleanly and was not resolved is a result: pytest-rerunfailures must not rerun it.

    Its ``flaky`` marker with a false condition says so (the reruns of infrastructure errors stay).
    """
    if item.config.pluginmanager.hasplugin("rerunfailures"):
        item.add_marker(pytest.mark.flaky(reruns=0, condition=False))


class Reruns:
    """Strips the properties from the teardown report of a pytest-rerunfailures attempt that is
    rerun, so the JUnit file and the ledger hold each instance once, with its last attempt."""

    def __init__(self) -> None:
        self.rerun: set[str] = set()

    def seen(self, report: pytest.TestReport) -> None:
        """Note a report; a rerun attempt's teardown report loses its properties."""
        if str(report.outcome) == "rerun":  # pytest-rerunfailures' own outcome
            self.rerun.add(report.nodeid)
        elif report.when == "setup":  # a new attempt (some versions log no teardown for a rerun attempt)
            self.rerun.discard(report.nodeid)
        elif report.when == "teardown" and report.nodeid in self.rerun:
            self.rerun.discard(report.nodeid)
            report.user_properties = superseded(int(getattr(report, "rerun", 0) or 0) + 1)
