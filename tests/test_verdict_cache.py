"""The verdict cache: a change in any one part of the key misses; an unchanged evaluation is
re-emitted from the cache with no sandbox (read back from JUnit); a corrupt entry is a miss;
xdist workers share one cache."""

from __future__ import annotations

import importlib
import json
import multiprocessing
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.api.task import Task
from pytest_swe.api.verdict import Verdict
from pytest_swe.grading import cachekey
from pytest_swe.runner.cache import CachedVerdict
from pytest_swe.runner.cache import DirectoryStore
from pytest_swe.runner.cache import VerdictCache

from conftest import DEMO_DIR
from conftest import SweProject
from conftest import labelled_containers

PREDICTIONS = DEMO_DIR / "predictions-wrong.jsonl"


class Images:
    """A provider that names images by content (only the part of one the key reads)."""

    def __init__(self, ids: dict[str, str]) -> None:
        self.ids = ids

    def image_id(self, tag: str) -> str | None:
        return self.ids.get(tag)


class Family:
    name = "swe-bench"
    grader_version = "swebench-5.0.2"


def _task(**changes: Any) -> Task:
    fields: dict[str, Any] = {
        "family": "swe-bench",
        "instance_id": "acme__x-1",
        "image": "acme/x:1",
        "eval_script": "pytest tests/test_x.py",
        "test_patch": "diff --git a/tests/test_x.py b/tests/test_x.py\n",
        "fail_to_pass": ["tests/test_x.py::test_a"],
        "pass_to_pass": ["tests/test_x.py::test_b"],
        "problem_statement": "x is broken",
        "raw": {"problem_statement": "x is broken", "eval_type": "pass_and_fail"},
    }
    return Task(**{**fields, **changes})


def _settings(**changes: Any) -> BenchmarkSettings:
    fields: dict[str, Any] = {
        "name": "x",
        "family": "swe-bench",
        "dataset": {"source": "rows.jsonl"},
        "agent": {"name": "gold"},
        "provider": {"name": "docker"},
    }
    return BenchmarkSettings(**{**fields, **changes})


def _key(
    task: Task | None = None,
    patch: str = "diff --git a/x.py b/x.py\n",
    settings: BenchmarkSettings | None = None,
    family: Any = None,
    image: str = "sha256:aaa",
) -> str | None:
    task = task or _task()
    cache = VerdictCache(DirectoryStore(Path("/nonexistent")))
    return cache.key(task, patch, settings or _settings(), family or Family(), Images({task.image: image}))  # type: ignore[arg-type]


class OtherGrader(Family):
    grader_version = "swebench-5.0.3"


class OtherFamily(Family):
    name = "swe-rebench"


CHANGES: dict[str, Callable[[], str | None]] = {
    "image id": lambda: _key(image="sha256:bbb"),
    "eval script": lambda: _key(_task(eval_script="pytest -x tests/test_x.py")),
    "test patch": lambda: _key(_task(test_patch="diff --git a/tests/test_y.py b/tests/test_y.py\n")),
    "model patch": lambda: _key(patch="diff --git a/y.py b/y.py\n"),
    "row field FAIL_TO_PASS": lambda: _key(_task(fail_to_pass=["tests/test_x.py::test_c"])),
    "row field of the raw row": lambda: _key(_task(raw={"eval_type": "fail_only"})),
    "row field log_parser": lambda: _key(_task(log_parser="parse_log_pytest_v2")),
    "family": lambda: _key(_task(family="swe-rebench"), family=OtherFamily()),
    "grader version": lambda: _key(family=OtherGrader()),
    "policy": lambda: _key(settings=_settings(eval={"policy": "official"})),
    "policy option": lambda: _key(settings=_settings(eval={"policy_options": {"max_patch_bytes": 100}})),
    "family option": lambda: _key(settings=_settings(family_options={"x": 1})),
    "eval timeout": lambda: _key(settings=_settings(timeouts={"eval": 5})),
}


@pytest.mark.parametrize("part", sorted(CHANGES))
def test_changing_one_key_part_misses(part: str, tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path)
    base = _key()
    assert base is not None
    store.put(base, CachedVerdict(verdict=Verdict(resolved=True).model_dump(mode="json"), artifacts={}))
    assert store.get(base) is not None
    changed = CHANGES[part]()
    assert changed is not None and changed != base
    assert store.get(changed) is None


def test_what_grading_never_reads_keeps_the_key() -> None:
    """A reworded problem statement is the same evaluation."""
    reworded = _task(
        problem_statement="x fails", raw={"problem_statement": "x fails", "eval_type": "pass_and_fail"}
    )
    assert _key(reworded) == _key()


def test_an_image_that_is_not_here_cannot_be_keyed() -> None:
    task = _task()
    cache = VerdictCache(DirectoryStore(Path("/nonexistent")))
    assert cache.key(task, "", _settings(), Family(), Images({})) is None  # type: ignore[arg-type]
    assert cache.key(task, "", _settings(), Family(), object()) is None  # type: ignore[arg-type]


