"""Build the classic-form SWE-bench rows of this benchmark from their instance sources.

Each instance under ``instances/<instance_id>/`` is kept as plain files: ``repo/`` (the
repository at its base commit), ``fix/`` and ``test/`` (overlays holding the full new contents
of the files the gold patch and the test patch change) and ``instance.yaml`` (repo, version,
issue text and test lists). Rows take the classic form of ``princeton-nlp/SWE-bench`` (the one
``swebench`` 4.1.0 reads): no ``eval_script``, ``image``, ``log_parser`` or ``eval_type``; the
benchmark file's ``family_options.specs`` says how the repositories are tested.

Commits and diffs come from :mod:`pytest_swe.tools.gitsnap`, so ``base_commit`` is the commit the
image builder makes from ``repo/`` and the rows are the same on every machine::

    python benchmarks/swebench-classic-local/make_rows.py              # rewrites rows.jsonl
    python benchmarks/swebench-classic-local/make_rows.py --out-dir D  # writes it into D instead
    python benchmarks/swebench-classic-local/make_rows.py --check      # exit 1 if rows.jsonl is stale
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pytest_swe.tools import gitsnap
from pytest_swe.tools import localdata

HERE = Path(__file__).resolve().parent
INSTANCES_DIR = HERE / "instances"
ROWS_FILE = "rows.jsonl"
# Column order of the classic SWE-bench parquet.
COLUMNS = localdata.SWEBENCH_CLASSIC_COLUMNS
INSTANCE_KEYS = {
    "repo",
    "version",
    "created_at",
    "problem_statement",
    "hints_text",
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
}


def build_row(source: Path, scratch: Path) -> dict[str, str]:
    """One row, in the classic column order; an empty patch would make the instance meaningless."""
    meta = localdata.read_instance_yaml(source, INSTANCE_KEYS)
    repo = source / "repo"
    base_commit = gitsnap.commit_id(repo, scratch)
    patch = localdata.overlay_diff(repo, source / "fix", scratch)
    test_patch = localdata.overlay_diff(repo, source / "test", scratch)
    if not patch or not test_patch:
        raise ValueError(f"{source}: the gold patch and the test patch must both change something")
    row = {
        "repo": meta["repo"],
        "instance_id": source.name,
        "base_commit": base_commit,
        "patch": patch,
        "test_patch": test_patch,
        "problem_statement": meta["problem_statement"],
        "hints_text": meta["hints_text"],
        "created_at": meta["created_at"],
        "version": str(meta["version"]),
        "FAIL_TO_PASS": json.dumps(meta["FAIL_TO_PASS"]),
        "PASS_TO_PASS": json.dumps(meta["PASS_TO_PASS"]),
        "environment_setup_commit": base_commit,
    }
    assert tuple(row) == COLUMNS
    return row


def write(out_dir: Path = HERE, instances_dir: Path = INSTANCES_DIR) -> list[Path]:
    """Write the rows, sorted by instance id, into ``out_dir``; return the path."""
    rows, _ = localdata.build_instances(instances_dir, build_row)
    return localdata.write_jsonl(out_dir, {ROWS_FILE: rows})


def main(argv: list[str] | None = None) -> int:
    """Regenerate rows.jsonl (or ``--check`` it) and print its path."""
    return localdata.cli(write, __doc__ or "", out_dir=HERE, argv=argv)


if __name__ == "__main__":
    sys.exit(main())
