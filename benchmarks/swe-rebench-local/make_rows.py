"""Build the local SWE-rebench (V1) dataset from its instance sources.

Each ``instances/<instance_id>/`` holds ``repo/`` (the repository at its base commit), ``fix/`` and
``test/`` (overlays with the full files the gold patch and the test patch change or add) and
``instance.yaml`` (the row's other columns). ``predictions/<label>/`` overlays with a
``<label>.yaml`` description are wrong patches kept for the tests. Commits and diffs come from
:mod:`pytest_swe.tools.gitsnap`, so ``base_commit`` is the commit the image builder makes from ``repo/``.

    python benchmarks/swe-rebench-local/make_rows.py              # rewrites the two .jsonl files
    python benchmarks/swe-rebench-local/make_rows.py --out-dir D  # writes them into D
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pytest_swe.tools import gitsnap
from pytest_swe.tools import localdata

HERE = Path(__file__).resolve().parent
INSTANCES = HERE / "instances"
DATASET_FILE = "rows.jsonl"
PREDICTIONS_FILE = "predictions-wrong.jsonl"

# Column order of a nebius/SWE-rebench row (the full split, whose docker_image is null).
COLUMNS = (
    "instance_id",
    "base_commit",
    "created_at",
    "environment_setup_commit",
    "hints_text",
    "patch",
    "problem_statement",
    "repo",
    "test_patch",
    "meta",
    "version",
    "install_config",
    "requirements",
    "environment",
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
    "license_name",
    "docker_image",
)
INSTANCE_KEYS = frozenset(
    {
        "repo",
        "created_at",
        "version",
        "license_name",
        "problem_statement",
        "hints_text",
        "FAIL_TO_PASS",
        "PASS_TO_PASS",
        "meta",
        "requirements",
        "environment",
        "install_config",
    }
)


def load_meta(source: Path) -> dict[str, Any]:
    """The instance's columns; an instance nothing grades is a mistake worth stopping for."""
    meta = localdata.read_instance_yaml(source, INSTANCE_KEYS)
    if not meta["FAIL_TO_PASS"]:
        raise ValueError(f"{source}/instance.yaml: FAIL_TO_PASS is empty, so nothing grades this instance")
    return meta


def build_row(source: Path, scratch: Path) -> dict[str, Any]:
    meta = load_meta(source)
    repo = source / "repo"
    base_commit = gitsnap.commit_id(repo, scratch)
    test_patch = localdata.overlay_diff(repo, source / "test", scratch)
    row = {
        "instance_id": source.name,
        "base_commit": base_commit,
        "created_at": meta["created_at"],
        "environment_setup_commit": base_commit,
        "hints_text": meta["hints_text"],
        "patch": localdata.overlay_diff(repo, source / "fix", scratch),
        "problem_statement": meta["problem_statement"],
        "repo": meta["repo"],
        "test_patch": test_patch,
        "meta": meta["meta"],
        "version": meta["version"],
        "install_config": meta["install_config"],
        "requirements": meta["requirements"],
        "environment": meta["environment"],
        "FAIL_TO_PASS": meta["FAIL_TO_PASS"],
        "PASS_TO_PASS": meta["PASS_TO_PASS"],
        "license_name": meta["license_name"],
        "docker_image": None,
    }
    assert tuple(row) == COLUMNS
    return row


def build_predictions(source: Path, scratch: Path) -> list[dict[str, str]]:
    """The wrong patches kept beside one instance, as predictions-file records."""
    folder = source / "predictions"
    return localdata.prediction_records(
        folder, source / "repo", scratch, instance_id=source.name, model="swe-rebench-local"
    )


def write(out_dir: Path = HERE) -> list[Path]:
    """Write the dataset and the wrong predictions into ``out_dir``; return their paths."""
    rows, predictions = localdata.build_instances(INSTANCES, build_row, build_predictions)
    return localdata.write_jsonl(out_dir, {DATASET_FILE: rows, PREDICTIONS_FILE: predictions})


def main(argv: list[str] | None = None) -> int:
    """Regenerate the files (or ``--check`` them) and print their paths."""
    return localdata.cli(write, __doc__ or "", out_dir=HERE, argv=argv)


if __name__ == "__main__":
    sys.exit(main())
