"""The job scripts and submissions of ``pytest-swe slurm``, without a cluster.

The scripts are run with bash as Slurm would run them (``SLURM_ARRAY_TASK_ID`` set), with a fake
Python that records its arguments; sbatch is a fake runner that records its command lines.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.api.errors import ConfigError
from pytest_swe.tools import slurm
from pytest_swe.tools.cli import main as cli_main

FAKE_PYTHON = """#!/bin/bash
{ printf '%s\\n' "$@"; echo ---; } >> "$ARGV_FILE"
exit "${FAKE_STATUS:-0}"
"""


@pytest.fixture
def plan(tmp_path: Path) -> slurm.SlurmPlan:
    python = tmp_path / "bin" / "python"
    python.parent.mkdir()
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)
    return slurm.SlurmPlan(
        benchmarks=["benchmarks/demo.yaml"],
        shards=4,
        directory=tmp_path / "slurm run",  # a space: every path in the scripts is quoted
        workdir=tmp_path,
        pytest_args=["-k", "not slow", "--swe-retries", "1"],
        provider="docker",
        python=str(python),
        sbatch_args=["--partition=cpu"],
        shard_args=["--cpus-per-task=2"],
    )


def calls(path: Path) -> list[list[str]]:
    """The fake Python's argument lists, one per call."""
    if not path.exists():
        return []
    out: list[list[str]] = [[]]
    for line in path.read_text().splitlines():
        if line == "---":
            out.append([])
        else:
            out[-1].append(line)
    return out[:-1]


def run_script(
    script: str, tmp_path: Path, task: int | None = None, status: int = 0
) -> tuple[subprocess.CompletedProcess[str], list[list[str]]]:
    path = tmp_path / "job.sbatch"
    path.write_text(script)
    argv_file = tmp_path / f"argv-{len(list(tmp_path.glob('argv-*')))}"
    env = {**os.environ, "ARGV_FILE": str(argv_file), "FAKE_STATUS": str(status)}
    env.pop("SLURM_ARRAY_TASK_ID", None)
    if task is not None:
        env["SLURM_ARRAY_TASK_ID"] = str(task)
    done = subprocess.run(["bash", str(path)], capture_output=True, text=True, env=env, cwd=tmp_path)
    return done, calls(argv_file)


def sbatch_lines(script: str) -> list[str]:
    return [line.removeprefix("#SBATCH ") for line in script.splitlines() if line.startswith("#SBATCH ")]


def test_slurm_shard_script_header(plan: slurm.SlurmPlan) -> None:
    lines = sbatch_lines(slurm.shard_script(plan))
    assert "--array=1-4" in lines
    assert "--job-name=pytest-swe" in lines
    assert f"--chdir={plan.workdir}" in lines
    assert f"--output='{plan.directory}/logs/shard-%a.%A.out'" in lines
    assert "--partition=cpu" in lines and "--cpus-per-task=2" in lines
    merge = sbatch_lines(slurm.merge_script(plan))
    assert "--partition=cpu" in merge and "--cpus-per-task=2" not in merge
    assert "--job-name=pytest-swe-merge" in merge
    assert not any(line.startswith("--array") for line in merge)


def test_slurm_shard_task_runs_its_shard_into_its_own_run_dir(plan: slurm.SlurmPlan, tmp_path: Path) -> None:
    done, argvs = run_script(slurm.shard_script(plan), tmp_path, task=3)
    assert done.returncode == 0, done.stderr
    (argv,) = argvs
    assert argv[:4] == ["-m", "pytest", "benchmarks/demo.yaml", "--swe-provider"]
    assert argv[argv.index("--swe-shard") + 1] == "3/4"
    assert f"--junitxml={plan.directory}/junit/shard-3.xml" in argv
    assert argv[argv.index("--swe-run-dir") + 1] == str(plan.directory / "shard-3")
    assert "--swe-resume" not in argv
    assert argv[argv.index("-k") + 1] == "not slow"  # the user's arguments pass through, one word each
    assert (plan.directory / "shard-3" / slurm.EXIT_NAME).read_text() == "0\n"


def test_slurm_shard_task_resumes_an_existing_ledger(plan: slurm.SlurmPlan, tmp_path: Path) -> None:
    run = plan.directory / "shard-2"
    run.mkdir(parents=True)
    (run / "ledger.jsonl").write_text("{}\n")
    stale = plan.junit(2)
    stale.parent.mkdir(parents=True)
    stale.write_text("<testsuites/>")
    (run / slurm.EXIT_NAME).write_text("0\n")
    done, (argv,) = run_script(slurm.shard_script(plan), tmp_path, task=2, status=2)
    assert argv[argv.index("--swe-resume") + 1] == str(run)
    assert "--swe-run-dir" not in argv
    assert not stale.exists()  # a JUnit file of an earlier attempt never stands for this one
    assert done.returncode == 2  # an interrupted pytest is a failed task
    assert (run / slurm.EXIT_NAME).read_text() == "2\n"


