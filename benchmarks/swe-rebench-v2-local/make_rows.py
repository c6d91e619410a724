"""Build the local SWE-rebench V2 dataset from its instance sources.

Each ``instances/<instance_id>/`` holds ``repo/`` (the repository at its base commit), ``fix/`` and
``test/`` (overlays with the full files the gold patch and the test patch change or add) and
``instance.yaml`` (the row's other columns). ``predictions/<label>/`` overlays with a
``<label>.yaml`` description are wrong patches kept for the tests. Commits and diffs come from
:mod:`pytest_swe.gitsnap`; the image tag ``<number>-<base commit, 7 hex>`` follows upstream's.

    python benchmarks/swe-rebench-v2-local/make_rows.py              # rewrites the two .jsonl files
    python benchmarks/swe-rebench-v2-local/make_rows.py --out-dir D  # writes them into D
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


def overlay_diff(repo: Path, overlay: Path, scratch: Path) -> str:
    """The git diff that turns ``repo`` into ``repo`` with ``overlay`` laid over it."""
    after = scratch / f"after-{overlay.name}"
    shutil.copytree(repo, after, symlinks=True)
    shutil.copytree(overlay, after, symlinks=True, dirs_exist_ok=True)
    try:
        return gitsnap.diff_trees(repo, after, scratch)
    finally:
        shutil.rmtree(after, ignore_errors=True)


def load_meta(source: Path) -> dict[str, Any]:
    meta = yaml.safe_load((source / "instance.yaml").read_text(encoding="utf-8"))
    if not isinstance(meta, dict) or set(meta) != INSTANCE_KEYS:
        raise ValueError(f"{source}/instance.yaml: needs exactly the keys {sorted(INSTANCE_KEYS)}")
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
        "patch": overlay_diff(repo, source / "fix", scratch),
        "pr_description": meta["pr_description"],
        "problem_statement": meta["problem_statement"],
        "repo": meta["repo"],
        "test_patch": overlay_diff(repo, source / "test", scratch),
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
    folder = source / "predictions"
    if not folder.is_dir():
        return []
    records = []
    for spec in sorted(folder.glob("*.yaml")):
        if set(yaml.safe_load(spec.read_text(encoding="utf-8"))) != {"description"}:
            raise ValueError(f"{spec}: needs a description only")
        records.append(
            {
                "instance_id": source.name,
                "model_name_or_path": f"swe-rebench-v2-local-{spec.stem}",
                "model_patch": overlay_diff(source / "repo", folder / spec.stem, scratch),
            }
        )
    return records


def to_jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def write(out_dir: Path = HERE) -> list[Path]:
    rows, predictions = [], []
    with tempfile.TemporaryDirectory(prefix="rebench-v2-rows-") as tmp:
        for source in sorted(p for p in INSTANCES.iterdir() if (p / "instance.yaml").is_file()):
            rows.append(build_row(source, Path(tmp)))
            predictions += build_predictions(source, Path(tmp))
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / DATASET_FILE, out_dir / PREDICTIONS_FILE]
    paths[0].write_text(to_jsonl(rows), encoding="utf-8", newline="\n")
    paths[1].write_text(to_jsonl(predictions), encoding="utf-8", newline="\n")
    return paths


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
