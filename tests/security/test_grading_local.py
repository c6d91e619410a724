"""The grading-local rows under ``strict`` on a real Docker engine: gold resolves and the empty patch
fails, with the probe at work for every runner, the re-install step of the eval scripts included,
and a pytest plugin under test loaded into the graded session.

These rows re-install the package with ``python -m pip install -e .`` before the tests (as real
SWE-bench eval scripts do), are read by the pytest, v2 pytest, Django and SymPy readers, and one of
them runs inner pytest sessions whose status lines reach the log (as pytest's own suite does).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from corpus.context import GRADING_YAML
from filelock import FileLock
from secutil import run_measured
from secutil import shared_run

from conftest import build_local_images
from conftest import labelled_containers
from conftest import load_module
from conftest import run_shared_dir

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def grading_images(
    docker_engine: Any, base_image: str, tmp_path_factory: pytest.TempPathFactory
) -> list[str]:
    fetch = load_module(GRADING_YAML.parent / "grading-local" / "fetch_debs.py")
    with FileLock(str(run_shared_dir(tmp_path_factory) / "corpus-debs.lock")):
        fetch.fetch()
    return build_local_images(docker_engine, tmp_path_factory, GRADING_YAML, force=True)


def grading_run(tmp_path_factory: pytest.TempPathFactory, agent: str) -> Any:
    def run(project: Any) -> Any:
        return run_measured(
            project,
            str(GRADING_YAML),
            "--swe-benchmark-files",
            str(GRADING_YAML.parent / "*.yaml"),
            "-n",
            "2",
            "--swe-agent",
            agent,
            "--swe-set",
            "provider.pull=never",
        )

    return shared_run(tmp_path_factory, f"grading-local-{agent}", run)[0].run


def probe_of(case: Any) -> dict[str, Any]:
    verdict = json.loads(Path(case.properties["verdict_path"]).read_text())
    return verdict["extra"].get("probe") or {}


def test_gold_resolves_with_the_probe_at_work(
    grading_images: list[str], tmp_path_factory: pytest.TempPathFactory, docker_engine: Any
) -> None:
    run = grading_run(tmp_path_factory, "gold")
    assert len(run.cases) == 8
    for case in run.cases:
        assert case.outcome == "passed", (case.instance_id, case.message[:1500])
        assert "tamper" not in case.properties and "neutralized" not in case.properties, case.properties
        probe = probe_of(case)
        assert probe["canary_files"], (case.instance_id, probe)
        assert probe["errors"] == "", (case.instance_id, probe)
        runner_has_channel = "minidj" in case.instance_id or "symcalc" not in case.instance_id
        assert probe["channel"] is runner_has_channel, (case.instance_id, probe)
        assert probe["watch"] is True, (case.instance_id, probe)
    # The inner pytest sessions' PASSED/FAILED lines are in the log and do not count against gold.
    runlog = next(c for c in run.cases if "runlog" in c.instance_id)
    log = Path(runlog.properties["eval_log_path"]).read_text()
    assert log.count("test session starts") > 1, "the inner sessions did not print"
    # A pytest plugin under test, loaded into the graded session by its entry point, whose fix is in
    # its own makereport hook: the channel and the watch at work, and no evidence.
    plugin = next(c for c in run.cases if "knownissue" in c.instance_id)
    assert probe_of(plugin)["channel_events"] > 0, probe_of(plugin)
    assert "knownissue: strict=False" in Path(plugin.properties["eval_log_path"]).read_text()
    run_id = (
        run.suite.get("run_id") or run.cases[0].properties["run_id"]
    )  # the empty run may be going on beside
    assert not labelled_containers(docker_engine, run=run_id)


def test_empty_patch_fails_everywhere(
    grading_images: list[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    run = grading_run(tmp_path_factory, "empty")
    assert len(run.cases) == 8
    for case in run.cases:
        assert case.outcome == "failed", (case.instance_id, case.outcome, case.message[:800])
        assert "tamper" not in case.properties, case.properties
