"""The run as people watch it: the live status line, the -v words, the summary table and the
agent/eval phases of ``--durations``, read back against the JUnit file."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from pytest_swe.runner.progress import Progress
from pytest_swe.runner.progress import format_eta

from conftest import DEMO_DIR
from conftest import DEMO_IDS
from conftest import DEMO_JSONL
from conftest import SweProject
from conftest import read_jsonl

LIVE = re.compile(
    r"\[(?P<done>\d+)/(?P<total>\d+)\] resolved (?P<resolved>\d+) \((?P<rate>[\d.]+%|n/a)\)"
    r" · unresolved (?P<unresolved>\d+) · errors (?P<errors>\d+)(?: · skipped (?P<skipped>\d+))?"
    r"(?: · \$[\d.]+)? · ETA \w+"
)


def live_lines(text: str) -> list[re.Match[str]]:
    """Every state of the live line in the output (a redraw is separated by a carriage return)."""
    return [m for line in re.split(r"[\r\n]", text) for m in [LIVE.search(line)] if m]


def counts_of(match: re.Match[str]) -> dict[str, int]:
    return {k: int(match[k] or 0) for k in ("done", "total", "resolved", "unresolved", "errors", "skipped")}


# --- the line, without a run ---------------------------------------------------------------------


def test_the_line_counts_and_estimates_the_rest(pytestconfig: pytest.Config) -> None:
    progress = Progress(pytestconfig)
    progress.total, progress.workers = 300, 4
    for outcome, n in (("passed", 41), ("failed", 80), ("error", 2)):
        for _ in range(n):
            progress.run.add({"reward": "0", "outcome": outcome, "agent_cost": "0.05"}, 60.0)
    # 123 items of 60s each: 177 left on 4 workers is 44.25 minutes.
    assert progress.line() == "[123/300] resolved 41 (33.3%) · unresolved 80 · errors 2 · $6.15 · ETA 44m"
    progress.total = None
    assert progress.line() == "resolved 41/123 (33.3%) · unresolved 80 · errors 2 · $6.15"


def test_eta_reads_as_seconds_minutes_or_hours() -> None:
    assert [format_eta(s) for s in (0, 45, 720, 3900)] == ["0s", "45s", "12m", "1h05m"]


# --- cheap runs: an absent optional dataset is one skipped item ------------------------------------


def _absent(pytester: pytest.Pytester) -> None:
    (pytester.path / "benchmarks").mkdir()
    (pytester.path / "benchmarks" / "internal.yaml").write_text(
        "family: swe-bench\ndataset: {source: /nonexistent/x.jsonl, optional: true}\n"
    )


def test_the_line_is_printed_when_the_output_is_not_a_terminal(pytester: pytest.Pytester) -> None:
    _absent(pytester)
    out = pytester.runpytest("benchmarks/", "-p", "no:cacheprovider").stdout.str()
    (final,) = live_lines(out)
    assert counts_of(final) == {
        "done": 1,
        "total": 1,
        "resolved": 0,
        "unresolved": 0,
        "errors": 0,
        "skipped": 1,
    }
    assert re.search(r"^internal +- +0/0 \(n/a\) +0/1 \(0\.0%\) +0 +0 +1 +- ", out, re.M), out


def test_progress_none_and_its_ini_key_turn_the_line_off(pytester: pytest.Pytester) -> None:
    _absent(pytester)
    assert live_lines(pytester.runpytest("benchmarks/", "--swe-progress", "none").stdout.str()) == []
    pytester.makeini("[pytest]\nswe_progress = none\n")
    assert live_lines(pytester.runpytest("benchmarks/").stdout.str()) == []
    result = pytester.runpytest("benchmarks/", "--swe-progress", "sometimes")
    assert "--swe-progress (ini: swe_progress) 'sometimes': expected one of auto, live, lines, none" in (
        result.stderr.str()
    )


# --- the demo on Docker ----------------------------------------------------------------------------


@pytest.mark.docker
def test_under_xdist_the_last_line_has_the_junit_counts_and_a_line_comes_every_n(
    swe_project: SweProject, demo_images: list[str]
) -> None:
    swe_project.demo()
    predictions = swe_project.path / "predictions-wrong.jsonl"  # in the project: not a rootdir candidate
    shutil.copy(DEMO_DIR / "predictions-wrong.jsonl", predictions)
    run = swe_project.run(
        "benchmarks/", "-n", "2", "--swe-predictions", str(predictions), "--swe-progress-every", "3"
    )
    out = run.result.stdout.str()
    states = live_lines(out)
    assert [counts_of(m)["done"] for m in states] == [3, 6, 8], out  # every 3, and the last
    outcomes = Counter(run.outcomes().values())
    assert len(run.cases) == len(DEMO_IDS)
    assert counts_of(states[-1]) == {
        "done": len(DEMO_IDS),
        "total": len(DEMO_IDS),
        "resolved": outcomes["passed"],
        "unresolved": outcomes["failed"],
        "errors": outcomes["error"],
        "skipped": outcomes["skipped"],
    }, out
    assert outcomes["failed"] and outcomes["skipped"], "the wrong predictions give a mixed run"
    assert states[-1].group(0).endswith("ETA 0s")
    graded = outcomes["passed"] + outcomes["failed"]
    assert re.search(
        rf"^demo +swe-bench +{outcomes['passed']}/{graded} \(.*\) +{outcomes['passed']}/8 \(.*\) +"
        rf"{outcomes['failed']} +0 +{outcomes['skipped']} +- +[\d.]+s$",
        out,
        re.M,
    ), out


@pytest.mark.docker
def test_verbose_words_and_durations_of_agent_and_eval(
    swe_project: SweProject, demo_images: list[str], tmp_path: Path
) -> None:
    rows = read_jsonl(DEMO_JSONL)[:2]
    bad = dict(rows[1], instance_id="demo__bad-json", FAIL_TO_PASS="[oops")
    dataset = tmp_path / "mixed.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in [rows[0], rows[1], bad]))
    swe_project.demo("mixed", dataset=dataset)
    run = swe_project.run("benchmarks/", "-n", "2", "-vv", "--swe-agent", "empty", "--durations=0")
    out = run.result.stdout.str()
    for case in run.cases:
        nodeid = f"benchmarks/mixed.yaml::mixed::{case.instance_id}"  # the project is the rootdir
        if case.outcome == "failed":
            word = f"UNRESOLVED (F2P {case.properties['f2p_passed']}/{case.properties['f2p_total']})"
            assert re.search(rf"\] {re.escape(word)} {re.escape(nodeid)}", out), out
            for phase in ("agent", "eval", "sandbox"):
                assert re.search(rf"^\d+\.\d\ds {phase} +{re.escape(nodeid)}$", out, re.M), out
        else:
            assert case.instance_id == "demo__bad-json" and case.outcome == "error"
            assert re.search(rf"\] ERROR bad_row {re.escape(nodeid)}", out), out
    assert sorted(c.outcome for c in run.cases) == ["error", "failed", "failed"]
    assert "2 failed, 1 error" in out  # the phases are not outcomes of the summary line


@pytest.mark.docker
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (scripts/setup.sh --tests)")
def test_on_a_terminal_the_line_is_redrawn_in_place(
    swe_project: SweProject, demo_images: list[str], tmp_path: Path
) -> None:
    swe_project.demo()
    socket = f"swe-progress-{tmp_path.name}"
    tmux = ["tmux", "-L", socket]
    done = tmp_path / "done"
    command = (
        f"cd {shlex.quote(str(swe_project.path))} && {shlex.quote(sys.executable)} -m pytest benchmarks/ "
        f"-n 2 --swe-agent gold -p no:cacheprovider --swe-run-dir={shlex.quote(str(tmp_path / 'run'))}; "
        f"echo $? > {shlex.quote(str(done))}"
    )
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", "t", "-x", "150", "-y", "50", "bash --norc"], check=True
    )
    try:
        subprocess.run([*tmux, "send-keys", "-t", "t", command, "Enter"], check=True)
        screens = []
        deadline = time.monotonic() + 300
        while not done.exists() and time.monotonic() < deadline:
            screens.append(subprocess.run([*tmux, "capture-pane", "-p", "-t", "t"], capture_output=True,
                                          text=True, check=True).stdout)  # fmt: skip
            time.sleep(0.5)
        assert done.exists() and done.read_text().strip() == "0", screens[-1] if screens else ""
        final = subprocess.run(
            [*tmux, "capture-pane", "-p", "-t", "t"], capture_output=True, text=True, check=True
        ).stdout
    finally:
        subprocess.run([*tmux, "kill-server"], check=False)
    seen = {counts_of(m)["done"] for screen in screens for m in live_lines(screen)}
    assert len(seen) > 1, "the line changed while the run went on"
    for screen in [*screens, final]:
        assert len(live_lines(screen)) <= 1, screen  # one line on screen, redrawn: never a second one
    (last,) = live_lines(final)
    assert counts_of(last) == {
        "done": 8,
        "total": 8,
        "resolved": 8,
        "unresolved": 0,
        "errors": 0,
        "skipped": 0,
    }
    assert "8 passed" in final