def test_a_parser_change_changes_the_code_digest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A third-party family's module is part of the grading code: editing its parser misses."""
    module = tmp_path / "acme_family_cache.py"
    module.write_text("def parse(log):\n    return {}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = importlib.import_module("acme_family_cache")
    family = type("AcmeFamily", (), {"__module__": mod.__name__})()
    assert cachekey.family_modules(family) == ("acme_family_cache",)
    before = cachekey.code_digest(cachekey.family_modules(family))
    module.write_text("def parse(log):\n    return {'x': 'PASSED'}\n")
    cachekey.code_digest.cache_clear()
    try:
        assert cachekey.code_digest(cachekey.family_modules(family)) != before
    finally:
        cachekey.code_digest.cache_clear()
        sys.modules.pop("acme_family_cache", None)


def test_corrupt_and_foreign_entries_are_misses(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path)
    entry = CachedVerdict(
        verdict=Verdict(resolved=True).model_dump(mode="json"), artifacts={"eval.log": b"ok"}
    )
    store.put("ab" * 32, entry)
    path = store.path("ab" * 32)
    assert store.get("ab" * 32) == entry
    text = path.read_text()
    for broken in (text[: len(text) // 2], "", "[]", text.replace("b2s=", "eHg="), "\x00\xff"):
        path.write_text(broken)
        assert store.get("ab" * 32) is None, broken
    path.write_text(text)
    other = store.path("cd" * 32)
    other.parent.mkdir(parents=True, exist_ok=True)
    path.rename(other)
    assert store.get("cd" * 32) is None  # another key's entry under this key's name is not this key's


def _writer(root: str, key: str, size: int, rounds: int) -> None:
    store = DirectoryStore(Path(root))
    for n in range(rounds):
        store.put(key, CachedVerdict(verdict={"resolved": bool(n % 2)}, artifacts={"eval.log": b"x" * size}))


def test_concurrent_writers_and_readers_never_see_a_torn_entry(tmp_path: Path) -> None:
    key = "ef" * 32
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_writer, args=(str(tmp_path), key, 2_000_000, 15)) for _ in range(2)]
    for process in writers:
        process.start()
    store = DirectoryStore(tmp_path)
    seen = 0
    while any(p.is_alive() for p in writers):
        entry = store.get(key)
        if entry is not None:
            assert entry.artifacts["eval.log"] == b"x" * 2_000_000
            seen += 1
    for process in writers:
        process.join()
        assert process.exitcode == 0
    assert store.get(key) is not None
    assert not list(tmp_path.rglob("*.tmp"))


# --- end to end, with the demo's images ------------------------------------------------------------


def _graded(run: Any) -> dict[str, dict[str, str]]:
    """Every graded item's verdict properties (what a replay must give back unchanged)."""
    names = (
        "outcome", "reward", "resolved", "resolution", "f2p_passed", "f2p_total", "p2p_passed",
        "p2p_total", "patch_applied", "log_valid", "test_exit_code",
    )  # fmt: skip
    return {
        case.instance_id: {n: case.properties.get(n, "") for n in names}
        for case in run.cases
        if case.outcome in ("passed", "failed")
    }


def _flip(text: str) -> str:
    """An entry whose verdict was edited after it was written (its checksum no longer holds)."""
    for a, b in (('"resolved": false', '"resolved": true'), ('"resolved": true', '"resolved": false')):
        if a in text:
            return text.replace(a, b, 1)
    raise AssertionError("no verdict in the entry")


def test_second_run_is_replayed_from_the_cache_without_sandboxes(
    swe_project: SweProject, demo_images: list[str], tmp_path: Path, docker_engine: Any
) -> None:
    swe_project.demo("cachedemo")
    cache = tmp_path / "verdicts"
    args = ("benchmarks/", "--swe-predictions", str(PREDICTIONS), f"--swe-cache={cache}")
    first = swe_project.run(*args)
    graded = _graded(first)
    assert len(graded) == 5 and {v["outcome"] for v in graded.values()} == {"passed", "failed"}
    assert all("cached" not in first.by_id[i].properties for i in graded)
    assert len(list(cache.rglob("*.json"))) == 5

    second = swe_project.run(*args)
    assert _graded(second) == graded
    for instance_id in graded:
        props = second.by_id[instance_id].properties
        assert props["cached"] == "true"
        assert "time_sandbox" not in props and "cleanup_eval" not in props  # no sandbox at all
        before = first.by_id[instance_id].properties
        logs = [n for n in before if n.endswith(("log_path", "sh_path")) and before[n]]
        assert logs and logs == [n for n in props if n.endswith(("log_path", "sh_path")) and props[n]]
        for name in logs:  # the eval script and logs, written again into this run's directory
            assert str(second.run_dir) in props[name]
            assert Path(props[name]).read_bytes() == Path(before[name]).read_bytes()
        assert json.loads(Path(props["verdict_path"]).read_text())["resolved"] == (
            props["resolved"] == "true"
        )
    ledger = {e["properties"]["instance_id"]: e["properties"] for e in second.ledger()}
    assert all(ledger[i].get("cached") in (True, "true") for i in graded)
    assert not labelled_containers(docker_engine, benchmark="cachedemo")

    # A torn entry is a miss: the item is evaluated again (in a sandbox) and stored again.
    for number, path in enumerate(sorted(cache.rglob("*.json"))):
        text = path.read_text()
        path.write_text(text[: len(text) // 2] if number % 2 else _flip(text))
    third = swe_project.run(*args)
    assert _graded(third) == graded
    for instance_id in graded:
        assert "cached" not in third.by_id[instance_id].properties
        assert "time_sandbox" in third.by_id[instance_id].properties
    assert all(
        c.properties.get("cached") == "true" for c in swe_project.run(*args).cases if c.outcome != "skipped"
    )

    # --swe-no-cache reads nothing.
    fresh = swe_project.run(*args[:-1], "--swe-no-cache")
    assert _graded(fresh) == graded and all("cached" not in c.properties for c in fresh.cases)


def test_a_changed_policy_misses_end_to_end(
    swe_project: SweProject, demo_images: list[str], tmp_path: Path
) -> None:
    swe_project.demo("cachepolicy")
    args = (
        "benchmarks/",
        "-k",
        "envfile",
        "--swe-predictions",
        str(PREDICTIONS),
        f"--swe-cache={tmp_path / 'c'}",
    )
    swe_project.run(*args)
    run = swe_project.run(*args, "--swe-set", "eval.policy=official")
    assert run.by_id["demo__envfile-1"].outcome == "passed"
    assert "cached" not in run.by_id["demo__envfile-1"].properties


def test_ini_key_chooses_the_cache(swe_project: SweProject, demo_images: list[str], tmp_path: Path) -> None:
    swe_project.demo("cacheini")
    swe_project.pytester.makeini(f"[pytest]\nswe_cache = {tmp_path / 'ini-cache'}\n")
    args = ("benchmarks/", "-k", "envfile", "--swe-predictions", str(PREDICTIONS))
    swe_project.run(*args, "--swe-no-cache")  # an explicit choice: the project's default is not used
    assert not (tmp_path / "ini-cache").exists()
    argv = (*args, "-p", "no:cacheprovider")
    result = swe_project.pytester.runpytest_inprocess(*argv)
    result.assert_outcomes(passed=1)
    assert len(list((tmp_path / "ini-cache").rglob("*.json"))) == 1


def test_workers_share_the_cache(swe_project: SweProject, demo_images: list[str], tmp_path: Path) -> None:
    swe_project.demo("cachexdist")
    args = (
        "benchmarks/",
        "-n",
        "2",
        "--swe-predictions",
        str(PREDICTIONS),
        f"--swe-cache={tmp_path / 'shared'}",
    )
    first = swe_project.run(*args)
    graded = _graded(first)
    assert len(graded) == 5
    second = swe_project.run(*args)
    assert _graded(second) == graded
    assert all(second.by_id[i].properties.get("cached") == "true" for i in graded)


def test_an_infrastructure_error_is_never_cached(
    swe_project: SweProject, demo_images: list[str], tmp_path: Path
) -> None:
    """An eval that outlives its timeout is an error: nothing is stored, the next run tries again."""
    swe_project.demo("cacheinfra", extra="timeouts: {agent: 300, eval: 0.01}\n")  # no eval ends this soon
    cache = tmp_path / "infra"
    run = swe_project.run("benchmarks/", "-k", "envfile", f"--swe-cache={cache}")
    case = run.by_id["demo__envfile-1"]
    assert case.outcome == "error", case.properties
    assert not list(cache.rglob("*.json"))


def test_an_agent_in_a_sandbox_runs_and_then_its_evaluation_hits(
    swe_project: SweProject, demo_images: list[str], tmp_path: Path
) -> None:
    """An agent whose patch is known only once it ran (here a command in its sandbox that changes
    nothing) runs every time; the evaluation of the same patch then comes from the cache."""
    swe_project.demo("cacheagent", extra="agent: {name: command, command: 'true'}\n")
    args = ("benchmarks/", "-k", "envfile", f"--swe-cache={tmp_path / 'c'}")
    first = swe_project.run(*args).by_id["demo__envfile-1"]
    second = swe_project.run(*args).by_id["demo__envfile-1"]
    assert first.outcome == second.outcome == "failed"
    assert "cached" not in first.properties and "cleanup_eval" in first.properties
    assert second.properties["cached"] == "true"
    assert "cleanup_agent" in second.properties and "cleanup_eval" not in second.properties