@pytest.mark.parametrize(("status", "task_exit"), [(1, 0), (5, 0), (3, 3)])
def test_slurm_shard_task_exit_status(
    plan: slurm.SlurmPlan, tmp_path: Path, status: int, task_exit: int
) -> None:
    done, _ = run_script(slurm.shard_script(plan), tmp_path, task=1, status=status)
    assert done.returncode == task_exit
    assert (plan.directory / "shard-1" / slurm.EXIT_NAME).read_text() == f"{status}\n"


def test_slurm_shard_script_needs_an_array_task(plan: slurm.SlurmPlan, tmp_path: Path) -> None:
    done, argvs = run_script(slurm.shard_script(plan), tmp_path, task=None)
    assert done.returncode != 0 and "sbatch --array" in done.stderr
    assert argvs == []


def test_slurm_merge_script_takes_junit_else_ledger(plan: slurm.SlurmPlan, tmp_path: Path) -> None:
    plan.junit(1).parent.mkdir(parents=True)
    plan.junit(1).write_text("<testsuites/>")
    plan.run_dir(2).mkdir(parents=True)
    (plan.run_dir(2) / "ledger.jsonl").write_text("{}\n")
    plan.junit(4).write_text("<testsuites/>")
    done, argvs = run_script(slurm.merge_script(plan), tmp_path)
    assert done.returncode == 0, done.stderr
    merge, summary = argvs
    assert merge == [
        "-m",
        "pytest_swe.tools.cli",
        "merge",
        str(plan.merged),
        str(plan.junit(1)),
        str(plan.run_dir(2)),
        str(plan.junit(4)),
    ]
    assert summary[-2:] == ["report", str(plan.merged)]
    assert "shard 2: no JUnit file" in done.stderr and "shard 3: no results" in done.stderr


def test_slurm_merge_script_without_results_fails(plan: slurm.SlurmPlan, tmp_path: Path) -> None:
    done, argvs = run_script(slurm.merge_script(plan), tmp_path)
    assert done.returncode == 1 and "no shard left results" in done.stderr
    assert argvs == []


