"""Build the local SWE-rebench V2 dataset from its instance sources.

Each ``instances/<instance_id>/`` holds ``repo/`` (the repository at its base commit), ``fix/`` and
``test/`` (overlays with the full files the gold patch and the test patch change or add) and
``instance.yaml`` (the row's other columns). ``predictions/<label>/`` overlays with a
``<label>.yaml`` description are wrong patches kept for the tests. Commits and diffs come from
:mod:`pytest_swe.tools.gitsnap`; the image tag ``<number>-<base commit, 7 hex>`` follows upstream's.

    python benchmarks/swe-rebench-v2-local/make_rows.py              # rewrites the two .jsonl files
    python benchmarks/swe-rebench-v2-local/make_rows.py --out-dir D  # writes them into D
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
IMAGE_REPOSITORY = "pytest-swe-rebench-v2"

# Column order of a nebius/SWE-rebench-V2 row (upstream sample.json).
COLUMNS = (
    "base_commit",
    "created_at",
    "instance_id",
    "meta",
    "patch",
    "pr_description",
    "problem_statement",
    "repo",
    "test_patch",
    "language",
    "interface",
    "PASS_TO_PASS",
    "FAIL_TO_PASS",
    "install_config",
    "image_name",
)
INSTANCE_KEYS = frozenset(
    {
        "repo",
        "created_at",
        "language",
        "problem_statement",
        "pr_description",
        "interface",
        "FAIL_TO_PASS",
        "PASS_TO_PASS",
        "meta",
        "install_config",
    }
)


def load_meta(source: Path) -> dict[str, Any]:
    """The instance's columns, with the V2 value shapes checked before they reach a row."""
    meta = localdata.read_instance_yaml(source, INSTANCE_KEYS)
    if not isinstance(meta["created_at"], int):
        raise ValueError(f"{source}/instance.yaml: created_at is epoch milliseconds (an integer) in V2 rows")
    if not meta["FAIL_TO_PASS"]:
        raise ValueError(f"{source}/instance.yaml: FAIL_TO_PASS is empty, so nothing grades this instance")
    return meta


def image_name(instance_id: str, base_commit: str) -> str:
    """``<repository>/<owner>-<repo>:<number>-<commit7>``, the shape of upstream's image names."""
    owner_repo, _, number = instance_id.rpartition("-")
    return f"{IMAGE_REPOSITORY}/{owner_repo.replace('__', '-')}:{number}-{base_commit[:7]}"


def build_row(source: Path, scratch: Path) -> dict[str, Any]:
    meta = load_meta(source)
    repo = source / "repo"
    base_commit = gitsnap.commit_id(repo, scratch)
    row = {
        "base_commit": base_commit,
        "created_at": meta["created_at"],
        "instance_id": source.name,
        "meta": meta["meta"],
        "patch": localdata.overlay_diff(repo, source / "fix", scratch),
        "pr_description": meta["pr_description"],
        "problem_statement": meta["problem_statement"],
        "repo": meta["repo"],
        "test_patch": localdata.overlay_diff(repo, source / "test", scratch),
        "language": meta["language"],
        "interface": meta["interface"],
        "PASS_TO_PASS": meta["PASS_TO_PASS"],
        "FAIL_TO_PASS": meta["FAIL_TO_PASS"],
        "install_config": meta["install_config"],
        "image_name": image_name(source.name, base_commit),
    }
    assert tuple(row) == COLUMNS
    return row


def build_predictions(source: Path, scratch: Path) -> list[dict[str, str]]:
    """The wrong patches kept beside one instance, as predictions-file records."""
    folder = source / "predictions"
    return localdata.prediction_records(
        folder, source / "repo", scratch, instance_id=source.name, model="swe-rebench-v2-local"
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
