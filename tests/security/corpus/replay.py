"""Grading a corpus through the real harness: one dataset, one predictions file, one pytest run.

Each case becomes a row of its own: a copy of its instance's row (same image, eval script and
tests) under the id ``<instance_id>__<case name>``, with the case's patch as that id's prediction.
One ``pytest -n 2`` run of the predictions agent then grades the whole corpus on the Docker engine
and the JUnit ledger is read back into one :class:`Result` per case.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml

from pytest_swe.tools import report

from .context import Case
from .context import InstanceContext


@dataclass(frozen=True)
class Entry:
    """A case on the instance it was generated for."""

    ctx: InstanceContext
    case: Case

    @property
    def row_id(self) -> str:
        return f"{self.ctx.instance_id}__{self.case.name}"


@dataclass(frozen=True)
class Result:
    entry: Entry
    outcome: str
    """The JUnit outcome: passed (resolved), failed, error, skipped; ``missing`` if no testcase."""
    reward: float
    message: str
    apply_in: str = ""
    """Which command applied the patch (the item's ``apply_in`` property; empty where none did)."""

    @property
    def rewarded(self) -> bool:
        return self.outcome == "passed" or self.reward > 0

    def line(self) -> str:
        """One line for a failure message: the case, its mechanism and what the harness said."""
        said = " ".join(self.message.split())[:300]
        return f"{self.entry.row_id} [{self.entry.case.mechanism}] {self.outcome}: {said}"


@dataclass
class Replay:
    results: list[Result]
    seconds: float
    exit_code: int
    output: str

    def by_apply(self) -> dict[str, int]:
        """How many rows had their patch applied in which command (``apply_in``; ``none``: no apply)."""
        return dict(sorted(Counter(r.apply_in or "none" for r in self.results).items()))

    def by_mechanism(self) -> dict[str, Counter[str]]:
        """mechanism -> counts of ``cases``, ``rewarded``, ``errors``."""
        table: dict[str, Counter[str]] = {}
        for r in self.results:
            counts = table.setdefault(r.entry.case.mechanism, Counter())
            counts["cases"] += 1
            counts["rewarded"] += r.rewarded
            counts["errors"] += r.outcome in ("error", "missing")
        return dict(sorted(table.items()))


def entries(contexts: Iterable[InstanceContext], generate) -> list[Entry]:  # type: ignore[no-untyped-def]
    """Every case ``generate(ctx)`` returns, for every context."""
    return [Entry(ctx, case) for ctx in contexts for case in generate(ctx)]


def write_corpus(
    directory: Path, name: str, corpus: list[Entry], *, policy: str, eval_timeout: int = 120
) -> tuple[Path, Path]:
    """The benchmark file (over the corpus dataset) and the predictions file; returns both paths."""
    directory.mkdir(parents=True, exist_ok=True)
    ids = [e.row_id for e in corpus]
    duplicates = [i for i, n in Counter(ids).items() if n > 1]
    if duplicates:
        raise ValueError(f"case ids repeat: {duplicates[:5]}")
    rows = [{**e.ctx.row, "instance_id": e.row_id} for e in corpus]
    dataset = directory / f"{name}.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    preds = directory / f"{name}-predictions.jsonl"
    preds.write_text(
        "".join(
            json.dumps({"instance_id": e.row_id, "model_name_or_path": name, "model_patch": e.case.patch})
            + "\n"
            for e in corpus
        ),
        encoding="utf-8",
    )
    settings = {
        "name": name,
        "family": "swe-bench",
        "dataset": {"source": str(dataset), "split": "test"},
        "markers": ["corpus"],
        "agent": "predictions",
        "provider": "docker",
        "timeouts": {"agent": 120, "eval": eval_timeout, "sandbox": 120, "command": 120},
        "limits": {"memory": "1g", "cpus": 1, "pids": 512},
        "network": {"agent": False, "eval": False},
        "eval": {"policy": policy},
    }
    benchmarks = directory / "benchmarks"
    benchmarks.mkdir(exist_ok=True)
    bench = benchmarks / f"{name}.yaml"
    bench.write_text(yaml.safe_dump(settings, sort_keys=False), encoding="utf-8")
    return bench, preds


def replay(
    directory: Path,
    name: str,
    corpus: list[Entry],
    *,
    policy: str = "strict",
    workers: int = 2,
    timeout: float = 3600,
    python: str = sys.executable,
) -> Replay:
    """Grade ``corpus`` in one pytest run in ``directory`` under ``policy``; read the ledger back."""
    bench, preds = write_corpus(directory, name, corpus, policy=policy)
    junit = directory / f"{name}-junit.xml"
    command = [
        python, "-m", "pytest", str(bench.relative_to(directory)), "-n", str(workers),
        "--swe-agent", "predictions", "--swe-predictions", str(preds),
        "--swe-set", f"eval.policy={policy}", "--swe-set", "provider.pull=never",
        "--swe-no-cache",  # every case graded in its sandbox: a replayed verdict proves nothing
        f"--junitxml={junit}", f"--swe-run-dir={directory / (name + '-run')}",
        "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-q",
    ]  # fmt: skip
    started = time.monotonic()
    proc = subprocess.run(
        command,
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    seconds = time.monotonic() - started
    cases = {c.instance_id: c for c in report.read_cases(junit)} if junit.exists() else {}
    results = []
    for entry in corpus:
        case = cases.get(entry.row_id)
        if case is None:
            results.append(Result(entry, "missing", 0.0, "no testcase in the JUnit file"))
        else:
            reward = float(case.properties.get("reward", "0") or 0)
            results.append(
                Result(entry, case.outcome, reward, case.message, case.properties.get("apply_in", ""))
            )
    return Replay(results, seconds, proc.returncode, proc.stdout[-6000:] + proc.stderr[-3000:])


# --- choosing which instances get which case -------------------------------------------------------


def suite_of(ctx: InstanceContext) -> str:
    """Instances of one suite are interchangeable for a case: same source of rows, same runner."""
    source = "demo" if ctx.instance_id.startswith("demo__") else "local"
    return f"{source}-{ctx.runner}"


def spread(corpus: list[Entry], per_suite: dict[str, int] | int) -> list[Entry]:
    """Each case name on only ``per_suite`` instances of each suite, rotating by case, so that every
    instance still gets cases and every case still runs in every suite that can take it.

    The full cross product is the measurement; this is the sample a test run can afford.
    """
    names = list(dict.fromkeys(e.case.name for e in corpus))
    by_key: dict[tuple[str, str], list[Entry]] = {}
    for entry in corpus:
        by_key.setdefault((entry.case.name, suite_of(entry.ctx)), []).append(entry)
    chosen: list[Entry] = []
    for (name, suite), group in by_key.items():
        k = per_suite if isinstance(per_suite, int) else per_suite.get(suite, 1)
        offset = names.index(name)
        chosen += [group[(offset + j) % len(group)] for j in range(min(k, len(group)))]
    order = {id(e): i for i, e in enumerate(corpus)}
    return sorted(chosen, key=lambda e: order[id(e)])


def to_json(run: Replay) -> dict[str, object]:
    return {
        "seconds": run.seconds,
        "exit_code": run.exit_code,
        "output": run.output,
        "results": {r.entry.row_id: [r.outcome, r.reward, r.message] for r in run.results},
    }


def from_json(data: dict[str, object], corpus: list[Entry]) -> Replay:
    recorded = data["results"]
    assert isinstance(recorded, dict)
    results = []
    for entry in corpus:
        outcome, reward, message = recorded.get(entry.row_id, ["missing", 0.0, "not in the recorded run"])
        results.append(Result(entry, outcome, float(reward), message))
    return Replay(results, float(data["seconds"]), int(data["exit_code"]), str(data["output"]))  # type: ignore[arg-type]


def rotate_all(corpus: list[Entry]) -> list[Entry]:
    """Each case on one instance, the instance advancing with every case (path rules do not depend
    on the runner, so honest cases rotate over every instance)."""
    names = list(dict.fromkeys(e.case.name for e in corpus))
    ids = list(dict.fromkeys(e.ctx.instance_id for e in corpus))
    chosen = []
    for i, name in enumerate(names):
        candidates = [e for e in corpus if e.case.name == name]
        preferred = ids[i % len(ids)]
        chosen.append(
            next((e for e in candidates if e.ctx.instance_id == preferred), candidates[i % len(candidates)])
        )
    return chosen


#: How many instances of a suite get each attack in the sample (other suites: one).
ATTACK_SAMPLE = {"demo-pytest": 2}


def select(contexts: Iterable[InstanceContext], *, full: bool = False) -> tuple[list[Entry], list[Entry]]:
    """The attack and honest entries to grade: every case on every instance when ``full``, else the
    sample a test run affords (each attack on two demo instances and on one instance of each other
    suite; the gold fix on every instance; each other honest case on one instance, rotating)."""
    from .attacks import attack_cases
    from .honest import honest_cases

    contexts = list(contexts)
    attacks = entries(contexts, attack_cases)
    honest = entries(contexts, honest_cases)
    if full:
        return attacks, honest
    gold = [e for e in honest if e.case.name == "hon-gold"]
    return spread(attacks, ATTACK_SAMPLE), gold + rotate_all([e for e in honest if e.case.name != "hon-gold"])
