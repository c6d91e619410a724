"""Build the local R2E-Gym dataset from its instance sources.

Each ``instances/<instance id>/`` holds ``repo/`` (the repository before the commit), ``fix/`` (an
overlay with every file the commit changes: source, tests, docs), ``r2e_tests/`` and
``run_tests.sh`` (the hidden tests and their launcher, put into the image), ``instance.yaml`` (the
row's other columns) and optional ``predictions/<label>/`` overlays. The commit becomes
``parsed_commit_content`` in R2E's ParsedCommit form; the family's gold patch is its non-test
Python part. Commits come from :mod:`pytest_swe.tools.gitsnap`.

Rows have no instance id column; the harness names them ``<owner>__<repo>-<commit_hash>``. An
instance directory is renamed to that id when its content (and so its commit) changes, because
the image builder finds the repository by instance id.

    python benchmarks/r2e-gym-local/make_rows.py              # rewrites the two .jsonl files
    python benchmarks/r2e-gym-local/make_rows.py --out-dir D  # writes them into D (no renaming)
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from pytest_swe.families.r2egym import file_diff_patch
from pytest_swe.families.r2egym import instance_id_of
from pytest_swe.families.r2egym import is_test_file
from pytest_swe.tools import gitsnap
from pytest_swe.tools import localdata

HERE = Path(__file__).resolve().parent
INSTANCES = HERE / "instances"
DATASET_FILE = "rows.jsonl"
PREDICTIONS_FILE = "predictions-wrong.jsonl"
IMAGE_REPOSITORY = "pytest-swe-r2e"
COMMIT_DATE = "2024-01-01T00:00:00"

# Column order of an R2E-Gym-Lite / -Subset row.
COLUMNS = (
    "repo_name",
    "docker_image",
    "commit_hash",
    "parsed_commit_content",
    "execution_result_content",
    "modified_files",
    "modified_entity_summaries",
    "relevant_files",
    "num_non_test_files",
    "num_non_test_func_methods",
    "num_non_test_lines",
    "prompt",
    "problem_statement",
    "expected_output_json",
)
INSTANCE_KEYS = frozenset(
    {
        "repo_name",
        "commit_message",
        "problem_statement",
        "prompt",
        "modified_entity_summaries",
        "relevant_files",
        "expected_output_json",
    }
)
_DIFF_HEADER = re.compile(r"^diff --git a/(\S+) b/(\S+)$", re.MULTILINE)
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")
_LINE_TYPES = {" ": "context", "+": "added", "-": "deleted", "\\": "note"}


def _range(start: str, length: str | None) -> dict[str, int | None]:
    return {"start": int(start), "length": None if length is None else int(length)}


def parse_file_diff(block: str, before: Path, after: Path) -> dict[str, Any]:
    """One ``diff --git`` block as R2E's ``FileDiff`` (hunks with their lines, typed)."""
    lines = block.rstrip("\n").split("\n")
    path = _DIFF_HEADER.match(lines[0]).group(2)  # type: ignore[union-attr]
    diff: dict[str, Any] = {
        "old_file_content": (before / path).read_text(encoding="utf-8") if (before / path).is_file() else "",
        "new_file_content": (after / path).read_text(encoding="utf-8") if (after / path).is_file() else "",
        "header": {"file": {"path": path}, "misc_line": None},
        "index_line": None,
        "is_binary_file": False,
        "binary_line": None,
        "minus_file": None,
        "plus_file": None,
        "hunks": [],
    }
    index = 1
    while index < len(lines) and not lines[index].startswith("@@"):
        line = lines[index]
        if line.startswith("index "):
            hashes, _, mode = line[len("index ") :].partition(" ")
            old, _, new = hashes.partition("..")
            diff["index_line"] = {"old_commit_hash": old, "new_commit_hash": new, "mode": mode}
        elif line.startswith("--- "):
            diff["minus_file"] = {"path": line[4:]}
        elif line.startswith("+++ "):
            diff["plus_file"] = {"path": line[4:]}
        else:
            diff["header"]["misc_line"] = line
        index += 1
    for line in lines[index:]:
        hunk = _HUNK.match(line)
        if hunk:
            old_start, old_len, new_start, new_len, section = hunk.groups()
            diff["hunks"].append(
                {
                    "descriptor": {
                        "old_range": _range(old_start, old_len),
                        "new_range": _range(new_start, new_len),
                        "section": section,
                    },
                    "line_group": {"all_lines": []},
                    "modified_entities": [],
                    "added_entities": [],
                    "deleted_entities": [],
                }
            )
            continue
        kind = _LINE_TYPES[line[:1]]
        content = line[2:] if kind == "note" else line[1:]
        diff["hunks"][-1]["line_group"]["all_lines"].append({"content": content, "type": kind})
    if file_diff_patch(diff) != block:
        raise ValueError(f"{path}: the parsed diff does not give back the git diff")
    return diff


