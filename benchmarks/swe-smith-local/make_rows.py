"""Build the local SWE-smith dataset from its sources.

``instances/tinyworks__strkit/repo/`` is the repository at the profile's commit (the image's
clean tree). Each ``instances/tinyworks__strkit/bugs/<bug name>/`` holds an overlay with the buggy
files, ``instance.yaml`` (the row's other columns, plus ``branch_in_image``) and optional
``predictions/<label>/`` overlays laid over the buggy tree. A row's ``patch`` introduces its bug; its ``base_commit`` is the commit of the bug
branch (the clean commit plus the bug, committed with ``pytest_swe.gitsnap``'s fixed identity and
the instance id as message). Bugs with ``branch_in_image: true`` get that branch in the image,
from ``branches/<instance_id>.diff``; the others are not in the image, as when upstream's images
predate a bug.

    python benchmarks/swe-smith-local/make_rows.py              # rewrites rows, predictions, branches/
    python benchmarks/swe-smith-local/make_rows.py --out-dir D  # writes them into D
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
SOURCE = HERE / "instances" / "tinyworks__strkit"
REPO = SOURCE / "repo"
BUGS = SOURCE / "bugs"
DATASET_FILE = "rows.jsonl"
PREDICTIONS_FILE = "predictions-wrong.jsonl"
BRANCHES_DIR = "branches"
OWNER, NAME = "tinyworks", "strkit"

# Column order of a SWE-bench/SWE-smith row.
COLUMNS = (
    "instance_id",
    "repo",
    "patch",
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
    "created_at",
    "image_name",
    "base_commit",
    "problem_statement",
)
INSTANCE_KEYS = frozenset(
    {"created_at", "branch_in_image", "problem_statement", "FAIL_TO_PASS", "PASS_TO_PASS"}
)


def tree_with(overlays: list[Path], dest: Path) -> Path:
    """``repo/`` with ``overlays`` laid over it, in order, copied to ``dest``."""
    shutil.copytree(REPO, dest, symlinks=True)
    for overlay in overlays:
        shutil.copytree(
            overlay, dest, symlinks=True, dirs_exist_ok=True, ignore=shutil.ignore_patterns("predictions")
        )
    return dest


def diff(before: Path, after: Path, scratch: Path) -> str:
    return gitsnap.diff_trees(before, after, scratch)


def bug_commit(bug_patch: str, instance_id: str, scratch: Path) -> str:
    """The commit of the bug branch: the clean snapshot plus the bug, message = instance id."""
    work = scratch / "branch"
    shutil.rmtree(work, ignore_errors=True)
    gitsnap.snapshot(REPO, work)
    gitsnap.git(["checkout", "-q", "-b", instance_id], work)
    gitsnap.git(["apply", "-"], work, input=bug_patch)
    gitsnap.git(["add", "-A"], work)
    gitsnap.git(["commit", "-q", "-m", instance_id], work)
    commit = gitsnap.git(["rev-parse", "HEAD"], work).strip()
    shutil.rmtree(work, ignore_errors=True)
    return commit


def load_meta(bug: Path) -> dict[str, Any]:
    meta = yaml.safe_load((bug / "instance.yaml").read_text(encoding="utf-8"))
    if not isinstance(meta, dict) or set(meta) != INSTANCE_KEYS:
        raise ValueError(f"{bug}/instance.yaml: needs exactly the keys {sorted(INSTANCE_KEYS)}")
    return meta


def build(scratch: Path) -> tuple[list[dict[str, Any]], list[dict[str, str]], dict[str, str]]:
    clean_commit = gitsnap.commit_id(REPO, scratch)
    profile = f"{OWNER}__{NAME}.{clean_commit[:8]}"
    rows, predictions, branches = [], [], {}
    for bug in sorted(p for p in BUGS.iterdir() if (p / "instance.yaml").is_file()):
        meta = load_meta(bug)
        instance_id = f"{profile}.{bug.name}"
        buggy = tree_with([bug], scratch / "buggy")
        patch = diff(REPO, buggy, scratch)
        row = {
            "instance_id": instance_id,
            "repo": f"swesmith/{profile}",
            "patch": patch,
            "FAIL_TO_PASS": meta["FAIL_TO_PASS"],
            "PASS_TO_PASS": meta["PASS_TO_PASS"],
            "created_at": meta["created_at"],
            "image_name": f"swesmith.x86_64.{profile}",
            "base_commit": bug_commit(patch, instance_id, scratch),
            "problem_statement": meta["problem_statement"],
        }
        assert tuple(row) == COLUMNS
        rows.append(row)
        if meta["branch_in_image"]:
            branches[f"{instance_id}.diff"] = patch
        for spec in sorted((bug / "predictions").glob("*.yaml")):
            if set(yaml.safe_load(spec.read_text(encoding="utf-8"))) != {"description"}:
                raise ValueError(f"{spec}: needs a description only")
            fixed = tree_with([bug, bug / "predictions" / spec.stem], scratch / "predicted")
            predictions.append(
                {
                    "instance_id": instance_id,
                    "model_name_or_path": f"swe-smith-local-{spec.stem}",
                    "model_patch": diff(buggy, fixed, scratch),
                }
            )
            shutil.rmtree(fixed)
        shutil.rmtree(buggy)
    return rows, predictions, branches


def to_jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def write(out_dir: Path = HERE) -> list[Path]:
    with tempfile.TemporaryDirectory(prefix="swesmith-rows-") as tmp:
        rows, predictions, branches = build(Path(tmp))
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / DATASET_FILE, out_dir / PREDICTIONS_FILE]
    paths[0].write_text(to_jsonl(rows), encoding="utf-8", newline="\n")
    paths[1].write_text(to_jsonl(predictions), encoding="utf-8", newline="\n")
    branch_dir = out_dir / BRANCHES_DIR
    shutil.rmtree(branch_dir, ignore_errors=True)
    branch_dir.mkdir()
    for name, patch in sorted(branches.items()):
        (branch_dir / name).write_text(patch, encoding="utf-8", newline="\n")
        paths.append(branch_dir / name)
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
