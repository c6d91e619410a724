"""Bad policy configuration fails before anything runs, with an error naming the path."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pytest_swe.api.errors import ConfigError
from pytest_swe.api.family import EvalContext
from pytest_swe.api.sandbox import this_run
from pytest_swe.api.task import Task
from pytest_swe.grading import integrity_of
from pytest_swe.grading import settings_of
from pytest_swe.providers.docker import DockerProvider
from pytest_swe.providers.docker import parse_size
from pytest_swe.runner.config import load_benchmark
from pytest_swe.runner.config import parse_dotlist

from conftest import SweProject


def bench(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "b.yaml"
    path.write_text("family: swe-bench\ndataset: rows.jsonl\n" + textwrap.dedent(extra))
    return path


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        (["eval.policy=lenient"], "eval.policy: Input should be 'strict' or 'official'"),
        (["eval.policy_options.max_patch_bytes=-5"], "eval.policy_options.max_patch_bytes: Input should be greater than 0"),
        (["eval.policy_options.max_patch_bytes=lots"], "eval.policy_options.max_patch_bytes: Input should be a valid integer"),
        (["eval.policy_options.allow=x"], "eval.policy_options.allow: unknown key"),
        (["eval.policy_options.allowed_paths=tests/*"], "eval.policy_options.allowed_paths: Input should be a valid list"),
        (["eval.polcy=official"], "unknown key 'polcy' (did you mean 'policy'?)"),
    ],
)  # fmt: skip
def test_bad_policy_settings_name_the_path(tmp_path: Path, overrides: list[str], expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_benchmark(bench(tmp_path), overrides=parse_dotlist(overrides))
    assert expected in str(info.value)
    assert str(tmp_path / "b.yaml") in str(info.value)


def test_policy_settings_reach_the_guard(tmp_path: Path) -> None:
    settings = load_benchmark(
        bench(
            tmp_path,
            "eval:\n  policy: official\n  policy_options: {max_patch_bytes: 5000, allowed_paths: [docs/*]}\n",
        )
    )
    task = Task(
        family="swe-bench", instance_id="a", image="i", test_patch=None, fail_to_pass=["tests/test_a.py::t"]
    )
    ctx = EvalContext(settings=settings, artifacts=tmp_path, timeout=60, output_limit=1024)
    integrity = integrity_of(task, ctx)
    assert integrity.policy == "official" and settings_of(settings.eval)[1]["max_patch_bytes"] == 5000
    assert integrity.protection.allowed_patterns == ("docs/*",)
    assert integrity.protection.paths == frozenset({"tests/test_a.py"})
    assert integrity_of(task, ctx) is integrity  # one state per evaluation
    default = load_benchmark(bench(tmp_path))
    assert default.eval.policy == "strict" and default.eval.policy_options.max_patch_bytes == 10_000_000


@pytest.mark.parametrize("value", ["lots", "-1g", "5x"])
def test_a_bad_disk_limit_names_the_option(value: str) -> None:
    with pytest.raises(ConfigError, match=r"provider\.disk_limit"):
        DockerProvider({"name": "docker", "disk_limit": value}, this_run())


def test_disk_limit_sizes() -> None:
    assert parse_size("512m", "disk_limit") == 512 * 2**20
    assert parse_size("1.5g", "disk_limit") == int(1.5 * 2**30)
    assert parse_size(4096, "disk_limit") == 4096
    assert parse_size("off", "disk_limit") is None and parse_size(None, "disk_limit") is None


def test_a_run_with_a_bad_policy_stops_before_any_sandbox(swe_project: SweProject) -> None:
    swe_project.demo()
    run = swe_project.run("benchmarks/", "--swe-set", "eval.policy=lenient")
    assert run.result.ret != 0
    output = run.result.stdout.str() + run.result.stderr.str()
    assert "eval.policy: Input should be 'strict' or 'official'" in output
    assert not [c for c in run.cases if c.outcome in ("passed", "failed")]


def test_families_applying_the_patch_themselves_get_the_log_checks(tmp_path: Path) -> None:
    """Multi-SWE-bench's fix-run.sh applies the patch itself: the pipeline still reads its log, and
    a harness marker printed by the code under test is evidence the verdict cannot outlive."""
    from pytest_swe.api.verdict import Verdict
    from pytest_swe.grading import check_script_run
    from pytest_swe.grading import decide
    from pytest_swe.grading import inspect_model_patch

    settings = load_benchmark(bench(tmp_path))
    task = Task(family="x", instance_id="a", image="i", workdir="/home/repo")
    ctx = EvalContext(settings=settings, artifacts=tmp_path, timeout=60, output_limit=1024)
    inspect_model_patch(task, "diff --git a/x b/x\n", ctx)
    script = "set -x\n: '>>>>> Start Test Output'\nrun\n: '>>>>> End Test Output'\n"
    check_script_run(task, None, ctx, "+ : '>>>>> Start Test Output'\n>>>>> Start Test Output\n", script)  # type: ignore[arg-type]
    verdict = decide(Verdict(resolved=True, resolution="RESOLVED_FULL"), ctx)
    assert verdict.resolved is False and verdict.tamper[0].startswith("forged-marker:")
