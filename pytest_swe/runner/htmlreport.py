"""``--swe-html FILE``: the run's HTML report, written once by the controller when the session ends."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_swe.runner.ledger import Ledger


class HtmlReport:
    """Writes the report of the run directory's ledger at session end (workers never do)."""

    def __init__(self, ledger: Ledger, path: Path) -> None:
        self.ledger = ledger
        self.path = path
        self.lines: list[str] = []

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        from pytest_swe.tools import html
        from pytest_swe.tools import report

        if not self.ledger.counts:
            return
        try:
            written = html.write_report([self.ledger.run_dir], self.path)
        except report.LEDGER_ERRORS as exc:  # a report not written never fails the run
            self.lines.append(f"HTML report not written: {exc}")
            return
        self.lines.append(f"HTML report {written.path} ({written.items} items, {written.bytes} bytes)")
