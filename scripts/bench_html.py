"""How large and how fast the HTML report of a big run is: a synthetic run of N items (2,000 by
default) with a patch, an eval log, a verdict and a trajectory each, its report written, then
opened in headless Chromium (Debian's /usr/bin/chromium, driven by Playwright).

    python scripts/bench_html.py [--items 2000] [--out DIR]

Prints the report's size, the time to write it, and in the browser the time to DOMContentLoaded
and to the first drawn table (the page sets ``data-ready`` on <body> once its table is drawn).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
#: Chromium as the tests start it: headless, no sandbox (root in CI), nothing fetched by itself.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

REPOS = ["astropy/astropy", "django/django", "pallets/flask", "psf/requests", "pydata/xarray", "sympy/sympy"]


def _trajectory(rng: random.Random, steps: int) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Fix the issue."},
    ]
    records = []
    for step in range(1, steps + 1):
        command = rng.choice(["ls", "cat setup.py", "grep -rn def src", "python -m pytest -x -q"])
        messages.append({"role": "assistant", "content": f"Step {step}: let me run {command}."})
        records.append(
            {
                "step": step,
                "model": {"cost": 0.0012, "prompt_tokens": 900, "completion_tokens": 60},
                "actions": [{"tool": "bash", "command": command, "exit_code": 0, "output": "ok\n" * 5}],
            }
        )
    return {
        "format": "pytest-swe-trajectory-1",
        "info": {"exit_status": "submitted", "message": ""},
        "steps": records,
        "messages": messages,
    }


def synthetic_run(
    run_dir: Path,
    items: int,
    *,
    seed: int = 0,
    run_id: str = "synthetic",
    eval_log: str | None = None,
    resolved: set[str] | None = None,
) -> Path:
    """A run directory as a run writes it: ``ledger.jsonl`` and each item's artifacts.

    ``resolved`` names the instances that pass (default: about a third, by ``seed``);
    ``eval_log`` replaces every item's eval log (a test passes hostile text through it).
    """
    rng = random.Random(seed)
    run_dir.mkdir(parents=True, exist_ok=True)
    lines = []
    for number in range(items):
        repo = REPOS[number % len(REPOS)]
        instance = f"{repo.split('/')[1]}__{repo.split('/')[1]}-{1000 + number}"
        here = run_dir / "synthetic" / instance
        (here / "agent").mkdir(parents=True, exist_ok=True)
        roll = rng.random()
        passed = (instance in resolved) if resolved is not None else roll < 0.33
        outcome = "passed" if passed else ("error" if roll > 0.95 else "failed")
        f2p = [f"tests/test_{number}.py::test_fix_{k}" for k in range(3)]
        p2p = [f"tests/test_{number}.py::test_keep_{k}" for k in range(8)]
        failing = [] if passed else f2p[:1]
        verdict = {
            "resolved": passed,
            "resolution": "RESOLVED_FULL" if passed else "RESOLVED_NO",
            "tests_status": {
                "FAIL_TO_PASS": {"success": [t for t in f2p if t not in failing], "failure": failing},
                "PASS_TO_PASS": {"success": p2p, "failure": []},
            },
            "test_results": {t: ("FAILED" if t in failing else "PASSED") for t in f2p + p2p},
            "reasons": [] if passed else ["FAIL_TO_PASS failing"],
        }
        log = eval_log
        if log is None:
            log = "+ python -m pytest -rA\n" + "".join(
                f"{verdict['test_results'][t]} {t}\n" for t in f2p + p2p
            )
        (here / "eval.log").write_text(log)
        (here / "eval.sh").write_text("#!/bin/bash\nset -uxo pipefail\npython -m pytest -rA\n")
        (here / "patch.diff").write_text(
            f"diff --git a/src/m{number}.py b/src/m{number}.py\n--- a/src/m{number}.py\n+++ b/src/m{number}.py\n"
            "@@ -1,2 +1,2 @@\n-    return a - b\n+    return a + b\n"
        )
        (here / "verdict.json").write_text(json.dumps(verdict))
        steps = rng.randint(3, 12)
        (here / "agent" / "trajectory.json").write_text(json.dumps(_trajectory(rng, steps)))
        props = {
            "reward": "1.0" if passed else "0.0",
            "resolved": "true" if passed else "false",
            "outcome": outcome,
            "error_kind": "sandbox_start" if outcome == "error" else "",
            "benchmark": "synthetic",
            "family": "swe-bench",
            "instance_id": instance,
            "repo": repo,
            "agent": "llm",
            "model": "synthetic-model",
            "provider": "docker",
            "run_id": run_id,
            "f2p_passed": str(3 - len(failing)),
            "f2p_total": "3",
            "p2p_passed": "8",
            "p2p_total": "8",
            "agent_steps": str(steps),
            "agent_exit_status": "submitted",
            "agent_cost": f"{steps * 0.0012:.4f}",
            "time_sandbox": f"{rng.uniform(0.5, 3):.3f}",
            "time_agent": f"{rng.uniform(20, 300):.3f}",
            "time_eval": f"{rng.uniform(5, 60):.3f}",
            "patch_path": str(here / "patch.diff"),
            "eval_log_path": str(here / "eval.log"),
            "eval_sh_path": str(here / "eval.sh"),
            "verdict_path": str(here / "verdict.json"),
            "trajectory_path": str(here / "agent" / "trajectory.json"),
        }
        entry = {
            "nodeid": f"benchmarks/synthetic.yaml::synthetic::{instance}",
            "outcome": outcome,
            "properties": props,
            "message": "" if passed else "unresolved: FAIL_TO_PASS failing",
        }
        lines.append(json.dumps(entry))
    (run_dir / "ledger.jsonl").write_text("\n".join(lines) + "\n")
    return run_dir


def load_times(report: Path) -> dict[str, float]:
    """Milliseconds to DOMContentLoaded, to the first drawn table and to open an item, in headless Chromium."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        start = time.perf_counter()
        page.goto(report.resolve().as_uri(), wait_until="domcontentloaded")
        dom = (time.perf_counter() - start) * 1000
        page.wait_for_selector("body[data-ready]")
        table = (time.perf_counter() - start) * 1000
        # the item view is built synchronously by the row's click handler: timed inside the page
        item = page.evaluate(
            "() => { const t = performance.now(); document.querySelector('#table tbody tr').click();"
            " document.querySelector('#detail .evallog').getBoundingClientRect(); return performance.now() - t; }"
        )
        redraw = page.evaluate(
            "() => { const t = performance.now();"
            " document.querySelector('#status-filter button[data-status=\"all\"]').click();"
            " document.querySelector('#table th[data-key=\"time\"]').click();"
            " document.querySelector('#table tbody tr').getBoundingClientRect(); return performance.now() - t; }"
        )
        timing = page.evaluate(
            "() => { const t = performance.getEntriesByType('navigation')[0];"
            " return {dcl: t.domContentLoadedEventEnd, rows: document.querySelectorAll('#table tbody tr').length}; }"
        )
        browser.close()
    return {
        "domcontentloaded_ms": dom,
        "table_ms": table,
        "item_ms": item,
        "redraw_ms": redraw,
        "nav_dcl_ms": timing["dcl"],
        "rows": timing["rows"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--out", help="where the synthetic run and its report go (default: a temp dir)")
    args = parser.parse_args(argv)
    from pytest_swe.tools.html import write_report

    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="bench-html-"))
    run = synthetic_run(out / "run", args.items)
    start = time.perf_counter()
    written = write_report([run], out / "report.html")
    write_s = time.perf_counter() - start
    print(
        f"items {written.items}; report {written.path}: {written.bytes / 1e6:.1f} MB, written in {write_s:.1f} s"
    )
    times = load_times(written.path)
    print(
        f"headless Chromium: DOMContentLoaded {times['nav_dcl_ms']:.0f} ms, "
        f"table of {times['rows']} rows drawn at {times['table_ms']:.0f} ms; an item opened in {times['item_ms']:.0f} ms; "
        f"the whole table filtered and sorted again in {times['redraw_ms']:.0f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
