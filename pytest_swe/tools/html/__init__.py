"""The HTML report of one run or a comparison of several: ``pytest-swe html`` and ``--swe-html``.

One self-contained file (stylesheet, script, data and SVG plots inline; nothing fetched), built
from ledgers as :func:`pytest_swe.tools.report.read_ledger` reads them and the artifacts their
items recorded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pytest_swe.tools import report
from pytest_swe.tools.html.model import Run
from pytest_swe.tools.html.model import load_run
from pytest_swe.tools.html.render import render


@dataclass
class Written:
    """What :func:`write_report` wrote."""

    path: Path
    runs: int
    items: int
    bytes: int


def load_runs(ledgers: list[Path], labels: list[str] | None = None) -> list[Run]:
    """Each ledger as a run; a run is labelled by ``labels``, else its run id, else its path."""
    labels = labels or []
    runs = []
    for index, path in enumerate(ledgers):
        try:
            runs.append(load_run(index, Path(path), labels[index] if index < len(labels) else None))
        except report.LEDGER_ERRORS as exc:
            raise report.NotALedger(report.describe_error(path, exc)) from None
    seen: dict[str, int] = {}
    for run in runs:  # two runs of one id (a run and its regrade) still read apart
        count = seen[run.label] = seen.get(run.label, 0) + 1
        if count > 1:
            run.label = f"{run.label} ({run.source})"
    return runs


def write_report(
    ledgers: list[Path], output: Path, *, title: str | None = None, labels: list[str] | None = None
) -> Written:
    """Write the report of ``ledgers`` (several: compared, the first is the baseline) to ``output``."""
    runs = load_runs(ledgers, labels)
    if title is None:
        title = "pytest-swe report" if len(runs) == 1 else f"pytest-swe comparison of {len(runs)} runs"
    page = render(runs, title)
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.with_name(f".{output.name}.tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(output)
    return Written(output, len(runs), sum(len(r.items) for r in runs), output.stat().st_size)


__all__ = ["Written", "load_runs", "write_report"]
