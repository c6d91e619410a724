"""Collection: benchmark files become items; selection; markers; no Docker; bad input stays local."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DEMO_IDS
from conftest import DEMO_JSONL
from conftest import SHARED_DATA
from conftest import SweProject

SHARED = SHARED_DATA
LITE = SHARED / "swebench-lite" / "test.jsonl"
V5_VERIFIED = SHARED / "swebench-v5" / "verified-test.parquet"

NO_DOCKER = {"DOCKER_HOST": "unix:///nonexistent/docker.sock"}


@pytest.fixture
def no_docker(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in NO_DOCKER.items():
        monkeypatch.setenv(key, value)


def collected(run) -> list[str]:
    return [
        line.strip()
        for line in run.result.outlines
        if "::" in line and not line.startswith(("FAILED", "ERROR"))
    ]


def test_collect_demo_without_docker(swe_project: SweProject, no_docker: None) -> None:
    swe_project.demo()
    run = swe_project.run("benchmarks/", "--collect-only", "-q")
    assert run.result.ret == 0, run.result.stdout.str()
    ids = collected(run)
    assert ids == [f"benchmarks/demo.yaml::demo::{i}" for i in DEMO_IDS]


def test_keyword_selects_benchmark_and_instance(swe_project: SweProject, no_docker: None) -> None:
    swe_project.demo("demo")
    swe_project.demo("other-bench")
    by_benchmark = collected(swe_project.run("benchmarks/", "--collect-only", "-q", "-k", "other-bench"))
    assert len(by_benchmark) == len(DEMO_IDS)
    assert all("::other-bench::" in i for i in by_benchmark)
    by_instance = collected(swe_project.run("benchmarks/", "--collect-only", "-q", "-k", "calc-1"))
    assert sorted(by_instance) == [
        "benchmarks/demo.yaml::demo::demo__calc-1",
        "benchmarks/other-bench.yaml::other-bench::demo__calc-1",
    ]


def test_markers_select_and_pass_strict_markers(swe_project: SweProject, no_docker: None) -> None:
    swe_project.demo("demo", extra="markers: [demo, python, tiny]\n")
    swe_project.benchmark(
        "other",
        f"""
        family: swe-bench
        dataset: {DEMO_JSONL}
        markers: [elsewhere]
        """,
    )
    for expr, expected in (("swe_bench", 2), ("tiny", 1), ("docker and elsewhere", 1), ("not tiny", 1)):
        run = swe_project.run("benchmarks/", "--collect-only", "-q", "--strict-markers", "-m", expr)
        assert run.result.ret == 0, run.result.stdout.str()
        benchmarks = {i.split("::")[1] for i in collected(run)}
        assert len(benchmarks) == expected, (expr, benchmarks)


def test_pytest_markers_lists_the_benchmarks_markers(swe_project: SweProject, no_docker: None) -> None:
    """``pytest --markers`` collects nothing, yet lists each benchmark file's markers (an
    ``extends`` base's too); a file the command line does not reach adds none."""
    swe_project.demo("demo", extra="markers: [demo, python, tiny]\n")
    swe_project.benchmark("_base", f"family: swe-bench\ndataset: {DEMO_JSONL}\nmarkers: [lite]\n")
    swe_project.benchmark("lite", "extends: _base.yaml\n")
    (swe_project.path / "elsewhere").mkdir()
    (swe_project.path / "elsewhere" / "far.yaml").write_text(
        f"family: swe-bench\ndataset: {DEMO_JSONL}\nmarkers: [far]\n"
    )
    out = swe_project.run("benchmarks/", "--markers").result.stdout.str()
    for marker, benchmark in (("demo", "demo"), ("tiny", "demo"), ("lite", "lite")):
        assert f"@pytest.mark.{marker}: pytest-swe benchmark marker ({benchmark})" in out, out
    assert "@pytest.mark.far:" not in out


def test_report_header_shows_effective_config(swe_project: SweProject, no_docker: None) -> None:
    swe_project.demo()
    run = swe_project.run(
        "benchmarks/", "--collect-only", "--swe-agent", "empty", "--swe-set", "timeouts.eval=9"
    )
    run.result.stdout.fnmatch_lines(
        ["pytest-swe: run *", "pytest-swe: agent empty, provider (per benchmark)", "*timeouts*9*"]
    )


def test_ini_keys_work_like_options(swe_project: SweProject, no_docker: None) -> None:
    swe_project.demo()
    swe_project.pytester.makeini("[pytest]\nswe_agent = empty\nswe_set = timeouts.eval=9\n")
    run = swe_project.run("benchmarks/", "--collect-only")
    run.result.stdout.fnmatch_lines(["pytest-swe: agent empty*", "*timeouts*9*"])


