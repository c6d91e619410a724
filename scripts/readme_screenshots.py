"""Make the README's screenshots (docs/img/): the HTML report of a demo run with the wrong
predictions, one of its items, its comparison with a gold run, and the live status line of a run in a real terminal (tmux),
rendered by headless Chromium from the captured text. Needs Docker with the demo images, tmux
and /usr/bin/chromium.

    python scripts/readme_screenshots.py [--out docs/img]
"""

from __future__ import annotations

import argparse
import html
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from bench_html import CHROMIUM  # noqa: E402
from bench_html import CHROMIUM_ARGS  # noqa: E402

from pytest_swe.tools.html import write_report  # noqa: E402

PYTEST = [sys.executable, "-m", "pytest", "benchmarks/demo.yaml", "-p", "no:cacheprovider", "-n", "2"]
WRONG = ["--swe-predictions", "benchmarks/demo/predictions-wrong.jsonl"]


def report_of_a_demo_run(work: Path) -> Path:
    report = work / "report.html"
    subprocess.run(
        [*PYTEST, *WRONG, f"--swe-run-dir={work / 'run'}", f"--swe-html={report}", "-q"],
        cwd=REPO,
        capture_output=True,
        check=False,
    )
    return report


def live_line(work: Path) -> str:
    """The terminal while a run is half done: tmux runs it, capture-pane reads the screen."""
    session = f"pytest-swe-html-shot-{int(time.time())}"
    command = shlex.join([*PYTEST, "--swe-agent", "gold", f"--swe-run-dir={work / 'live'}"])
    subprocess.run(
        [
            "tmux",
            "new-session",
            "-d",
            "-s",
            session,
            "-x",
            "110",
            "-y",
            "12",
            f"cd {REPO} && {command}; sleep 30",
        ],
        check=True,
    )
    try:
        screen = ""
        for _ in range(600):
            time.sleep(0.1)
            screen = subprocess.run(
                ["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True
            ).stdout
            counts = [line for line in screen.splitlines() if line.startswith("[") and "/8]" in line]
            if counts and not counts[-1].startswith(("[0/", "[1/", "[2/", "[3/")):
                break
        captured = screen.rstrip() + "\n"
        for _ in range(1200):  # let the run finish: its ledger is the comparison's second run
            time.sleep(0.1)
            if (work / "live" / "run.json").is_file():
                break
        return captured
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], check=False)


def shoot(report: Path, terminal: str, compare: Path, out: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(report.as_uri())
        page.wait_for_selector("body[data-ready]")
        page.screenshot(path=str(out / "html-report.png"), full_page=True)
        page.click('#status-filter button[data-status="unresolved"]')
        page.click('#table tbody tr:has(td.id:text-is("demo__routes-1"))')
        page.locator("#detail").screenshot(path=str(out / "html-report-item.png"))
        page.set_content(
            '<body style="margin:0;background:#1e1e1e"><pre id="t" style="margin:0;padding:12px;color:#ddd;'
            'font:14px/1.3 DejaVu Sans Mono,monospace;display:inline-block">'
            f"{html.escape(terminal)}</pre></body>"
        )
        page.locator("#t").screenshot(path=str(out / "live-line.png"))
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(compare.as_uri())
        page.wait_for_selector("body[data-ready]")
        page.check("#changed-only")
        page.locator("#compare").screenshot(path=str(out / "html-compare.png"))
        browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(REPO / "docs" / "img"))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="readme-shots-"))
    report = report_of_a_demo_run(work)
    terminal = live_line(work)
    compare = write_report(
        [work / "run", work / "live"], work / "compare.html", labels=["wrong predictions", "gold"]
    ).path
    shoot(report, terminal, compare, out)
    print(f"wrote {', '.join(sorted(p.name for p in out.glob('*.png')))} to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
