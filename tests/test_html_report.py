"""The HTML report's content, read from the file itself (the browser tests drive the page)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from pytest_swe.tools.html import model
from pytest_swe.tools.html import write_report

from conftest import REPO
from conftest import SweProject
from conftest import load_module

bench = load_module(REPO / "scripts" / "bench_html.py")

HOSTILE = (
    "PASSED tests/test_0.py::test_keep_0\n"
    "</script><script>window.__pwned = 1</script>\n"
    '<img src=x onerror="window.__pwned = 2">\n'
    "<!-- <script> & &amp; \u2028 done\n"
)


def data_of(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="swe-data">(.*?)</script>', page, re.S)
    assert found
    return json.loads(found.group(1))


def detail_of(page: str, number: int) -> dict:
    found = re.search(rf'<script type="application/json" id="detail-{number}">(.*?)</script>', page, re.S)
    assert found
    return json.loads(found.group(1))


def test_hostile_log_stays_data(tmp_path: Path) -> None:
    """A log's ``</script>`` cannot end the data element, nor its markup become elements."""
    run = bench.synthetic_run(tmp_path / "run", 2, eval_log=HOSTILE)
    page = write_report([run], tmp_path / "r.html").path.read_text()
    assert "window.__pwned" in page  # the text is there ...
    assert "<img src=x" not in page and "</script><script>window" not in page  # ... never as markup
    # every <script> element is the page's own: the data ones and the one that carries the nonce
    scripts = re.findall(r"<script([^>]*)>", page)
    assert all('type="application/json"' in attrs or "nonce=" in attrs for attrs in scripts), scripts
    assert sum("nonce=" in attrs for attrs in scripts) == 1
    assert detail_of(page, 0)["artifacts"]["eval_log"]["text"] == HOSTILE  # read back exactly


def test_items_artifacts_and_graded_lines(tmp_path: Path) -> None:
    run = bench.synthetic_run(tmp_path / "run", 6, resolved={"astropy__astropy-1000"})
    page = write_report([run], tmp_path / "r.html").path.read_text()
    data = data_of(page)
    statuses = {row["id"]: row["status"] for row in data["items"]}
    assert statuses["astropy__astropy-1000"] == "resolved"
    assert sum(s == "resolved" for s in statuses.values()) == 1
    detail = detail_of(page, [r["id"] for r in data["items"]].index("django__django-1001"))
    # each graded test's log line is marked, the failing F2P test as failed
    marks = {m[3]: (m[1], m[2]) for m in detail["marks"]}
    assert marks["tests/test_1.py::test_fix_0"] == ("FAIL_TO_PASS", False)
    assert marks["tests/test_1.py::test_keep_7"] == ("PASS_TO_PASS", True)
    assert len(marks) == 11
    assert detail["artifacts"]["patch"]["text"].startswith("diff --git a/src/m1.py")
    steps = detail["steps"]
    assert steps[0]["title"] == "prompt" and steps[1]["title"].startswith("step 1")
    assert steps[1]["thought"].startswith("Step 1: let me run") and steps[1]["actions"][0]["command"]
    assert steps[-1]["title"] == "exit: submitted"
    for plot in ("resolved rate by benchmark", "resolved rate by repo", "outcomes", "time per phase", "cost"):
        assert f"<figcaption>{plot}</figcaption>" in page
    assert "<svg" in page and "http://" not in page.replace("http://www.w3.org/2000/svg", "")


def test_missing_artifacts_are_named(tmp_path: Path) -> None:
    run = bench.synthetic_run(tmp_path / "run", 1)
    here = run / "synthetic" / "astropy__astropy-1000"
    (here / "eval.log").unlink()
    (here / "agent" / "trajectory.json").unlink()
    (here / "verdict.json").write_text("[not a verdict")
    page = write_report([run], tmp_path / "r.html").path.read_text()
    artifacts = detail_of(page, 0)["artifacts"]
    assert artifacts["verdict"]["missing"] == "verdict.json is not a JSON object"
    assert artifacts["eval_log"]["missing"] == f"eval log not found at {here / 'eval.log'}"
    assert artifacts["trajectory"]["missing"].startswith("trajectory not found at")
    assert "text" in artifacts["patch"]


def test_an_item_that_never_ran_has_nothing_recorded(tmp_path: Path) -> None:
    run = bench.synthetic_run(tmp_path / "run", 1)
    ledger = run / "ledger.jsonl"
    entry = json.loads(ledger.read_text())
    entry["properties"] = {k: v for k, v in entry["properties"].items() if not k.endswith("_path")}
    entry["outcome"] = entry["properties"]["outcome"] = "skipped"
    ledger.write_text(json.dumps(entry) + "\n")
    shutil.rmtree(run / "synthetic")
    artifacts = detail_of(write_report([run], tmp_path / "r.html").path.read_text(), 0)["artifacts"]
    assert artifacts["patch"]["missing"] == "no patch recorded"
    assert artifacts["eval_log"]["missing"] == "no eval log recorded"
    assert artifacts["verdict"]["missing"] == "no verdict recorded"


def test_moved_run_directory_is_searched(tmp_path: Path) -> None:
    """A run directory copied elsewhere still shows its artifacts (the recorded paths are gone)."""
    run = bench.synthetic_run(tmp_path / "run", 1)
    moved = run.rename(tmp_path / "moved")
    page = write_report([moved], tmp_path / "r.html").path.read_text()
    artifacts = detail_of(page, 0)["artifacts"]
    assert artifacts["eval_log"]["path"] == str(moved / "synthetic" / "astropy__astropy-1000" / "eval.log")
    assert artifacts["trajectory"]["path"].startswith(str(moved))
    assert detail_of(page, 0)["steps"]


