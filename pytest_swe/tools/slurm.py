"""``pytest-swe slurm``: one Slurm array job of ``--swe-shard`` runs and a dependent merge job.

Each array task runs ``pytest BENCHMARK... --swe-shard $SLURM_ARRAY_TASK_ID/N`` with the node's
own sandbox provider, into a run directory and a JUnit file of its own; a second job, submitted
with ``--dependency=afterany:<array job>``, joins them with ``pytest-swe merge`` into one JUnit
ledger. pytest stays the scheduler inside each task; Slurm only places the shards.

Everything lives under one directory (``--dir``)::

    DIR/slurm.json                 what was submitted (benchmarks, shards, every submission's job ids)
    DIR/shard.sbatch, merge.sbatch the two job scripts
    DIR/shard-I/                   shard I's run directory (ledger.jsonl, artifacts, slurm-exit)
    DIR/junit/shard-I.xml          shard I's JUnit file
    DIR/logs/                      the jobs' output
    DIR/merged.xml                 the merged ledger

Submitting again with the same ``--dir`` resumes per shard: shards that finished are not
submitted again, and a shard whose ledger exists continues it with ``--swe-resume`` (its finished
items are replayed, not run).
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from pytest_swe.api.errors import ConfigError
from pytest_swe.runner.ledger import LEDGER_NAME
from pytest_swe.runner.ledger import LedgerFormatError
from pytest_swe.runner.ledger import read_entries

STATE_NAME = "slurm.json"
SHARD_SCRIPT = "shard.sbatch"
MERGE_SCRIPT = "merge.sbatch"
MERGED_NAME = "merged.xml"
EXIT_NAME = "slurm-exit"
#: pytest exit statuses of a shard that ran to its end: all passed, some item unresolved, no item
#: fell in this shard. Anything else (interrupted, internal or usage error) leaves it unfinished.
FINISHED_STATUSES = (0, 1, 5)

#: Job states in which a job may still write its shard (pending, running, suspended, completing, configuring).
LIVE_STATES = "PD,R,S,CG,CF"
#: The pytest options each task's script sets: not the user's to give after ``--``.
OWN_OPTIONS = ("--swe-shard", "--swe-run-dir", "--swe-resume", "--junitxml", "--junit-xml")

Runner = Callable[..., "subprocess.CompletedProcess[str]"]


@dataclass
class SlurmPlan:
    """What to submit: the benchmarks, the shard count and where the shards' results go."""

    benchmarks: list[str]
    shards: int
    directory: Path
    workdir: Path
    pytest_args: list[str] = field(default_factory=list)
    provider: str | None = None
    python: str = sys.executable
    job_name: str = "pytest-swe"
    sbatch_args: list[str] = field(default_factory=list)
    """Extra ``#SBATCH`` options of both jobs (``--partition=gpu``, ``--time=4:00:00``, ...)."""
    shard_args: list[str] = field(default_factory=list)
    """Extra ``#SBATCH`` options of the array tasks only (``--cpus-per-task=8``, ``--mem=32G``)."""

    def __post_init__(self) -> None:
        if self.shards < 1:
            raise ConfigError(f"--shards {self.shards}: at least one shard")
        if not self.benchmarks:
            raise ConfigError("pytest-swe slurm: name at least one benchmark file")
        taken = [a for a in self.pytest_args if a.split("=", 1)[0] in OWN_OPTIONS]
        if taken:
            raise ConfigError(
                f"pytest-swe slurm sets {', '.join(OWN_OPTIONS)} for each shard itself: "
                f"do not pass {', '.join(taken)}"
            )
        self.directory = Path(self.directory).absolute()
        self.workdir = Path(self.workdir).absolute()

    def run_dir(self, shard: int) -> Path:
        return self.directory / f"shard-{shard}"

    def junit(self, shard: int) -> Path:
        return self.directory / "junit" / f"shard-{shard}.xml"

    @property
    def merged(self) -> Path:
        return self.directory / MERGED_NAME

    @property
    def logs(self) -> Path:
        return self.directory / "logs"

    def identity(self) -> dict[str, Any]:
        """What must not change between submissions into one directory (shards would mix items)."""
        return {"benchmarks": list(self.benchmarks), "shards": self.shards}


def _q(value: object) -> str:
    return shlex.quote(str(value))


def _header(plan: SlurmPlan, name: str, output: str, extra: Sequence[str]) -> list[str]:
    lines = [
        "#!/bin/bash",
        f"#SBATCH --job-name={_q(name)}",
        f"#SBATCH --output={_q(output)}",
        f"#SBATCH --chdir={_q(plan.workdir)}",
    ]
    lines += [f"#SBATCH {arg}" for arg in (*plan.sbatch_args, *extra)]
    return lines


def pytest_command(plan: SlurmPlan) -> list[str]:
    """The shard's pytest command, up to the run-directory option the script picks at run time."""
    command = [plan.python, "-m", "pytest", *plan.benchmarks]
    if plan.provider:
        command += ["--swe-provider", plan.provider]
    # The cache plugin off: every task shares the working directory, and nothing reads the cache.
    command += ["-p", "no:cacheprovider", *plan.pytest_args]
    return command


