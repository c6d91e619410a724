"""The HTML report of an llm-agent run against a scripted loopback model server, in headless
Chromium: the trajectory as steps, the cost, the step-limit item."""

from __future__ import annotations

from typing import Any

import pytest
from modelserver import Script
from modelserver import bash
from modelserver import serving
from modelserver import submit
from test_agents_e2e import KEYS
from test_agents_e2e import benchmark
from test_agents_e2e import fix_commands
from test_agents_e2e import llm_agent

from conftest import SweProject
from conftest import screenshot_colours

pytestmark = pytest.mark.docker


def test_report_of_an_llm_agent_run(
    chromium: Any, swe_project: SweProject, demo_images: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SWE_E2E_KEY", "sk-e2e-secret")
    scripts = {
        KEYS["demo__calc-1"]: Script(
            [
                bash("cat calc/parser.py", "Let me read the parser."),
                *[bash(c) for c in fix_commands("demo__calc-1")],
                submit(),
            ]
        ),
        KEYS["demo__pager-1"]: Script([], then=bash("ls")),  # never submits: the step limit
    }
    report = swe_project.path / "llm.html"
    with serving(scripts) as server:
        benchmark(
            swe_project,
            "llmhtml",
            llm_agent(server.url, limits={"steps": 3}),
            ["demo__calc-1", "demo__pager-1"],
        )
        run = swe_project.run("benchmarks/", f"--swe-html={report}")
    assert run.outcomes() == {"demo__calc-1": "passed", "demo__pager-1": "failed"}, run.result.stdout.str()[
        -3000:
    ]
    calc = run.by_id["demo__calc-1"].properties

    page = chromium.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(report.as_uri())
    page.wait_for_selector("body[data-ready]")
    assert page.inner_text('#table tbody tr:has(td.id:text-is("demo__calc-1")) td.cost') == (
        f"${float(calc['agent_cost']):.4f}"
    )
    page.click('#status-filter button[data-status="resolved"]')
    assert page.locator("#table tbody tr td.id").all_inner_texts() == ["demo__calc-1"]
    page.click("#table tbody tr >> nth=0")
    steps = page.locator("#detail details.step summary").all_inner_texts()
    # the prompt, one entry per model call, and how the agent ended
    assert steps[0] == "prompt" and steps[-1] == "exit: submitted", steps
    assert len(steps) == int(calc["agent_steps"]) + 2
    assert page.locator("#detail pre.thought").nth(1).inner_text() == "Let me read the parser."
    assert page.locator("#detail pre.command").first.inner_text() == "$ cat calc/parser.py"
    assert "def expr" in page.locator("#detail pre.output").first.inner_text()
    assert "sk-e2e-secret" not in page.content()

    page.click('#status-filter button[data-status="unresolved"]')
    page.click("#table tbody tr >> nth=0")
    assert page.inner_text("#detail h2") == "demo__pager-1"
    assert page.locator("#detail details.step summary").last.inner_text() == "exit: step_limit"
    assert not errors, errors
    assert screenshot_colours(chromium, page.screenshot(full_page=True)) > 20
