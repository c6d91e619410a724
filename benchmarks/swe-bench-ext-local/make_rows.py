"""Build the swe-bench-ext-local dataset from its instance sources.

Each ``instances/<instance_id>/`` holds ``repo/`` (the repository at its base commit), ``fix/``
and ``test/`` (full contents of the files the gold patch and the test patch change or add),
``instance.yaml`` (issue, test command, framework, test lists, and the row ``form``) and optional
``predictions/<label>/`` overlays with ``predictions/<label>.yaml``. ``base_commit`` is the
commit :mod:`pytest_swe.tools.gitsnap` makes from ``repo/``, the one the image builder commits at
``/workspace/repo``.

Rows come in the two forms the family reads: ``flat`` (every field at the top, lower-case test
lists as lists, ``created_at`` in epoch seconds) and ``nested`` (fields in an ``instance_dict``
JSON string, upper-case test lists as JSON strings, ``created_at`` as an ISO string).

    python benchmarks/swe-bench-ext-local/make_rows.py              # rewrites the .jsonl files beside it
    python benchmarks/swe-bench-ext-local/make_rows.py --out-dir D  # writes them into D instead
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pytest_swe.tools import gitsnap
from pytest_swe.tools import localdata

HERE = Path(__file__).resolve().parent
INSTANCES = HERE / "instances"
DATASET = "swe-bench-ext-local.jsonl"
PREDICTIONS = "predictions-wrong.jsonl"
IMAGE_REPOSITORY = "pytest-swe-ext"


def build_row(source: Path, scratch: Path) -> dict[str, Any]:
    """One row, in the ``form`` (flat or nested) its ``instance.yaml`` asks for."""
    meta = localdata.read_instance_yaml(source)
    instance_id = source.name
    repo = source / "repo"
    fields = {
        "instance_id": instance_id,
        "repo": meta["repo"],
        "image": f"{IMAGE_REPOSITORY}/{instance_id}:latest".lower(),
        "base_commit": gitsnap.commit_id(repo, scratch),
        "patch": localdata.overlay_diff(repo, source / "fix", scratch),
        "test_patch": localdata.overlay_diff(repo, source / "test", scratch),
        "test_command": meta["test_command"],
        "test_framework": meta["test_framework"],
    }
    if meta["form"] == "flat":
        return {
            **fields,
            "problem_statement": meta["problem_statement"],
            "fail_to_pass": meta["fail_to_pass"],
            "pass_to_pass": meta["pass_to_pass"],
            "created_at": meta["created_at"],
        }
    nested = {
        **fields,
        "repo_workdir": "/workspace/repo",
        "FAIL_TO_PASS": json.dumps(meta["fail_to_pass"]),
        "PASS_TO_PASS": json.dumps(meta["pass_to_pass"]),
        "created_at": meta["created_at"],
    }
    return {
        "instance_id": instance_id,
        "dataset_name": "swe-bench-ext",
        "split": "test",
        "problem_statement": meta["problem_statement"],
        "instance_dict": json.dumps(nested),
    }


def build_predictions(source: Path, scratch: Path) -> list[dict[str, str]]:
    """The wrong patches kept beside one instance, as predictions-file records."""
    folder = source / "predictions"
    return localdata.prediction_records(
        folder, source / "repo", scratch, instance_id=source.name, model="wrong", keys=None
    )


def write(out_dir: Path = HERE) -> list[Path]:
    """Write the dataset and the wrong predictions into ``out_dir``; return their paths.

    Non-ASCII text is escaped, as in the upstream files these rows stand in for.
    """
    rows, predictions = localdata.build_instances(INSTANCES, build_row, build_predictions)
    return localdata.write_jsonl(out_dir, {DATASET: rows, PREDICTIONS: predictions}, ensure_ascii=True)


def main(argv: list[str] | None = None) -> int:
    """Regenerate the files (or ``--check`` them) and print their paths."""
    return localdata.cli(write, __doc__ or "", out_dir=HERE, argv=argv)


if __name__ == "__main__":
    sys.exit(main())
