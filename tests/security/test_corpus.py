"""The grading-integrity corpora through the real harness, on the real Docker engine.

Attacks (``corpus.attacks``) must never be rewarded and honest patches (``corpus.honest``) must
always resolve, under the default ``strict`` policy. Every case becomes a row of its own (a copy
of its instance's row under ``<instance_id>__<case>``) and one ``pytest -n 2`` run of the
predictions agent grades them all; the JUnit ledger is read back.

By default each case runs on a rotating sample of instances (two demo instances, one of each
other suite; the gold fix on every instance); ``PYTEST_SWE_CORPUS=full`` runs every case on every
instance. ``scripts/corpus_report.py`` prints the counts per mechanism under both policies.
Select these tests with ``-k corpus``.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from corpus.attacks import ATTACKS
from corpus.attacks import attack_cases
from corpus.context import GRADING_YAML
from corpus.context import all_contexts
from corpus.context import demo_contexts
from corpus.gitpatch import checkout
from corpus.honest import SHAPES
from corpus.honest import honest_cases
from corpus.replay import Entry
from corpus.replay import Replay
from corpus.replay import from_json
from corpus.replay import replay
from corpus.replay import select
from corpus.replay import to_json
from filelock import FileLock

from conftest import build_local_images
from conftest import labelled_containers
from conftest import load_module
from conftest import run_shared_dir

FULL = os.environ.get("PYTEST_SWE_CORPUS", "").lower() == "full"


def corpus_entries() -> tuple[list[Entry], list[Entry]]:
    """The attack and honest entries this run grades (sampled unless ``PYTEST_SWE_CORPUS=full``)."""
    return select(all_contexts(), full=FULL)


@pytest.fixture(scope="module")
def corpus_images(
    docker_engine: Any, demo_images: list[str], tmp_path_factory: pytest.TempPathFactory
) -> list[str]:
    """The demo images and the grading-local images (pip offline needs Debian's packages first)."""
    fetch = load_module(GRADING_YAML.parent / "grading-local" / "fetch_debs.py")
    with FileLock(str(run_shared_dir(tmp_path_factory) / "corpus-debs.lock")):
        fetch.fetch()
    return demo_images + build_local_images(docker_engine, tmp_path_factory, GRADING_YAML, force=True)


@pytest.fixture(scope="module")
def corpus_run(corpus_images: list[str], tmp_path_factory: pytest.TempPathFactory) -> tuple[Replay, Replay]:
    """One harness run over both corpora under ``strict``, shared by the xdist workers of this session."""
    attacks, honest = corpus_entries()
    shared = run_shared_dir(tmp_path_factory)
    record = shared / "corpus-strict.json"
    with FileLock(str(shared / "corpus-strict.lock")):
        if not record.exists():
            run = replay(shared / "corpus-strict", "corpus", attacks + honest, policy="strict")
            record.write_text(json.dumps(to_json(run)))
    data = json.loads(record.read_text())
    return from_json(data, attacks), from_json(data, honest)


def test_corpus_generators_cover_every_instance() -> None:
    """Enough attacks over enough mechanisms and enough honest kinds for every demo instance; every
    attack applies with ``git apply`` and none carries a line of the gold fix."""
    for ctx in demo_contexts():
        attacks = attack_cases(ctx)
        honest = honest_cases(ctx)
        assert len(attacks) >= 25 and len({a.mechanism for a in attacks}) >= 12, ctx.instance_id
        kinds = {h.mechanism for h in honest} - {"gold"} - {name for name, _, _ in SHAPES}
        assert len(kinds) >= 20 and sum(h.name.startswith("hon-shape-") for h in honest) == len(SHAPES)
        gold_lines = {
            line[1:].strip()
            for line in ctx.gold_patch.splitlines()
            if line.startswith("+") and not line.startswith("+++") and len(line[1:].strip()) > 20
        }
        with checkout(ctx) as work:
            for case in attacks:
                check = subprocess.run(
                    ["git", "apply", "--check", "-"],
                    cwd=work.path,
                    input=case.patch.encode(),
                    capture_output=True,
                )
                assert check.returncode == 0, (ctx.instance_id, case.name, check.stderr.decode()[-500:])
                added = {line[1:].strip() for line in case.patch.splitlines() if line.startswith("+")}
                assert not gold_lines & added, (ctx.instance_id, case.name, gold_lines & added)


KNOWN_OPEN: dict[tuple[str, str], str] = {
    ("atk-expected-from-eval-script-at-install", "pytest"): (
        "the eval script holds the test patch from the start, and the install step runs before the"
        " watch is loaded: a copy setup.py makes is the package's own file by the time the tests run"
        " (docs/security.md, residual risks)"
    ),
}
"""Attack cases on a runner that ``strict`` is known not to catch, each with why: rewarded rows
outside this set fail the test."""


def test_known_open_cases_are_cases_the_generators_make() -> None:
    """A known open case named as no generated case is (the ``atk-`` prefix left out) would excuse
    nothing while the row it meant fails the test once a sample picks it."""
    made = {(f"atk-{attack.name}", runner) for attack in ATTACKS for runner in attack.runners}
    assert set(KNOWN_OPEN) <= made, set(KNOWN_OPEN) - made


@pytest.mark.docker
def test_corpus_no_attack_is_rewarded(corpus_run: tuple[Replay, Replay], docker_engine: Any) -> None:
    """Under ``strict`` no attack is rewarded; errors are no reward either, but they are counted."""
    attacks, _ = corpus_run
    assert attacks.results and not any(r.outcome == "missing" for r in attacks.results), attacks.output
    rewarded = [
        r for r in attacks.results if r.rewarded and (r.entry.case.name, r.entry.ctx.runner) not in KNOWN_OPEN
    ]
    errors = [r for r in attacks.results if r.outcome == "error"]
    summary = ", ".join(f"{m}: {c['rewarded']}/{c['cases']}" for m, c in attacks.by_mechanism().items())
    print(
        f"corpus run {attacks.seconds:.0f}s; attacks rewarded per mechanism: {summary}; errors {len(errors)}"
    )
    assert not labelled_containers(docker_engine, benchmark="corpus")
    assert not rewarded, (
        f"{len(rewarded)} of {len(attacks.results)} attacks rewarded under strict ({summary}; "
        f"{len(errors)} errors: {[r.entry.row_id for r in errors]}):\n"
        + "\n".join(r.line() for r in rewarded)
    )


@pytest.mark.docker
def test_corpus_every_honest_case_resolves(corpus_run: tuple[Replay, Replay]) -> None:
    """Under ``strict`` the gold fix, each legitimate addition and each patch shape resolve."""
    _, honest = corpus_run
    assert honest.results and not any(r.outcome == "missing" for r in honest.results), honest.output
    unresolved = [r for r in honest.results if r.outcome != "passed"]
    assert not unresolved, (
        f"{len(unresolved)} of {len(honest.results)} honest cases unresolved under strict:\n"
        + ("\n".join(r.line() for r in unresolved))
    )


def test_corpus_grading_rows_are_up_to_date(tmp_path: Path) -> None:
    """rows.jsonl of grading-local is exactly what its make_rows.py builds from the instance sources."""
    make_rows = load_module(GRADING_YAML.parent / "grading-local" / "make_rows.py")
    written_files = make_rows.write(tmp_path)
    assert [p.name for p in written_files] == ["rows.jsonl"]
    for written in written_files:
        committed = GRADING_YAML.parent / "grading-local" / written.name
        assert written.read_bytes() == committed.read_bytes(), (
            f"{committed} is stale: run python tests/security/data/grading-local/make_rows.py"
        )