def shard_script(plan: SlurmPlan) -> str:
    """The array job: task I runs shard I of N and records pytest's exit status beside its ledger."""
    run = _q(plan.directory) + '/shard-"$shard"'
    junit = _q(plan.directory / "junit") + '/shard-"$shard".xml'
    lines = _header(
        plan,
        plan.job_name,
        str(plan.logs / "shard-%a.%A.out"),
        [f"--array=1-{plan.shards}", *plan.shard_args],
    )
    lines += [
        f"# Shard $SLURM_ARRAY_TASK_ID of {plan.shards}: written by pytest-swe slurm; submitted again it",
        "# continues the shard's run directory with --swe-resume.",
        "set -u",
        'shard="${SLURM_ARRAY_TASK_ID:?submit this script with sbatch --array}"',
        f"run={run}",
        f"junit={junit}",
        'mkdir -p "$(dirname "$junit")"',
        'rm -f "$junit" "$run/' + EXIT_NAME + '"',
        'if [ -f "$run/' + LEDGER_NAME + '" ]; then',
        '  start=(--swe-resume "$run")',
        "else",
        '  start=(--swe-run-dir "$run")',
        "fi",
        " ".join(_q(arg) for arg in pytest_command(plan))
        + f' --swe-shard "$shard/{plan.shards}" --junitxml="$junit" "${{start[@]}}"',
        "status=$?",
        'mkdir -p "$run"',
        'echo "$status" > "$run/' + EXIT_NAME + '"',
        "# An unresolved item (1) or a shard without items (5) is a result, not a failed task.",
        "case $status in " + "|".join(map(str, FINISHED_STATUSES)) + ') exit 0 ;; *) exit "$status" ;; esac',
    ]
    return "\n".join(lines) + "\n"


def merge_script(plan: SlurmPlan) -> str:
    """The dependent job: merge every shard's JUnit file (its ledger when the JUnit file is missing)."""
    lines = _header(plan, f"{plan.job_name}-merge", str(plan.logs / "merge.%j.out"), [])
    cli = [plan.python, "-m", "pytest_swe.tools.cli"]
    lines += [
        "# Joins the shards' results: written by pytest-swe slurm.",
        "set -u",
        "inputs=()",
        f"for shard in $(seq 1 {plan.shards}); do",
        f'  junit={_q(plan.directory / "junit")}/shard-"$shard".xml',
        f'  run={_q(plan.directory)}/shard-"$shard"',
        '  if [ -f "$junit" ]; then',
        '    inputs+=("$junit")',
        '  elif [ -f "$run/' + LEDGER_NAME + '" ]; then',
        '    echo "shard $shard: no JUnit file (the task did not end); merging its ledger" >&2',
        '    inputs+=("$run")',
        "  else",
        '    echo "shard $shard: no results" >&2',
        "  fi",
        "done",
        'if [ "${#inputs[@]}" -eq 0 ]; then echo "no shard left results" >&2; exit 1; fi',
        " ".join(_q(arg) for arg in cli) + f' merge {_q(plan.merged)} "${{inputs[@]}}" || exit $?',
        " ".join(_q(arg) for arg in cli) + f" report {_q(plan.merged)}",
    ]
    return "\n".join(lines) + "\n"


# --- state of a directory ----------------------------------------------------------------------


def shard_finished(plan: SlurmPlan, shard: int) -> bool:
    """Whether shard ``shard`` ran to its end and left no item to run again (no infrastructure error)."""
    run = plan.run_dir(shard)
    try:
        status = int((run / EXIT_NAME).read_text().strip())
    except (OSError, ValueError):
        return False
    if status not in FINISHED_STATUSES:
        return False
    ledger = run / LEDGER_NAME
    if not ledger.exists():
        return status == 5
    try:
        entries = read_entries(ledger)
    except LedgerFormatError:
        return False
    return all(entry.get("outcome") != "error" for entry in entries.values())


def pending_shards(plan: SlurmPlan) -> list[int]:
    return [shard for shard in range(1, plan.shards + 1) if not shard_finished(plan, shard)]


def array_spec(shards: Sequence[int]) -> str:
    """``1-4`` or ``2,5-7``: the shards as Slurm's ``--array`` ranges."""
    parts: list[str] = []
    ordered = sorted(set(shards))
    start = prev = ordered[0] if ordered else 0
    for shard in [*ordered[1:], None]:
        if shard is not None and shard == prev + 1:
            prev = shard
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if shard is not None:
            start = prev = shard
    return ",".join(parts)


def load_state(plan: SlurmPlan) -> dict[str, Any]:
    """The directory's record of earlier submissions; a ConfigError when they were of another plan."""
    path = plan.directory / STATE_NAME
    if not path.exists():
        return {**plan.identity(), "submissions": []}
    try:
        state = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: unreadable ({exc})") from None
    recorded = {key: state.get(key) for key in plan.identity()}
    if recorded != plan.identity():
        raise ConfigError(
            f"{plan.directory} holds a run of {recorded['benchmarks']} in {recorded['shards']} shard(s): "
            "submit the same benchmarks and --shards to resume it, or choose another --dir"
        )
    return dict(state)


