"""Build the local SWE-smith dataset from its sources.

``instances/tinyworks__strkit/repo/`` is the repository at the profile's commit (the image's
clean tree). Each ``instances/tinyworks__strkit/bugs/<bug name>/`` holds an overlay with the buggy
files, ``instance.yaml`` (the row's other columns, plus ``branch_in_image``) and optional
``predictions/<label>/`` overlays laid over the buggy tree. A row's ``patch`` introduces its bug; its ``base_commit`` is the commit of the bug
branch (the clean commit plus the bug, committed with ``pytest_swe.tools.gitsnap``'s fixed identity and
the instance id as message). Bugs with ``branch_in_image: true`` get that branch in the image,
from ``branches/<instance_id>.diff``; the others are not in the image, as when upstream's images
predate a bug.

    python benchmarks/swe-smith-local/make_rows.py              # rewrites rows, predictions, branches/
    python benchmarks/swe-smith-local/make_rows.py --out-dir D  # writes them into D
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from pytest_swe.tools import gitsnap
from pytest_swe.tools import localdata

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


def buggy_tree(bug: Path, dest: Path) -> Path:
    """``repo/`` with the bug's files laid over it (its ``predictions/`` are not part of the tree)."""
    return localdata.overlay_tree(REPO, [bug], dest, ignore=["predictions", "instance.yaml"])


def bug_commit(bug: Path, instance_id: str, scratch: Path) -> str:
    """The commit of the bug branch: the clean snapshot plus the bug, message = instance id.

    The image applies ``branches/<instance_id>.diff`` to the clean snapshot and commits it the same
    way, so both give the same tree and so the same commit.
    """
    return localdata.overlay_commit(
        REPO, [bug], instance_id, scratch, ignore=["predictions", "instance.yaml"]
    )


def build(scratch: Path) -> tuple[list[dict[str, Any]], list[dict[str, str]], dict[str, str]]:
    """The rows, the wrong predictions and the bug branches' patches (by file name)."""
    clean_commit = gitsnap.commit_id(REPO, scratch)
    profile = f"{OWNER}__{NAME}.{clean_commit[:8]}"
    rows, predictions, branches = [], [], {}
    for bug in localdata.instance_dirs(BUGS):
        meta = localdata.read_instance_yaml(bug, INSTANCE_KEYS)
        instance_id = f"{profile}.{bug.name}"
        buggy = buggy_tree(bug, scratch / "buggy")
        patch = gitsnap.diff_trees(REPO, buggy, scratch)
        row = {
            "instance_id": instance_id,
            "repo": f"swesmith/{profile}",
            "patch": patch,
            "FAIL_TO_PASS": meta["FAIL_TO_PASS"],
            "PASS_TO_PASS": meta["PASS_TO_PASS"],
            "created_at": meta["created_at"],
            "image_name": f"swesmith.x86_64.{profile}",
            "base_commit": bug_commit(bug, instance_id, scratch),
            "problem_statement": meta["problem_statement"],
        }
        assert tuple(row) == COLUMNS
        rows.append(row)
        if meta["branch_in_image"]:
            branches[f"{instance_id}.diff"] = patch
        # A prediction is laid over the buggy tree: it is what an agent changes in the image.
        predictions += localdata.prediction_records(
            bug / "predictions", buggy, scratch, instance_id=instance_id, model="swe-smith-local"
        )
        shutil.rmtree(buggy)
    return rows, predictions, branches


def write(out_dir: Path = HERE) -> list[Path]:
    """Write the dataset, the wrong predictions and ``branches/`` into ``out_dir``; return their paths."""
    with tempfile.TemporaryDirectory(prefix="swesmith-rows-") as tmp:
        rows, predictions, branches = build(Path(tmp))
    paths = localdata.write_jsonl(out_dir, {DATASET_FILE: rows, PREDICTIONS_FILE: predictions})
    branch_dir = out_dir / BRANCHES_DIR
    shutil.rmtree(branch_dir, ignore_errors=True)
    branch_dir.mkdir()
    for name, patch in sorted(branches.items()):
        (branch_dir / name).write_text(patch, encoding="utf-8", newline="\n")
        paths.append(branch_dir / name)
    return paths


def main(argv: list[str] | None = None) -> int:
    """Regenerate the files (or ``--check`` them) and print their paths."""
    return localdata.cli(write, __doc__ or "", out_dir=HERE, argv=argv)


if __name__ == "__main__":
    sys.exit(main())
