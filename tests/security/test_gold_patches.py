"""Real gold patches pass the policy's static rules untouched: no false positive on real fixes.

The SWE-bench rows in ``/work/shared/data`` (Verified, Lite, full dev: about a thousand real
fixes, pytest-dev/pytest's own changes to ``src/_pytest`` among them) and the gold patches
of every local benchmark in ``benchmarks/`` (one per family). The same rules must still
catch each row's test patch replayed as a model patch, so the test cannot pass vacuously.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.family import EvalContext
from pytest_swe.policy import TAMPER
from pytest_swe.policy import Protection
from pytest_swe.policy import inspect_patch
from pytest_swe.task import test_list

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


def test_no_real_gold_patch_is_flagged(rows: list[dict[str, Any]]) -> None:
    flagged = {}
    for row in rows:
        findings = inspect_patch(row["patch"], protection_of(row))
        if findings:
            flagged[row["instance_id"]] = [str(f) for f in findings]
    assert len({r["instance_id"] for r in rows}) > 900
    assert any(r["repo"] == "pytest-dev/pytest" and "src/_pytest/" in r["patch"] for r in rows)
    assert flagged == {}


def test_every_real_test_patch_replayed_as_a_model_patch_is_tamper(rows: list[dict[str, Any]]) -> None:
    missed = [
        row["instance_id"]
        for row in rows
        if not any(f.severity == TAMPER for f in inspect_patch(row["test_patch"], protection_of(row)))
    ]
    assert missed == []
    # Even without knowing the test patch, the path rules alone catch every one of them.
    blind = [
        r["instance_id"]
        for r in rows
        if not any(f.severity == TAMPER for f in inspect_patch(r["test_patch"]))
    ]
    assert len(blind) < len(rows) // 20, blind[:10]


def local_benchmarks() -> list[Path]:
    return sorted(p for p in (REPO / "benchmarks").glob("*.yaml") if not p.name.startswith("_"))


def test_gold_patches_of_every_local_benchmark_are_clean() -> None:
    from pytest_swe.cli import _load_benchmark
    from pytest_swe.errors import SweError
    from pytest_swe.evaluation import make_guard

    checked: dict[str, int] = {}
    flagged: dict[str, list[str]] = {}
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
            findings = inspect_patch(task.gold_patch, make_guard(task, ctx).protection)
            if findings:
                flagged[f"{path.name}:{task.instance_id}"] = [str(f) for f in findings]
            checked[family.name] = checked.get(family.name, 0) + 1
    assert checked.get("swe-bench", 0) >= 8  # the demo at least
    assert flagged == {}
