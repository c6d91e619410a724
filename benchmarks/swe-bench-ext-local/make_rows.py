"""Build the swe-bench-ext-local dataset from its instance sources.

Each ``instances/<instance_id>/`` holds ``repo/`` (the repository at its base commit), ``fix/``
and ``test/`` (full contents of the files the gold patch and the test patch change or add),
``instance.yaml`` (issue, test command, framework, test lists, and the row ``form``) and optional
``predictions/<label>/`` overlays with ``predictions/<label>.yaml``. ``base_commit`` is the
commit :mod:`pytest_swe.gitsnap` makes from ``repo/``, the one the image builder commits at
``/workspace/repo``.

Rows come in the two forms the family reads: ``flat`` (every field at the top, lower-case test
lists as lists, ``created_at`` in epoch seconds) and ``nested`` (fields in an ``instance_dict``
JSON string, upper-case test lists as JSON strings, ``created_at`` as an ISO string).

    python benchmarks/swe-bench-ext-local/make_rows.py              # rewrites the .jsonl files beside it
    python benchmarks/swe-bench-ext-local/make_rows.py --out-dir D  # writes them into D instead
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from pytest_swe import gitsnap

HERE = Path(__file__).resolve().parent
INSTANCES = HERE / "instances"
DATASET = "swe-bench-ext-local.jsonl"
PREDICTIONS = "predictions-wrong.jsonl"
IMAGE_REPOSITORY = "pytest-swe-ext"


def overlay_diff(repo: Path, overlay: Path, scratch: Path) -> str:
    """The git diff that turns ``repo`` into ``repo`` with ``overlay`` laid over it."""
    after = scratch / "after"
    shutil.rmtree(after, ignore_errors=True)
    shutil.copytree(repo, after)
    shutil.copytree(overlay, after, dirs_exist_ok=True)
    try:
        return gitsnap.diff_trees(repo, after, scratch)
    finally:
        shutil.rmtree(after, ignore_errors=True)


def build_row(source: Path, scratch: Path) -> dict[str, Any]:
    meta = yaml.safe_load((source / "instance.yaml").read_text(encoding="utf-8"))
    instance_id = source.name
    repo = source / "repo"
    fields = {
        "instance_id": instance_id,
        "repo": meta["repo"],
        "image": f"{IMAGE_REPOSITORY}/{instance_id}:latest".lower(),
        "base_commit": gitsnap.commit_id(repo, scratch),
        "patch": overlay_diff(repo, source / "fix", scratch),
        "test_patch": overlay_diff(repo, source / "test", scratch),
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
    records = []
    for spec in sorted((source / "predictions").glob("*.yaml")):
        patch = overlay_diff(source / "repo", spec.with_suffix(""), scratch)
        records.append(
            {"instance_id": source.name, "model_name_or_path": f"wrong-{spec.stem}", "model_patch": patch}
        )
    return records


def write(out_dir: Path) -> list[Path]:
    """Write the dataset and the wrong predictions into ``out_dir``; return their paths."""
    rows, predictions = [], []
    with tempfile.TemporaryDirectory(prefix="ext-rows-") as tmp:
        for source in sorted(p for p in INSTANCES.iterdir() if (p / "instance.yaml").is_file()):
            rows.append(build_row(source, Path(tmp)))
            predictions += build_predictions(source, Path(tmp))
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, records in ((DATASET, rows), (PREDICTIONS, predictions)):
        path = out_dir / name
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out-dir", type=Path, default=HERE, help="where to write (default: beside this file)"
    )
    for path in write(parser.parse_args(argv).out_dir):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
