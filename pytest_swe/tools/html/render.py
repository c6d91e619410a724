"""The report page: one HTML file with its stylesheet, script, data and plots inline.

Everything read from a ledger or a log goes into the page either escaped as HTML text (the
summary and the plots) or as JSON inside ``<script type="application/json">`` with every ``<``,
``>`` and ``&`` written as a ``\\u`` escape, which the page's script puts on screen only as
text (``textContent``, never ``innerHTML``): a log holding ``</script>`` or markup stays text.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from collections import Counter
from collections import defaultdict
from html import escape
from importlib import resources
from typing import Any

import pytest_swe
from pytest_swe.tools import ledger_tools
from pytest_swe.tools import report
from pytest_swe.tools.html import svg
from pytest_swe.tools.html.model import PHASES
from pytest_swe.tools.html.model import Item
from pytest_swe.tools.html.model import Run

#: The line xdist puts before a worker's report ("[gw1] linux -- Python 3.11.7 /path/python").
_XDIST_HEADER = re.compile(r"\A\[gw\d+\] [^\n]*\n")
#: Most groups one plot shows (the largest first); the rest are summed into one bar.
MAX_GROUPS = 25


def script_json(data: Any) -> str:
    """JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` left to end it or open markup."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _asset(name: str) -> str:
    return resources.files("pytest_swe.tools.html").joinpath(name).read_text(encoding="utf-8")


def _pct(num: int, den: int) -> str:
    return f"{100 * num / den:.1f}%" if den else "n/a"


def _money(value: float) -> str:
    return f"${value:.2f}" if value >= 1 else f"${value:.4f}"


def _seconds(value: float) -> str:
    if value >= 3600:
        return f"{value / 3600:.1f} h"
    if value >= 60:
        return f"{value / 60:.1f} min"
    return f"{value:.1f} s"


# --- the item rows and details ----------------------------------------------------------------


def item_row(number: int, item: Item) -> dict[str, Any]:
    """What the table shows of an item (small: every item's row is parsed when the page opens)."""
    props = item.props
    times = {phase: item.number(f"time_{phase}") for phase in PHASES}
    return {
        "n": number,
        "run": item.run,
        "id": item.case.instance_id,
        "benchmark": props.get("benchmark", ""),
        "repo": props.get("repo", ""),
        "agent": props.get("agent", ""),
        "status": item.status(),
        "kind": props.get("error_kind", ""),
        "f2p": [props.get("f2p_passed", ""), props.get("f2p_total", "")],
        "p2p": [props.get("p2p_passed", ""), props.get("p2p_total", "")],
        "cost": item.number("agent_cost"),
        "time": round(sum(t for t in times.values() if t is not None), 3),
        "steps": props.get("agent_steps", ""),
        "exit": props.get("agent_exit_status", ""),
    }


def item_detail(item: Item) -> dict[str, Any]:
    """What an item's view shows: verdict, artifacts, graded tests, trajectory (read when opened)."""
    props = item.props
    verdict = item.verdict or {}
    results = verdict.get("test_results") or {}
    tests = []
    for group, entry in (verdict.get("tests_status") or {}).items():
        if not isinstance(entry, dict):
            continue
        for passed, key in ((True, "success"), (False, "failure")):
            for name in entry.get(key) or []:
                tests.append([str(name), str(group), passed, str(results.get(name, "") or "")])
    return {
        "message": _XDIST_HEADER.sub("", item.case.message),
        "properties": props,
        "resolution": verdict.get("resolution", props.get("resolution", "")),
        "reasons": [str(r) for r in verdict.get("reasons") or []],
        "tamper": [str(r) for r in verdict.get("tamper") or []],
        "tests": tests,
        "artifacts": {key: artifact.as_dict() for key, artifact in item.artifacts.items()},
        "marks": item.log_marks,
        "steps": item.steps,
        "times": {phase: item.number(f"time_{phase}") for phase in PHASES},
    }


# --- plots ------------------------------------------------------------------------------------


def _grouped(items: list[Item], key: str) -> dict[str, list[Item]]:
    groups: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        groups[item.props.get(key, "") or "(none)"].append(item)
    return groups


def _largest(groups: dict[str, list[Item]]) -> list[tuple[str, list[Item]]]:
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    if len(ordered) <= MAX_GROUPS:
        return sorted(ordered)
    rest = [item for _, group in ordered[MAX_GROUPS - 1 :] for item in group]
    return [*sorted(ordered[: MAX_GROUPS - 1]), (f"({len(ordered) - MAX_GROUPS + 1} more)", rest)]


def _rate_bars(items: list[Item], key: str) -> str:
    rows = []
    for name, group in _largest(_grouped(items, key)):
        resolved = sum(1 for i in group if i.status() == "resolved")
        graded = sum(1 for i in group if i.status() != "skipped")
        rate = resolved / graded if graded else 0.0
        rows.append(
            svg.Bar(name, rate, f"{resolved}/{graded} {_pct(resolved, graded)}", svg.COLOURS["resolved"])
        )
    return svg.bars(rows, f"resolved rate by {key}", scale=1.0)


def _outcome_parts(group: list[Item]) -> list[tuple[str, float, str]]:
    counts = Counter(item.status() for item in group)
    return [
        (name, float(counts[name]), svg.COLOURS[name])
        for name in ("resolved", "unresolved", "error", "skipped")
    ]


def _outcomes(items: list[Item]) -> str:
    rows = [("all", _outcome_parts(items))]
    groups = _grouped(items, "benchmark")
    if len(groups) > 1:
        rows += [(name, _outcome_parts(group)) for name, group in _largest(groups)]
    kinds = Counter(item.props.get("error_kind", "") or "?" for item in items if item.status() == "error")
    legend = "".join(
        f'<span><i style="background:{svg.COLOURS[name]}"></i>{name}</span>'
        for name in ("resolved", "unresolved", "error", "skipped")
    )
    plot = f'<p class="legend">{legend}</p>' + svg.stacked(rows, "outcomes")
    if kinds:
        plot += svg.bars(
            [svg.Bar(kind, count, str(count), svg.COLOURS["error"]) for kind, count in sorted(kinds.items())],
            "errors by kind",
        )
    return plot


def _phases(items: list[Item]) -> str:
    bars = []
    for phase in PHASES:
        values = [v for v in (item.number(f"time_{phase}") for item in items) if v is not None]
        total = sum(values)
        mean = total / len(values) if values else 0.0
        bars.append(svg.Bar(phase, total, f"{_seconds(total)} (mean {_seconds(mean)})", svg.COLOURS[phase]))
    return svg.bars(bars, "time per phase")


def _costs(items: list[Item]) -> tuple[float, str]:
    priced = [item for item in items if item.number("agent_cost") is not None]
    total = sum(item.number("agent_cost") or 0.0 for item in priced)
    if not priced:
        return 0.0, '<p class="empty">no agent cost recorded (the agent calls no priced model)</p>'
    rows = []
    for name, group in _largest(_grouped(priced, "benchmark")):
        cost = sum(item.number("agent_cost") or 0.0 for item in group)
        rows.append(svg.Bar(name, cost, f"{_money(cost)} ({len(group)} items)", svg.COLOURS["cost"]))
    by_status = _grouped(priced, "outcome")
    for name, group in sorted(by_status.items()):
        cost = sum(item.number("agent_cost") or 0.0 for item in group)
        rows.append(svg.Bar(f"outcome {name}", cost, _money(cost), svg.COLOURS["cost"]))
    return total, svg.bars(rows, "cost")


def _figure(title: str, body: str) -> str:
    return f'<figure class="card"><figcaption>{escape(title)}</figcaption>{body}</figure>'


def run_section(run: Run) -> str:
    """A run's headline numbers and plots."""
    stats = report.summarize(run.cases)["overall"]
    cost, cost_plot = _costs(run.items)
    seconds = sum(sum(i.number(f"time_{p}") or 0.0 for p in PHASES) for i in run.items)
    facts = [
        (
            "resolved / graded",
            f"{stats['resolved']}/{stats['graded']} ({report.percent(stats['resolved_rate'])})",
        ),
        (
            "resolved / total",
            f"{stats['resolved']}/{stats['total']} ({report.percent(stats['resolved_rate_total'])})",
        ),
        ("unresolved", str(stats["unresolved"])),
        ("errors", str(stats["errors"])),
        ("skipped", str(stats["skipped"])),
        ("cost", _money(cost) if cost else "n/a"),
        ("item time", _seconds(seconds)),
    ]
    keys = ("benchmark", "family", "agent", "provider", "dataset", "grader_version", "harness_version")
    meta = [(k, run.properties[k]) for k in keys if run.properties.get(k)]
    models = sorted({i.props.get("model", "") for i in run.items} - {""})
    if models:
        meta.append(("model", ", ".join(models)))
    return (
        f'<section class="run" id="run-{run.index}"><h2>{escape(run.label)}</h2>'
        f'<p class="source">{escape(run.source)}</p>'
        '<dl class="facts">'
        + "".join(f"<div><dt>{escape(k)}</dt><dd>{escape(v)}</dd></div>" for k, v in facts)
        + "</dl>"
        '<dl class="meta">'
        + "".join(f"<div><dt>{escape(k)}</dt><dd>{escape(v)}</dd></div>" for k, v in meta)
        + "</dl>"
        '<div class="plots">'
        + _figure("resolved rate by benchmark", _rate_bars(run.items, "benchmark"))
        + _figure("resolved rate by repo", _rate_bars(run.items, "repo"))
        + _figure("outcomes", _outcomes(run.items))
        + _figure("time per phase", _phases(run.items))
        + _figure("cost", cost_plot)
        + "</div></section>"
    )


# --- comparison -------------------------------------------------------------------------------


def _repo_rates(run: Run) -> dict[str, tuple[int, int]]:
    rates: dict[str, tuple[int, int]] = {}
    for name, group in _grouped(run.items, "repo").items():
        graded = [i for i in group if i.status() != "skipped"]
        rates[name] = (sum(1 for i in graded if i.status() == "resolved"), len(graded))
    return rates


def compare_section(runs: list[Run], numbers: dict[tuple[int, int], int]) -> tuple[str, list[dict[str, Any]]]:
    """Each later run against the first: fixed, broken, other changes and per-repo deltas; and the
    instance-by-run matrix the page's script draws."""
    base = runs[0]
    parts = ['<section id="compare"><h2>comparison</h2>']
    rows = []
    for other in runs[1:]:
        diff = ledger_tools.diff_cases(base.cases, other.cases, a_name=base.label, b_name=other.label)
        counts = {
            kind: len(diff.of_kind(kind)) for kind in ("fixed", "broken", "changed", "only_a", "only_b")
        }
        base_rates, other_rates = _repo_rates(base), _repo_rates(other)
        deltas = []
        for repo in sorted(set(base_rates) | set(other_rates)):
            a, b = base_rates.get(repo, (0, 0)), other_rates.get(repo, (0, 0))
            ra, rb = (a[0] / a[1] if a[1] else 0.0), (b[0] / b[1] if b[1] else 0.0)
            if a[1] and b[1]:
                deltas.append(
                    (repo, rb - ra, f"{100 * (rb - ra):+.1f} pts ({a[0]}/{a[1]} \u2192 {b[0]}/{b[1]})")
                )
        deltas.sort(key=lambda d: (-abs(d[1]), d[0]))
        lists = []
        for kind, title in (("fixed", "fixed"), ("broken", "broken"), ("changed", "other changes")):
            flips = diff.of_kind(kind)
            entries = "".join(
                f"<li><code>{escape(flip.instance_id)}</code> "
                f"{escape(ledger_tools._describe(flip.a))} \u2192 {escape(ledger_tools._describe(flip.b))}</li>"
                for flip in flips[:200]
            )
            more = f"<li>and {len(flips) - 200} more</li>" if len(flips) > 200 else ""
            lists.append(
                f'<div class="flips {kind}"><h4>{title}: {len(flips)}</h4><ul>{entries}{more}</ul></div>'
            )
        parts.append(
            f'<div class="pair"><h3>{escape(base.label)} \u2192 {escape(other.label)}</h3>'
            f'<p class="counts" data-fixed="{counts["fixed"]}" data-broken="{counts["broken"]}">'
            + " · ".join(f"{k.replace('_', ' ')} {v}" for k, v in counts.items())
            + f" · unchanged {diff.unchanged}</p>"
            + '<div class="plots">'
            + _figure(
                "per-repo change of the resolved rate", svg.deltas(deltas[:MAX_GROUPS], "per-repo deltas")
            )
            + "</div>"
            + "".join(lists)
            + "</div>"
        )
    index: dict[tuple[str, str], list[int | None]] = {}
    for run in runs:
        for position, item in enumerate(run.items):
            cells = index.setdefault(item.case.key, [None] * len(runs))
            cells[run.index] = numbers[(run.index, position)]
    for (benchmark, instance), cells in sorted(index.items()):
        rows.append({"benchmark": benchmark, "id": instance, "cells": cells})
    parts.append(
        '<h3>instances by run</h3><label><input type="checkbox" id="changed-only"> changed only</label>'
        '<table id="matrix"><thead></thead><tbody></tbody></table></section>'
    )
    return "".join(parts), rows


# --- the page ---------------------------------------------------------------------------------


def render(runs: list[Run], title: str = "pytest-swe report") -> str:
    """The whole page for one run, or a comparison of several (the first is the baseline)."""
    numbers: dict[tuple[int, int], int] = {}
    rows: list[dict[str, Any]] = []
    details: list[str] = []
    for run in runs:
        for position, item in enumerate(run.items):
            number = len(rows)
            numbers[(run.index, position)] = number
            rows.append(item_row(number, item))
            details.append(
                f'<script type="application/json" id="detail-{number}">{script_json(item_detail(item))}</script>'
            )
    compare_html, matrix = compare_section(runs, numbers) if len(runs) > 1 else ("", [])
    data = {
        "runs": [{"label": run.label, "source": run.source} for run in runs],
        "items": rows,
        "matrix": matrix,
    }
    generated = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    nonce = secrets.token_urlsafe(18)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # Nothing of the page comes from the network, and no script but the page's own runs: should
        # markup ever slip through from a log, its scripts and event handlers lack the nonce.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; '
        f"style-src 'unsafe-inline'; script-src 'nonce-{nonce}'\">"
        f"<title>{escape(title)}</title><style>{_asset('report.css')}</style></head><body>"
        f'<header><h1>{escape(title)}</h1><p class="generated">pytest-swe {escape(pytest_swe.__version__)}'
        f" · generated {escape(generated)} · {len(rows)} item(s) in {len(runs)} run(s)</p></header>"
        "<main>"
        + "".join(run_section(run) for run in runs)
        + compare_html
        + '<section id="items"><h2>items</h2><div class="filters" id="filters">'
        '<span class="chips" id="status-filter"></span>'
        '<select id="run-filter"></select><select id="benchmark-filter"></select>'
        '<input type="search" id="search" placeholder="filter by instance, repo, agent, error kind">'
        '<span id="shown"></span></div>'
        '<table id="table"><thead></thead><tbody></tbody></table></section>'
        '<section id="detail" hidden></section>'
        "</main>"
        f'<script type="application/json" id="swe-data">{script_json(data)}</script>'
        + "".join(details)
        + f'<script nonce="{nonce}">{_asset("report.js")}</script></body></html>\n'
    )
