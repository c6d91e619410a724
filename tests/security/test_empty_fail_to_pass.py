"""Reward inflation: a row without FAIL_TO_PASS tests never resolves, under either policy.

The official rule scores an empty FAIL_TO_PASS group as 1.0, so any patch that keeps the
PASS_TO_PASS tests green (a whitespace edit of the README) would resolve such a row.
"""

from __future__ import annotations

from typing import Any

import pytest
from secutil import dataset
from secutil import demo_benchmark
from secutil import predictions
from secutil import row_as
from secutil import run_measured

from conftest import SweProject

pytestmark = pytest.mark.docker

CALC = "demo__calc-1"
WHITESPACE = "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1,2 @@\n"


@pytest.mark.parametrize("policy", ["strict", "official"])
def test_a_row_without_fail_to_pass_never_resolves(
    swe_project: SweProject, demo_images: list[str], policy: str
) -> None:
    from secutil import repo_file

    first = repo_file(CALC, "README.md").splitlines()[0]
    patch = WHITESPACE + f" {first}\n+\n"
    rows = [row_as(CALC, f"{CALC}.no-f2p", FAIL_TO_PASS="[]"), row_as(CALC, f"{CALC}.with-f2p")]
    data = dataset(swe_project.path / "rows.jsonl", rows)
    demo_benchmark(swe_project, "inflation", data, eval={"policy": policy})
    preds = predictions(swe_project.path / "preds.jsonl", {r["instance_id"]: patch for r in rows})
    run = run_measured(swe_project, "benchmarks/inflation.yaml", "--swe-predictions", str(preds)).run
    by_id: dict[str, Any] = run.by_id
    empty = by_id[f"{CALC}.no-f2p"]
    assert empty.outcome == "failed", (empty.outcome, empty.message)
    assert empty.properties["reward"] == "0.0" and empty.properties["f2p_total"] == "0"
    assert "FAIL_TO_PASS list is empty" in empty.message
    assert by_id[f"{CALC}.with-f2p"].outcome == "failed"  # the whitespace edit fixes nothing
