"""Real gold patches lose nothing to neutralization, and real test patches never survive it.

The SWE-bench rows in ``../shared/data`` (Verified, Lite, full dev: about a thousand real
fixes, pytest-dev/pytest's own changes to ``src/_pytest`` among them) and the gold patches of
every local benchmark in ``benchmarks/`` (one per family). Each patch's paths, as the tree would
show them after applying, go through the strict policy's path rules: no gold fix may lose a
path, and every row's test patch replayed as a model patch must lose at least one, so the test
cannot pass vacuously.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.api.family import EvalContext
from pytest_swe.api.task import test_list
from pytest_swe.grading import integrity_of
from pytest_swe.grading.configfiles import SECTIONED_FILES
from pytest_swe.grading.diff import parse_patch
from pytest_swe.grading.paths import PathChange
from pytest_swe.grading.paths import Protection
from pytest_swe.grading.paths import why_neutralized

from conftest import SHARED_DATA
from conftest import unavailable

DATA = SHARED_DATA
REPO = Path(__file__).resolve().parents[2]


def swebench_rows() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in sorted((DATA / "swebench-v5").glob("*.parquet")):
        import pyarrow.parquet as pq

        rows += pq.read_table(path).to_pylist()
    for path in sorted((DATA / "swebench-lite").glob("*.jsonl")):
        rows += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return rows


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    found = swebench_rows()
    if not found:
        unavailable(f"no SWE-bench rows under {DATA} (set PYTEST_SWE_SHARED_DATA)")
    return found


def protection_of(row: dict[str, Any]) -> Protection:
    tests = test_list(row.get("FAIL_TO_PASS"), "FAIL_TO_PASS") + test_list(
        row.get("PASS_TO_PASS"), "PASS_TO_PASS"
    )
    return Protection.build(test_patch=row.get("test_patch"), required_tests=tests)


def changes_of(patch: str) -> list[PathChange]:
    """The tree changes a patch makes, by file: what the pipeline reads back after applying it."""
    out = []
    for part in parse_patch(patch):
        kind = part.kind if part.kind in ("added", "deleted") else "modified"
        out += [PathChange(p, kind) for p in part.paths[-1:]]
    return out


def lost_paths(patch: str, protection: Protection) -> list[str]:
    # Names at the import roots before the patch: every top-level name the patch edits existed.
    base = frozenset(c.path.split("/", 1)[0] for c in changes_of(patch) if c.kind != "added")
    return [
        f"{c.path}: {reason}"
        for c in changes_of(patch)
        if (reason := why_neutralized(c, protection, base)) is not None
    ]


def test_no_real_gold_patch_loses_a_path(rows: list[dict[str, Any]]) -> None:
    lost = {}
    config_edits = 0
    for row in rows:
        found = lost_paths(row["patch"], protection_of(row))
        if found:
            lost[row["instance_id"]] = found
        config_edits += any(c.path.rsplit("/", 1)[-1] in SECTIONED_FILES for c in changes_of(row["patch"]))
    assert len({r["instance_id"] for r in rows}) > 900
    assert any(r["repo"] == "pytest-dev/pytest" and "src/_pytest/" in r["patch"] for r in rows)
    assert config_edits > 0  # setup.cfg / pyproject.toml edits exist and are judged by their sections
    assert lost == {}


def test_every_real_test_patch_replayed_as_a_model_patch_is_neutralized(rows: list[dict[str, Any]]) -> None:
    missed = [row["instance_id"] for row in rows if not lost_paths(row["test_patch"], protection_of(row))]
    assert missed == []
    # Even without knowing the test patch, the path rules alone put back nearly all of them.
    blind = [r["instance_id"] for r in rows if not lost_paths(r["test_patch"], Protection())]
    assert len(blind) < len(rows) // 20, blind[:10]


def local_benchmarks() -> list[Path]:
    return sorted(p for p in (REPO / "benchmarks").glob("*.yaml") if not p.name.startswith("_"))


def test_gold_patches_of_every_local_benchmark_lose_nothing() -> None:
    from pytest_swe.api.errors import SweError
    from pytest_swe.tools.cli import _load_benchmark

    checked: dict[str, int] = {}
    lost: dict[str, list[str]] = {}
    for path in local_benchmarks():
        try:
            settings, family, raw_rows = _load_benchmark(str(path))
        except SweError:
            continue  # remote datasets: nothing local to check
        for row in raw_rows:
            task = family.normalize(row, settings)
            ctx = EvalContext(
                settings=settings, artifacts=Path("/nonexistent"), timeout=60, output_limit=1024
            )
            found = lost_paths(task.gold_patch, integrity_of(task, ctx).protection)
            if found:
                lost[f"{path.name}:{task.instance_id}"] = found
            checked[family.name] = checked.get(family.name, 0) + 1
    assert checked.get("swe-bench", 0) >= 8  # the demo at least
    assert lost == {}