def test_classic_lite_rows_collect(swe_project: SweProject, no_docker: None) -> None:
    swe_project.benchmark("lite", f"family: swe-bench\ndataset: {LITE}\nmarkers: [lite]\n")
    run = swe_project.run("benchmarks/", "--collect-only", "-q")
    assert run.result.ret == 0, run.result.stdout.str()[-2000:]
    ids = collected(run)
    assert len(ids) == 300
    assert "benchmarks/lite.yaml::lite::pallets__flask-4992" in ids


def test_v5_parquet_rows_collect(swe_project: SweProject, no_docker: None) -> None:
    swe_project.benchmark("verified", f"family: swe-bench\ndataset: {V5_VERIFIED}\n")
    run = swe_project.run("benchmarks/", "--collect-only", "-q", "-k", "astropy")
    ids = collected(run)
    assert ids and all("astropy" in i for i in ids)
    assert len(ids) == 22


def test_two_missing_values_fail_before_running(swe_project: SweProject, no_docker: None) -> None:
    swe_project.benchmark(
        "incomplete",
        """
        family: swe-bench
        dataset:
          source: ???
        agent:
          name: gold
          model: ???
        """,
    )
    run = swe_project.run("benchmarks/", "-n", "2")
    assert run.result.ret != 0
    out = run.result.stdout.str()
    # one error for the benchmark (not one per xdist worker), naming both paths
    assert out.count("ERROR collecting benchmarks/incomplete.yaml") == 1, out
    assert "2 required values left as ???" in out
    assert "--swe-set dataset.source=<value>" in out and "--swe-set agent.model=<value>" in out
    assert "passed" not in out.splitlines()[-1]


def test_unknown_family_and_malformed_yaml_stay_local(swe_project: SweProject, no_docker: None) -> None:
    swe_project.demo("good")
    swe_project.benchmark("badfamily", f"family: swe-bnech\ndataset: {DEMO_JSONL}\n")
    swe_project.benchmark("broken", "family: swe-bench\ndataset: [oops\n")
    run = swe_project.run("benchmarks/", "--collect-only", "-q", "--continue-on-collection-errors")
    out = run.result.stdout.str()
    assert "unknown family 'swe-bnech'" in out and "did you mean swe-bench" in out
    assert "broken.yaml: line 3, column 1: invalid YAML" in out
    assert len([i for i in collected(run) if "::good::" in i]) == len(DEMO_IDS)


def test_unavailable_dataset_is_one_skipped_item(
    swe_project: SweProject, no_docker: None, isolated_cache: Path
) -> None:
    swe_project.demo("demo")
    swe_project.benchmark("remote", "family: swe-bench\ndataset: {source: no-such-org/no-such-dataset}\n")
    # loading a Hub dataset imports `datasets`, which registers Arrow types once per interpreter
    run = swe_project.run("benchmarks/", "-k", "remote", "-rs", "-W", "default", subprocess=True)
    assert run.result.ret == 0, run.result.stdout.str()
    run.result.assert_outcomes(skipped=1)
    out = run.result.stdout.str()
    assert "dataset unavailable" in out and "no-such-org/no-such-dataset" in out
    assert "SweDatasetWarning" in out
    (case,) = run.cases
    assert case.outcome == "skipped" and case.properties["reward"] == "0.0"

    strict = swe_project.run("benchmarks/", "-k", "remote", "--swe-strict-datasets", subprocess=True)
    assert strict.result.ret != 0
    assert "dataset unavailable" in strict.result.stdout.str()


def test_deselected_benchmark_never_loads_its_dataset(
    swe_project: SweProject, no_docker: None, isolated_cache: Path
) -> None:
    swe_project.demo("demo")
    swe_project.benchmark("remote", "family: swe-bench\ndataset: {source: no-such-org/no-such-dataset}\n")
    run = swe_project.run("benchmarks/", "-k", "demo", "-q", "--collect-only", "-W", "default")
    out = run.result.stdout.str()
    assert run.result.ret == 0
    assert "no-such-dataset" not in out and "dataset unavailable" not in out
    assert len(collected(run)) == len(DEMO_IDS)
    run = swe_project.run("benchmarks/", "-m", "not swe_bench", "-q", "--collect-only")
    assert "dataset unavailable" not in run.result.stdout.str()


def test_malformed_rows_do_not_stop_the_others(
    swe_project: SweProject, no_docker: None, tmp_path: Path
) -> None:
    rows = [json.loads(line) for line in DEMO_JSONL.read_text().splitlines()]
    broken_json = dict(rows[0], instance_id="demo__broken-json", FAIL_TO_PASS="[not json")
    no_id = {k: v for k, v in rows[1].items() if k != "instance_id"}
    dataset = tmp_path / "rows.jsonl"
    dataset.write_text("\n".join(json.dumps(r) for r in [rows[2], broken_json, no_id]) + "\n{truncated\n")
    swe_project.benchmark("mixed", f"family: swe-bench\ndataset: {dataset}\nprovider: docker\n")
    run = swe_project.run("benchmarks/", "--collect-only", "-q")
    assert collected(run) == [
        f"benchmarks/mixed.yaml::mixed::{rows[2]['instance_id']}",
        "benchmarks/mixed.yaml::mixed::demo__broken-json",
        "benchmarks/mixed.yaml::mixed::row-3",
        "benchmarks/mixed.yaml::mixed::row-4",
    ]