def finish(plan: slurm.SlurmPlan, shard: int, status: int, outcomes: list[str]) -> None:
    run = plan.run_dir(shard)
    run.mkdir(parents=True, exist_ok=True)
    (run / slurm.EXIT_NAME).write_text(f"{status}\n")
    if outcomes:
        lines = [{"nodeid": f"demo::i{n}", "outcome": o, "properties": {}} for n, o in enumerate(outcomes)]
        (run / "ledger.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_slurm_pending_shards(plan: slurm.SlurmPlan) -> None:
    finish(plan, 1, 1, ["passed", "failed"])  # finished, one unresolved
    finish(plan, 2, 0, ["passed", "error"])  # an infrastructure error runs again
    finish(plan, 3, 5, [])  # no item fell in this shard
    assert slurm.pending_shards(plan) == [2, 4]
    finish(plan, 4, 2, ["passed"])  # interrupted
    assert slurm.pending_shards(plan) == [2, 4]
    finish(plan, 4, 0, ["passed"])
    assert slurm.pending_shards(plan) == [2]


@pytest.mark.parametrize(
    ("shards", "spec"), [([1, 2, 3, 4], "1-4"), ([2, 4, 5, 6], "2,4-6"), ([3], "3"), ([5, 1, 2], "1-2,5")]
)
def test_slurm_array_spec(shards: list[int], spec: str) -> None:
    assert slurm.array_spec(shards) == spec


class FakeSbatch:
    """Records sbatch command lines and answers with job ids as ``sbatch --parsable`` does; answers
    squeue with the jobs in ``queued``."""

    def __init__(self, *answers: tuple[int, str], queued: tuple[str, ...] = ()) -> None:
        self.answers = list(answers)
        self.commands: list[list[str]] = []
        self.queued = queued
        self.asked: list[list[str]] = []

    def __call__(self, command: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        if command[0] == "squeue":
            self.asked.append(command)
            return subprocess.CompletedProcess(command, 0, "".join(f"{job}\n" for job in self.queued), "")
        self.commands.append(command)
        code, out = self.answers.pop(0)
        return subprocess.CompletedProcess(
            command, code, out, "sbatch: error: invalid partition" if code else ""
        )


def test_slurm_submit_array_then_dependent_merge(plan: slurm.SlurmPlan) -> None:
    sbatch = FakeSbatch((0, "41\n"), (0, "42;cluster\n"))
    done = slurm.submit(plan, run=sbatch)
    array, merge = sbatch.commands
    assert array == ["sbatch", "--parsable", "--array=1-4", str(plan.directory / slurm.SHARD_SCRIPT)]
    assert merge == [
        "sbatch",
        "--parsable",
        "--dependency=afterany:41",
        str(plan.directory / slurm.MERGE_SCRIPT),
    ]
    assert (done.array_job, done.merge_job, done.shards) == ("41", "42", [1, 2, 3, 4])
    assert (plan.directory / slurm.SHARD_SCRIPT).read_text() == slurm.shard_script(plan)
    state = json.loads((plan.directory / slurm.STATE_NAME).read_text())
    assert state["shards"] == 4 and state["benchmarks"] == ["benchmarks/demo.yaml"]
    assert state["submissions"][0]["array_job"] == "41"


def test_slurm_resubmission_submits_only_unfinished_shards(plan: slurm.SlurmPlan) -> None:
    slurm.submit(plan, run=FakeSbatch((0, "41"), (0, "42")))
    for shard in (1, 2, 4):
        finish(plan, shard, 0, ["passed"])
    sbatch = FakeSbatch((0, "50"), (0, "51"))
    slurm.submit(plan, run=sbatch)
    assert sbatch.commands[0][2] == "--array=3"
    finish(plan, 3, 0, ["passed"])
    sbatch = FakeSbatch((0, "60"))
    done = slurm.submit(plan, run=sbatch, wait=True)
    (merge,) = sbatch.commands  # every shard finished: only the merge, with nothing to wait for
    assert not any(part.startswith("--dependency") for part in merge) and "--wait" in merge
    assert done.array_job is None and done.merge_job == "60"
    state = json.loads((plan.directory / slurm.STATE_NAME).read_text())
    assert [s["shards"] for s in state["submissions"]] == [[1, 2, 3, 4], [3], []]


def test_slurm_submission_of_another_plan_into_the_same_dir_is_refused(plan: slurm.SlurmPlan) -> None:
    slurm.submit(plan, run=FakeSbatch((0, "41"), (0, "42")))
    plan.shards = 8
    with pytest.raises(ConfigError, match="in 4 shard"):
        slurm.submit(plan, run=FakeSbatch())


def test_slurm_failed_sbatch_is_a_config_error(plan: slurm.SlurmPlan) -> None:
    with pytest.raises(ConfigError, match="invalid partition"):
        slurm.submit(plan, run=FakeSbatch((1, "")))


def test_slurm_wait_returns_the_merge_status(plan: slurm.SlurmPlan) -> None:
    done = slurm.submit(plan, run=FakeSbatch((0, "41"), (3, "42")), wait=True)
    assert done.merge_status == 3


def test_slurm_cli_dry_run_prints_the_scripts_and_passes_pytest_args(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["slurm", "benchmarks/demo.yaml", "--shards", "3", "--dir", "out", "--dry-run"]
    status = cli_main([*argv, "--", "-x", "--swe-retries", "2"])
    assert status == 0
    printed = capsys.readouterr().out
    assert "#SBATCH --array=1-3" in printed
    assert '-p no:cacheprovider -x --swe-retries 2 --swe-shard "$shard/3"' in printed
    assert "sbatch --parsable --array=1-3" in printed and "--dependency=afterany:{array}" in printed
    assert not (tmp_path / "out").exists()  # a dry run writes nothing


def test_slurm_cli_reports_a_missing_sbatch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["slurm", "b.yaml", "--shards", "2", "--dir", "out", "--sbatch", str(tmp_path / "no-sbatch")]
    assert cli_main(argv) == 2
    assert "is Slurm installed here?" in capsys.readouterr().err


@pytest.mark.parametrize("arg", ["--swe-shard", "--junitxml=x.xml", "--swe-resume"])
def test_slurm_refuses_the_options_it_sets_per_shard(tmp_path: Path, arg: str) -> None:
    with pytest.raises(ConfigError, match=arg.split("=")[0]):
        slurm.SlurmPlan(["b.yaml"], 2, tmp_path, tmp_path, pytest_args=["-x", arg, "1/2"])


def test_slurm_resubmission_waits_for_the_last_jobs_to_end(plan: slurm.SlurmPlan) -> None:
    slurm.submit(plan, run=FakeSbatch((0, "41"), (0, "42")))
    busy = FakeSbatch(queued=("41",))
    with pytest.raises(ConfigError, match=r"41 of .* still queued or running"):
        slurm.submit(plan, run=busy)
    assert busy.commands == []  # nothing submitted
    assert busy.asked == [["squeue", "-h", "-o", "%F", "-t", slurm.LIVE_STATES, "-j", "41,42"]]
    idle = FakeSbatch((0, "50"), (0, "51"), queued=("7",))  # other users' jobs do not count
    assert slurm.submit(plan, run=idle).array_job == "50"
