"""An item's record of sandbox removals still under way when the item finishes, and its phase times."""

from __future__ import annotations

from concurrent.futures import Future

from pytest_swe.api.sandbox import CleanupResult
from pytest_swe.runner.properties import PENDING_CLEANUP
from pytest_swe.runner.properties import ItemRecord


def test_a_removal_in_by_the_report_is_its_confirmed_result() -> None:
    record = ItemRecord()
    removal: Future[CleanupResult] = Future()
    record.sandbox_closing("eval", removal)
    assert record.properties["cleanup_eval"] == PENDING_CLEANUP
    removal.set_result(CleanupResult(True))
    assert record.properties["cleanup_eval"] == "ok"


def test_a_failed_removal_says_so() -> None:
    record = ItemRecord()
    failed: Future[CleanupResult] = Future()
    raised: Future[CleanupResult] = Future()
    record.sandbox_closing("eval", failed)
    record.sandbox_closing("agent", raised)
    failed.set_result(CleanupResult(False, 4, "removal already in progress"))
    raised.set_exception(OSError("engine gone"))
    assert record.properties["cleanup_eval"] == "failed after 4 attempts: removal already in progress"
    assert record.properties["cleanup_agent"] == "failed after 1 attempts: engine gone"


def test_phase_times_add_up() -> None:
    record = ItemRecord()
    record.add_timings({"apply": 0.25, "script": 1.5})
    record.add_timings({"apply": 0.5})
    assert record.timings == {"apply": 0.75, "script": 1.5}