def test_shards_partition_the_items(swe_project: SweProject, no_docker: None) -> None:
    swe_project.demo()
    shards = [
        set(collected(swe_project.run("benchmarks/", "--collect-only", "-q", f"--swe-shard={i}/3")))
        for i in (1, 2, 3)
    ]
    assert set().union(*shards) == {f"benchmarks/demo.yaml::demo::{i}" for i in DEMO_IDS}
    assert sum(len(s) for s in shards) == len(DEMO_IDS)
    again = set(collected(swe_project.run("benchmarks/", "--collect-only", "-q", "--swe-shard=2/3")))
    assert again == shards[1]
    bad = swe_project.run("benchmarks/", "--collect-only", "--swe-shard=0/3")
    assert "shards are 1-based" in bad.result.stderr.str()


def test_a_nested_in_process_run_leaves_the_collector_as_it_found_it(
    swe_project: SweProject, no_docker: None
) -> None:
    """The session that froze the heap first (here the one running this test, or none) owns the
    freeze; an in-process run inside it collects its items and gives nothing of that back."""
    import gc

    swe_project.demo()
    before = gc.get_freeze_count()
    run = swe_project.run("benchmarks/", "--collect-only", "-q")
    assert len(collected(run)) == len(DEMO_IDS)
    assert gc.isenabled()
    assert gc.get_freeze_count() == before


_FREEZE_PROBE = (
    "import gc\n"
    "def pytest_unconfigure(config):\n"
    "    if not hasattr(config, 'workerinput'):\n"
    "        with open('frozen-at-end.txt', 'w') as f:\n"
    "            f.write(str(gc.get_freeze_count()))\n"
)


def _freeze_counts(swe_project: SweProject, *args: str) -> tuple[int, str]:
    """Run pytest in a fresh interpreter: how many objects were frozen when the controller's (or
    the only) session ended, and what pytest's return left frozen."""
    (swe_project.path / "conftest.py").write_text(_FREEZE_PROBE)
    code = (
        "import gc, sys, pytest\n"
        f"rc = pytest.main([*{list(args)!r}, '-q', '-p', 'no:cacheprovider'])\n"
        "print('frozen after:', gc.get_freeze_count())\n"
        "sys.exit(rc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=swe_project.path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return int((swe_project.path / "frozen-at-end.txt").read_text()), done.stdout


def test_the_xdist_controller_ends_a_benchmark_run_with_its_heap_frozen_then_thaws_it(
    swe_project: SweProject, demo_images: list[str]
) -> None:
    """pytest collects five times at the session's end (for unraisable exceptions); over the
    unfrozen heap of the loaded plugins that took a third of a second per process. The xdist
    controller collects no item: it freezes when its first worker reports benchmark items. When
    pytest returns, the collector has everything back."""
    swe_project.demo()
    frozen, out = _freeze_counts(swe_project, "benchmarks/", "-k", "calc", "-n", "1", "--swe-agent", "gold")
    assert frozen > 10_000
    assert "frozen after: 0" in out, out[-500:]


def test_a_session_without_benchmark_items_leaves_the_collector_alone(swe_project: SweProject) -> None:
    """Installed, the plugin loads in every pytest run of the environment: a project's own tests
    that search ``gc.get_objects()`` (leak checks, say) must find what they always found."""
    (swe_project.path / "test_plain.py").write_text(
        "import gc, pytest\n"
        "def test_finds_the_config():\n"
        "    assert any(type(o) is pytest.Config for o in gc.get_objects())\n"
    )
    frozen, out = _freeze_counts(swe_project, "test_plain.py", "-n", "1")
    assert frozen == 0 and "1 passed" in out, out[-500:]
    frozen, out = _freeze_counts(swe_project, "test_plain.py")
    assert frozen == 0 and "1 passed" in out, out[-500:]


def test_a_run_exits_without_the_collector_walking_its_items_again(
    swe_project: SweProject, no_docker: None
) -> None:
    """At the interpreter's exit the items are frozen again, so its last collections skip them
    (0.7 s for 25,000 items in ``scripts/bench_collect.py``); the run's output is unchanged."""
    swe_project.demo()
    code = (
        "import atexit, gc, sys, pytest\n"
        "atexit.register(lambda: print('frozen at exit:', gc.get_freeze_count() > 0))\n"
        "sys.exit(pytest.main(['benchmarks/', '--collect-only', '-q', '-p', 'no:cacheprovider']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=swe_project.path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(DEMO_IDS)} tests collected" in done.stdout
    assert done.stdout.rstrip().endswith("frozen at exit: True"), done.stdout[-500:]