def split_diff(patch: str) -> list[str]:
    starts = [match.start() for match in _DIFF_HEADER.finditer(patch)]
    return [patch[start:end] for start, end in zip(starts, [*starts[1:], len(patch)], strict=True)]


def build_row(source: Path, scratch: Path) -> dict[str, Any]:
    """One row; the tree after the commit is built once, for its commit id and its file contents."""
    meta = localdata.read_instance_yaml(source, INSTANCE_KEYS)
    repo = source / "repo"
    after = localdata.overlay_tree(repo, [source / "fix"], scratch / "after")
    old_commit = gitsnap.commit_id(repo, scratch)
    new_commit = gitsnap.commit_id(after, scratch)
    blocks = split_diff(gitsnap.diff_trees(repo, after, scratch))
    file_diffs = [parse_file_diff(block, repo, after) for block in blocks]
    shutil.rmtree(after)
    parsed_commit = {
        "file_diffs": file_diffs,
        "old_commit_hash": old_commit,
        "new_commit_hash": new_commit,
        "commit_message": meta["commit_message"],
        "commit_date": COMMIT_DATE,
        "metadata": {},
    }
    non_test = [diff for diff in file_diffs if not is_test_file(diff["header"]["file"]["path"])]
    tests_dir = source / "r2e_tests"
    test_files = sorted(p.relative_to(tests_dir).as_posix() for p in tests_dir.rglob("*.py"))
    row = {
        "repo_name": meta["repo_name"],
        "docker_image": f"{IMAGE_REPOSITORY}/{meta['repo_name']}_final:{new_commit}",
        "commit_hash": new_commit,
        "parsed_commit_content": json.dumps(parsed_commit),
        "execution_result_content": json.dumps(
            {
                "repo_name": meta["repo_name"],
                "new_commit_hash": new_commit,
                "test_file_names": test_files,
                "test_file_codes": [(tests_dir / name).read_text(encoding="utf-8") for name in test_files],
            }
        ),
        "modified_files": [diff["header"]["file"]["path"] for diff in file_diffs],
        "modified_entity_summaries": meta["modified_entity_summaries"],
        "relevant_files": meta["relevant_files"],
        "num_non_test_files": len(non_test),
        "num_non_test_func_methods": len(meta["modified_entity_summaries"]),
        "num_non_test_lines": sum(
            1
            for diff in non_test
            for hunk in diff["hunks"]
            for line in hunk["line_group"]["all_lines"]
            if line["type"] in ("added", "deleted")
        ),
        "prompt": meta["prompt"],
        "problem_statement": meta["problem_statement"],
        "expected_output_json": json.dumps(meta["expected_output_json"]),
    }
    assert tuple(row) == COLUMNS
    return row


def build_predictions(source: Path, instance_id: str, scratch: Path) -> list[dict[str, str]]:
    """The wrong patches kept beside one instance, as predictions-file records (rows have no id)."""
    folder = source / "predictions"
    return localdata.prediction_records(
        folder, source / "repo", scratch, instance_id=instance_id, model="r2e-gym-local"
    )


def write(out_dir: Path = HERE) -> list[Path]:
    """Write the dataset and the wrong predictions into ``out_dir``; return their paths.

    Writing beside this file also renames instance directories to their (new) instance ids.
    """
    rows, predictions = [], []
    with tempfile.TemporaryDirectory(prefix="r2e-rows-") as tmp:
        for source in localdata.instance_dirs(INSTANCES):
            row = build_row(source, Path(tmp))
            instance_id = instance_id_of(row)
            assert instance_id is not None
            if out_dir == HERE and source.name != instance_id:
                source = source.rename(source.with_name(instance_id))
                print(f"renamed the instance directory to {source}")
            rows.append(row)
            predictions += build_predictions(source, instance_id, Path(tmp))
    rows.sort(key=lambda row: instance_id_of(row) or "")
    return localdata.write_jsonl(out_dir, {DATASET_FILE: rows, PREDICTIONS_FILE: predictions})


def main(argv: list[str] | None = None) -> int:
    """Regenerate the files (or ``--check`` them) and print their paths."""
    return localdata.cli(write, __doc__ or "", out_dir=HERE, argv=argv)


if __name__ == "__main__":
    sys.exit(main())
