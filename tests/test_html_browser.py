"""The HTML report in a real browser (headless Chromium): filters, sorting, the item view, the
comparison, a hostile eval log, and the report of a real demo run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.tools.html import write_report

from conftest import DEMO_DIR
from conftest import REPO
from conftest import SweProject
from conftest import load_module
from conftest import screenshot_colours

bench = load_module(REPO / "scripts" / "bench_html.py")

HOSTILE = (
    "PASSED tests/test_0.py::test_keep_0\n"
    "</script><script>window.__pwned = 1</script>\n"
    '<img src=x onerror="window.__pwned = 2"><b id="injected">bold</b>\n'
)


def open_report(browser: Any, path: Path) -> Any:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(path.resolve().as_uri())
    page.wait_for_selector("body[data-ready]")
    page.errors = errors
    return page


def rows(page: Any) -> list[str]:
    return page.locator("#table tbody tr td.id").all_inner_texts()


def assert_not_blank(browser: Any, page: Any) -> None:
    assert not page.errors, page.errors
    colours = screenshot_colours(browser, page.screenshot(full_page=True))
    assert colours > 20, f"the screenshot has {colours} colour(s): blank"


def test_filters_sorting_and_item_view(chromium: Any, tmp_path: Path) -> None:
    resolved = {"astropy__astropy-1000", "flask__flask-1002", "xarray__xarray-1004"}
    run = bench.synthetic_run(tmp_path / "run", 12, resolved=resolved, eval_log=None)
    page = open_report(chromium, write_report([run], tmp_path / "r.html").path)
    assert len(rows(page)) == 12
    page.click('#status-filter button[data-status="resolved"]')
    assert sorted(rows(page)) == sorted(resolved)
    assert page.inner_text("#shown") == "3 of 12 shown"
    page.click('#status-filter button[data-status="all"]')
    page.fill("#search", "django")
    assert rows(page) == ["django__django-1001", "django__django-1007"]
    page.fill("#search", "")
    page.click('#table th[data-key="id"]')
    page.click('#table th[data-key="id"]')  # twice: descending
    assert rows(page) == sorted(rows(page), reverse=True)
    page.click("#table tbody tr >> nth=0")
    detail = page.locator("#detail")
    assert detail.is_visible()
    assert page.inner_text("#detail h2") == rows(page)[0]
    assert page.locator("#detail .evallog .graded").count() == 11  # 3 F2P and 8 P2P lines
    assert page.locator("#detail .evallog .line:visible").count() == 12
    page.check("#detail input.only-graded")
    assert page.locator("#detail .evallog .line:visible").count() == 11
    assert page.locator("#detail table.tests tr.bad").count() == (0 if rows(page)[0] in resolved else 1)
    assert page.locator("#detail .diff .add").count() == 1
    assert page.locator("#detail details.step").count() >= 3
    assert "$ " in page.locator("#detail pre.command").first.inner_text()
    assert_not_blank(chromium, page)


def test_a_hostile_eval_log_is_shown_as_text(chromium: Any, tmp_path: Path) -> None:
    """An eval log is written by the code under test: its markup must stay text in the page."""
    run = bench.synthetic_run(tmp_path / "run", 1, eval_log=HOSTILE)
    page = open_report(chromium, write_report([run], tmp_path / "r.html").path)
    page.click("#table tbody tr >> nth=0")
    log = page.inner_text("#detail .evallog")
    assert "</script><script>window.__pwned = 1</script>" in log and "<img src=x onerror=" in log
    assert page.evaluate("() => window.__pwned") is None
    assert page.locator("img").count() == 0 and page.locator("#injected").count() == 0
    assert page.evaluate("() => document.querySelectorAll('script:not([type])').length") == 1


def test_comparison_view(chromium: Any, tmp_path: Path) -> None:
    a = bench.synthetic_run(tmp_path / "a", 6, run_id="before", resolved={"astropy__astropy-1000"})
    b = bench.synthetic_run(tmp_path / "b", 6, run_id="after", resolved={"django__django-1001"})
    page = open_report(chromium, write_report([a, b], tmp_path / "r.html").path)
    assert page.locator("#matrix tbody tr").count() == 6
    page.check("#changed-only")
    changed = page.locator("#matrix tbody tr td:first-child").all_inner_texts()
    assert sorted(changed) == ["astropy__astropy-1000", "django__django-1001"]
    assert page.inner_text(".flips.fixed h4") == "fixed: 1"
    assert page.inner_text(".flips.broken h4") == "broken: 1"
    page.click("#matrix tbody tr >> nth=0 >> td.cell >> nth=1")  # astropy in the second run
    assert page.inner_text("#detail .runlabel") == "after"
    assert page.inner_text("#detail .badge") == "unresolved"
    page.select_option("#run-filter", "0")
    assert len(rows(page)) == 6
    assert_not_blank(chromium, page)


@pytest.mark.docker
def test_report_of_a_demo_run_with_wrong_predictions(
    chromium: Any, swe_project: SweProject, demo_images: list[str]
) -> None:
    """``--swe-html`` under xdist: the controller writes the report; its counts are the JUnit file's."""
    swe_project.demo()
    report = swe_project.path / "report.html"
    run = swe_project.run(
        "benchmarks/",
        "-n",
        "2",
        "--swe-predictions",
        str(DEMO_DIR / "predictions-wrong.jsonl"),
        f"--swe-html={report}",
    )
    assert run.cases and report.is_file(), run.result.stdout.str()[-3000:]
    assert run.result.stdout.str().count(f"HTML report {report}") == 1  # the controller's, once
    page = open_report(chromium, report)
    failed = sorted(c.instance_id for c in run.cases if c.outcome == "failed")
    assert failed, run.outcomes()
    page.click('#status-filter button[data-status="unresolved"]')
    assert sorted(rows(page)) == failed
    assert page.inner_text('#status-filter button[data-status="unresolved"]') == f"unresolved {len(failed)}"
    page.click('#table tbody tr:has(td.id:text-is("demo__routes-1"))')  # graded, two P2P tests failing
    assert page.inner_text("#detail h2") == "demo__routes-1"
    case = run.by_id["demo__routes-1"]
    f2p_failing = int(case.properties["f2p_total"]) - int(case.properties["f2p_passed"])
    p2p_failing = int(case.properties["p2p_total"]) - int(case.properties["p2p_passed"])
    assert page.locator("#detail table.tests tr.bad").count() == f2p_failing + p2p_failing > 0
    assert page.locator("#detail .evallog .graded.bad").count() >= 1
    assert page.inner_text("#detail .patch pre").startswith("diff --git")
    assert "no trajectory" in page.inner_text("#detail .trajectory")
    assert_not_blank(chromium, page)

    # the same report from the JUnit file afterwards: every item with its outcome and its artifacts
    again = swe_project.path / "again.html"
    done = subprocess.run(
        [sys.executable, "-m", "pytest_swe.tools.cli", "html", str(run.junit), "-o", str(again)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    page = open_report(chromium, again)
    statuses = {"passed": "resolved", "failed": "unresolved"}
    for case in run.cases:
        row = page.locator(f'#table tbody tr:has(td.id:text-is("{case.instance_id}"))')
        assert row.locator("td.status").inner_text() == statuses.get(case.outcome, case.outcome)
    page.click('#table tbody tr:has(td.id:text-is("demo__routes-1"))')
    assert page.locator("#detail .evallog .graded.bad").count() >= 1
