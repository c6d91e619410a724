"""What every family's local benchmark holds to: its committed files are exactly what its
``make_rows.py`` writes, and ``-k demo`` never loads it (nor the family's Hugging Face or internal
datasets)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.families import multiswe
from pytest_swe.families import nv_internal
from pytest_swe.families import r2egym
from pytest_swe.families import rebench
from pytest_swe.families import swebench_ext
from pytest_swe.families import swesmith

from conftest import REPO
from conftest import read_jsonl
from conftest import run_in_repo

BENCHMARKS = REPO / "benchmarks"
#: Local benchmark directory -> (its family, its dataset file).
LOCAL_DATASETS: dict[str, tuple[Any, str]] = {
    "multi-swe-bench-local": (multiswe.FAMILY, "multi-swe-bench-local.jsonl"),
    "nv-internal-local": (nv_internal.FAMILY, "nv-internal-local.jsonl"),
    "swe-bench-ext-local": (swebench_ext.FAMILY, "swe-bench-ext-local.jsonl"),
    "swe-rebench-local": (rebench.V1_FAMILY, "rows.jsonl"),
    "swe-rebench-v2-local": (rebench.V2_FAMILY, "rows.jsonl"),
    "r2e-gym-local": (r2egym.FAMILY, "rows.jsonl"),
    "swe-smith-local": (swesmith.FAMILY, "rows.jsonl"),
}


def local_ids(local: str) -> set[str]:
    """Instance ids of a local benchmark's rows, as its family derives them."""
    family, dataset = LOCAL_DATASETS[local]
    return {rid for row in read_jsonl(BENCHMARKS / local / dataset) if (rid := family.row_id(row))}


@pytest.mark.parametrize("local", sorted(LOCAL_DATASETS))
def test_dataset_file_is_up_to_date(local: str, tmp_path: Path) -> None:
    """The dataset, the wrong predictions (and any other file) are what ``make_rows.py`` writes."""
    source = BENCHMARKS / local
    done = subprocess.run(
        [sys.executable, str(source / "make_rows.py"), "--out-dir", str(tmp_path)],
        check=True,
        capture_output=True,
        text=True,
    )
    written = [Path(line) for line in done.stdout.splitlines() if line.strip()]
    assert {tmp_path / LOCAL_DATASETS[local][1], tmp_path / "predictions-wrong.jsonl"} <= set(written)
    for path in written:
        committed = source / path.relative_to(tmp_path)
        assert path.read_bytes() == committed.read_bytes(), (
            f"{committed} is stale: run python benchmarks/{local}/make_rows.py"
        )


def indexed_ids(cache: Path) -> set[str]:
    """Instance ids of every dataset index a run built (each dataset it loaded has one)."""
    return {i for path in (cache / "index").glob("*.json") for i in json.loads(path.read_text())["ids"] if i}


@pytest.fixture(scope="module")
def demo_selection(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    """``-k demo`` over every benchmark file, offline, with the internal datasets pointing nowhere,
    and no Docker engine; the run and its pytest-swe cache."""
    tmp = tmp_path_factory.mktemp("demo-selection")
    env = {
        "PYTEST_SWE_CACHE": str(tmp / "cache"),
        "HF_HUB_OFFLINE": "1",
        "HF_HOME": str(tmp / "hf-home"),
        "NV_INTERNAL_DATASET": str(tmp / "absent.jsonl"),
        "SWE_BENCH_EXT_DATASET": str(tmp / "absent.jsonl"),
        "DOCKER_HOST": "unix:///nonexistent/docker.sock",
    }
    out = run_in_repo("benchmarks/", "-k", "demo", "--collect-only", "-q", "-W", "default", env=env)
    return out, tmp / "cache"


@pytest.mark.parametrize(
    ("names", "locals_"),
    [
        pytest.param(("multi-swe-bench", "Multi-SWE-bench"), ["multi-swe-bench-local"], id="multi-swe-bench"),
        pytest.param(("nv-internal",), ["nv-internal-local"], id="nv-internal"),
        pytest.param(("swe-bench-ext",), ["swe-bench-ext-local"], id="swe-bench-ext"),
        pytest.param(
            (
                "swe-rebench",
                "swe-rebench-leaderboard",
                "swe-rebench-v2",
                "swe-smith",
                "r2e-gym",
                "swe-rebench-local",
                "swe-rebench-v2-local",
                "swe-smith-local",
                "r2e-gym-local",
            ),
            ["swe-rebench-local", "swe-rebench-v2-local", "swe-smith-local", "r2e-gym-local"],
            id="swe-rebench-swe-smith-r2e-gym",
        ),
    ],
)
def test_demo_selection_never_loads_these_benchmarks(
    demo_selection: tuple[subprocess.CompletedProcess[str], Path], names: tuple[str, ...], locals_: list[str]
) -> None:
    out, cache = demo_selection
    assert out.returncode == 0, out.stdout + out.stderr
    assert not [name for name in names if name in out.stdout]
    assert "dataset unavailable" not in out.stdout
    loaded = indexed_ids(cache)
    assert loaded and not loaded & set().union(*(local_ids(local) for local in locals_))
    assert not (cache / "hf").exists()