# --- submission --------------------------------------------------------------------------------


@dataclass
class Submission:
    shards: list[int]
    array_job: str | None
    merge_job: str
    commands: list[list[str]]
    merge_status: int | None = None
    """The merge job's exit status, when the submission waited for it (``--wait``)."""


def sbatch_commands(
    plan: SlurmPlan, shards: Sequence[int], *, sbatch: str = "sbatch", wait: bool = False
) -> list[list[str]]:
    """The sbatch command lines: the array (only ``shards``, when any) and the merge job after it.

    ``{array}`` in the merge command stands for the array job's id, known once it is submitted.
    """
    commands = []
    merge = [sbatch, "--parsable"]
    if shards:
        commands.append(
            [sbatch, "--parsable", f"--array={array_spec(shards)}", str(plan.directory / SHARD_SCRIPT)]
        )
        merge.append("--dependency=afterany:{array}")
    if wait:
        merge.append("--wait")
    commands.append([*merge, str(plan.directory / MERGE_SCRIPT)])
    return commands


def _job_id(output: str) -> str:
    """The job id of ``sbatch --parsable`` (``id`` or ``id;cluster``)."""
    return output.strip().splitlines()[-1].split(";")[0] if output.strip() else ""


def write_scripts(plan: SlurmPlan) -> None:
    plan.directory.mkdir(parents=True, exist_ok=True)
    plan.logs.mkdir(exist_ok=True)
    (plan.directory / SHARD_SCRIPT).write_text(shard_script(plan))
    (plan.directory / MERGE_SCRIPT).write_text(merge_script(plan))


def still_queued(state: dict[str, Any], *, squeue: str = "squeue", run: Runner = subprocess.run) -> list[str]:
    """The jobs of the last submission that Slurm still lists (pending or running)."""
    last = (state.get("submissions") or [{}])[-1]
    jobs = [str(job) for job in (last.get("array_job"), last.get("merge_job")) if job]
    if not jobs:
        return []
    try:
        # A job that has ended is not listed (or its id is no longer known: a non-zero exit).
        done = run(
            [squeue, "-h", "-o", "%F", "-t", LIVE_STATES, "-j", ",".join(jobs)],
            capture_output=True,
            text=True,
        )
    except OSError:
        return []
    listed = {line.strip() for line in done.stdout.splitlines() if line.strip()}
    return [job for job in jobs if job in listed] if done.returncode == 0 else []


def submit(
    plan: SlurmPlan,
    *,
    sbatch: str = "sbatch",
    squeue: str = "squeue",
    wait: bool = False,
    run: Runner = subprocess.run,
) -> Submission:
    """Write the scripts, submit the unfinished shards and the merge job; record both in slurm.json.

    Refused while an earlier submission's jobs are still queued or running: two tasks of one
    shard would write one run directory.
    """
    state = load_state(plan)
    queued = still_queued(state, squeue=squeue, run=run)
    if queued:
        raise ConfigError(
            f"job(s) {', '.join(queued)} of {plan.directory} are still queued or running: "
            "wait for them (or scancel them) before submitting again"
        )
    write_scripts(plan)
    shards = pending_shards(plan)
    commands = sbatch_commands(plan, shards, sbatch=sbatch, wait=wait)
    array_job: str | None = None
    merge_job = ""
    merge_status: int | None = None
    submitted: list[list[str]] = []
    for index, command in enumerate(commands):
        command = [part.replace("{array}", array_job or "") for part in command]
        submitted.append(command)
        is_merge = index == len(commands) - 1
        try:
            done = run(command, capture_output=True, text=True)
        except OSError as exc:
            raise ConfigError(f"cannot run {command[0]} ({exc}): is Slurm installed here?") from None
        job = _job_id(done.stdout)
        # With --wait, sbatch exits with the merge job's status once it ends: a job id says it was submitted.
        if done.returncode != 0 and not (is_merge and wait and job):
            raise ConfigError(f"{shlex.join(command)} failed ({done.returncode}): {done.stderr.strip()}")
        if is_merge:
            merge_job = job
            merge_status = done.returncode if wait else None
        else:
            array_job = job
    result = Submission(shards, array_job, merge_job, submitted, merge_status)
    state["submissions"] = [
        *state.get("submissions", []),
        {"time": time.time(), "shards": shards, "array_job": array_job, "merge_job": merge_job},
    ]
    (plan.directory / STATE_NAME).write_text(json.dumps(state, indent=2) + "\n")
    return result


def dry_run(plan: SlurmPlan, *, sbatch: str = "sbatch", wait: bool = False) -> str:
    """The two scripts and the sbatch commands, as text; nothing is written or submitted."""
    shards = pending_shards(plan)
    commands = sbatch_commands(plan, shards, sbatch=sbatch, wait=wait)
    parts = [
        f"# {plan.directory / SHARD_SCRIPT}",
        shard_script(plan),
        f"# {plan.directory / MERGE_SCRIPT}",
        merge_script(plan),
        "# submitted with",
        *(shlex.join(command) for command in commands),
    ]
    return "\n".join(parts) + "\n"