def test_long_log_keeps_head_and_tail(tmp_path: Path) -> None:
    log = "start\n" + "x" * (model.TEXT_LIMIT * 2) + "\nend\n"
    run = bench.synthetic_run(tmp_path / "run", 1, eval_log=log)
    artifact = detail_of(write_report([run], tmp_path / "r.html").path.read_text(), 0)["artifacts"][
        "eval_log"
    ]
    assert artifact["text"].startswith("start") and artifact["text"].endswith("end\n")
    assert artifact["cut"] > model.TEXT_LIMIT and len(artifact["text"]) < model.TEXT_LIMIT + 100


def test_comparison_of_two_runs(tmp_path: Path) -> None:
    a = bench.synthetic_run(
        tmp_path / "a", 6, run_id="run-a", resolved={"astropy__astropy-1000", "django__django-1001"}
    )
    b = bench.synthetic_run(
        tmp_path / "b", 6, run_id="run-b", resolved={"astropy__astropy-1000", "flask__flask-1002"}
    )
    page = write_report([a, b], tmp_path / "r.html").path.read_text()
    assert 'data-fixed="1" data-broken="1"' in page
    assert "fixed: 1" in page and "broken: 1" in page
    assert "<h3>run-a \u2192 run-b</h3>" in page
    data = data_of(page)
    assert [r["label"] for r in data["runs"]] == ["run-a", "run-b"]
    flask = next(m for m in data["matrix"] if m["id"] == "flask__flask-1002")
    assert [data["items"][c]["status"] for c in flask["cells"]] == ["unresolved", "resolved"]
    # per-repo deltas: django lost its one resolved item, flask gained one
    assert "+100.0 pts (0/1 \u2192 1/1)" in page and "-100.0 pts (1/1 \u2192 0/1)" in page


def test_cli_html(tmp_path: Path) -> None:
    a = bench.synthetic_run(tmp_path / "a", 3, run_id="same")
    b = bench.synthetic_run(tmp_path / "b", 3, run_id="same")
    out = tmp_path / "out" / "report.html"
    cli = [sys.executable, "-m", "pytest_swe.tools.cli", "html"]
    done = subprocess.run(
        [*cli, str(a / "ledger.jsonl"), str(b), "-o", str(out)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}: 6 item(s) of 2 run(s)" in done.stdout
    labels = [r["label"] for r in data_of(out.read_text())["runs"]]
    assert labels[0] == "same" and labels[1] == f"same ({b})"  # one run id, two runs kept apart
    bad = subprocess.run([*cli, str(tmp_path), "-o", str(out)], capture_output=True, text=True)
    assert bad.returncode == 2 and "a directory without ledger.jsonl" in bad.stderr


MINI_TRAJECTORY = {
    "trajectory_format": "mini-swe-agent-1.1",
    "info": {"exit_status": "Submitted", "submission": "diff --git a/x b/x"},
    "messages": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Fix the bug."},
        {
            "role": "assistant",
            "content": "Let me look.",
            "extra": {"actions": [{"command": "ls"}, {"command": "cat x"}]},
        },
        {"role": "tool", "content": "<output>x</output>", "extra": {"returncode": 0, "raw_output": "x\n"}},
        {"role": "tool", "content": "no such file", "extra": {"returncode": 1}},
        {
            "role": "assistant",
            "content": "Done.",
            "tool_calls": [{"function": {"name": "bash", "arguments": '{"command": "git diff"}'}}],
        },
        {"role": "user", "content": "diff --git a/x b/x"},
    ],
}


def test_message_list_trajectory() -> None:
    """mini-swe-agent's trajectory: each assistant message a step with its commands, the replies
    their outputs and exit codes, and how it ended."""
    steps = model.trajectory_steps(json.dumps(MINI_TRAJECTORY))
    assert steps is not None
    assert [s["title"] for s in steps] == ["system", "user", "step 1", "step 2", "exit: Submitted"]
    first = steps[2]
    assert first["thought"] == "Let me look."
    assert [(a["command"], a["output"], a["exit_code"]) for a in first["actions"]] == [
        ("ls", "x\n", "0"),
        ("cat x", "no such file", "1"),
    ]
    assert steps[3]["actions"] == [{"command": "git diff", "output": "diff --git a/x b/x", "exit_code": ""}]
    assert model.trajectory_steps("[1, 2]") is None and model.trajectory_steps("not json") is None


def test_ini_key_writes_the_report_at_session_end(swe_project: SweProject) -> None:
    """``swe_html`` in the ini file (as ``--swe-html``): the run's report, named in the summary."""
    swe_project.benchmark(
        "internal", "family: swe-bench\ndataset: {source: /nonexistent/x.jsonl, optional: true}\n"
    )
    swe_project.pytester.makeini("[pytest]\nswe_html = out/report.html\n")
    run = swe_project.run("benchmarks/")
    out = swe_project.path / "out" / "report.html"
    assert f"HTML report {out} (1 items" in run.result.stdout.str()
    (row,) = data_of(out.read_text())["items"]
    (case,) = run.cases
    assert row["status"] == case.outcome == "skipped" and row["benchmark"] == case.properties["benchmark"]
