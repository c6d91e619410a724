"""Every family's gold patches resolve under the default (strict) policy, with no finding at all.

The local benchmarks in ``benchmarks/`` hold each family's fixture rows; their gold patches
go through the whole policy on a real Docker engine: static inspection, the tree read back
and checked after applying, the log and ``.git`` checks after the run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from secutil import MeasuredRun
from secutil import run_measured
from secutil import shared_run

from conftest import REPO
from conftest import build_local_images
from conftest import labelled_containers

pytestmark = pytest.mark.docker


def local_benchmarks() -> list[Path]:
    """Benchmark files over local datasets that can build their images (the demo has its own tests)."""
    from pytest_swe.api.errors import SweError
    from pytest_swe.tools.cli import _load_benchmark

    found = []
    for path in sorted((REPO / "benchmarks").glob("*.yaml")):
        if path.name.startswith("_") or path.name == "demo.yaml":
            continue
        try:
            settings, _, _ = _load_benchmark(str(path))
        except SweError:
            continue
        if settings.build is not None:
            found.append(path)
    return found


@pytest.fixture(scope="module")
def family_images(
    docker_engine: Any, base_image: str, tmp_path_factory: pytest.TempPathFactory
) -> list[Path]:
    benchmarks = local_benchmarks()
    for path in benchmarks:
        build_local_images(docker_engine, tmp_path_factory, path)
    return benchmarks


def gold_run(tmp_path_factory: pytest.TempPathFactory, family_images: list[Path]) -> MeasuredRun:
    """The gold run of every local benchmark, once per session, whichever test's worker asks first."""
    measured, _ = shared_run(
        tmp_path_factory,
        "family-gold",
        lambda project: run_measured(
            project,
            *(str(p) for p in family_images),
            "-n",
            "2",
            "--swe-agent",
            "gold",
            "--swe-set",
            "provider.pull=never",
        ),
    )
    return measured


def test_gold_of_every_family_resolves_without_findings(
    family_images: list[Path], tmp_path_factory: pytest.TempPathFactory, docker_engine: Any
) -> None:
    run = gold_run(tmp_path_factory, family_images).run
    families = {c.properties.get("family") for c in run.cases}
    assert len(families) >= 6, families  # one local benchmark per family
    for case in run.cases:
        assert case.outcome == "passed", (case.instance_id, case.message[:1500])
        assert "tamper" not in case.properties and "suspicious" not in case.properties, case.properties
    # This run's containers only: other tests of the suite run the same local benchmarks meanwhile.
    assert not labelled_containers(docker_engine, run=run.suite["run_id"])


def test_the_probe_ran_on_every_python_row_of_the_swe_bench_lineage(
    family_images: list[Path], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The gold run went through the probe for real: canaries in the graded files and the
    result channel for the SWE-bench and SWE-rebench rows whose runner the probe knows."""
    import json

    probed = {}
    for case in gold_run(tmp_path_factory, family_images).run.cases:
        verdict = json.loads(Path(case.properties["verdict_path"]).read_text())
        probe = verdict["extra"].get("probe")
        if case.properties["family"] in ("swe-bench", "swe-rebench") and probe is not None:
            probed[case.instance_id] = probe
    assert len(probed) >= 4, probed
    for instance, probe in probed.items():
        assert probe["canary_files"], (instance, probe)
        assert probe["channel"] is True, (instance, probe)
        assert probe["errors"] == "", (instance, probe)
