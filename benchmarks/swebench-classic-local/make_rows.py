"""Build the classic-form SWE-bench rows of this benchmark from their instance sources.

Each instance under ``instances/<instance_id>/`` is kept as plain files: ``repo/`` (the
repository at its base commit), ``fix/`` and ``test/`` (overlays holding the full new contents
of the files the gold patch and the test patch change) and ``instance.yaml`` (repo, version,
issue text and test lists). Rows take the classic form of ``princeton-nlp/SWE-bench`` (the one
``swebench`` 4.1.0 reads): no ``eval_script``, ``image``, ``log_parser`` or ``eval_type``; the
benchmark file's ``family_options.specs`` says how the repositories are tested.

Commits and diffs come from :mod:`pytest_swe.gitsnap`, so ``base_commit`` is the commit the
image builder makes from ``repo/`` and the rows are the same on every machine::

    python benchmarks/swebench-classic-local/make_rows.py          # rewrites rows.jsonl
    python benchmarks/swebench-classic-local/make_rows.py --check  # exit 1 if rows.jsonl is stale
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
INSTANCES_DIR = HERE / "instances"
ROWS_FILE = HERE / "rows.jsonl"
# Column order of the classic SWE-bench parquet.
COLUMNS = (
    "repo",
    "instance_id",
    "base_commit",
    "patch",
    "test_patch",
    "problem_statement",
    "hints_text",
    "created_at",
    "version",
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
    "environment_setup_commit",
)
INSTANCE_KEYS = {
    "repo",
    "version",
    "created_at",
    "problem_statement",
    "hints_text",
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
}


def _overlaid_diff(repo: Path, overlay: Path, scratch: Path, label: str) -> str:
    """The git diff that turns ``repo`` into ``repo`` with ``overlay``'s files laid over it."""
    after = scratch / f"after-{label}"
    shutil.copytree(repo, after)
    shutil.copytree(overlay, after, dirs_exist_ok=True)
    try:
        return gitsnap.diff_trees(repo, after, scratch)
    finally:
        shutil.rmtree(after, ignore_errors=True)


def build_row(source: Path, scratch: Path) -> dict[str, str]:
    meta: dict[str, Any] = yaml.safe_load((source / "instance.yaml").read_text(encoding="utf-8"))
    if set(meta) != INSTANCE_KEYS:
        raise ValueError(f"{source}/instance.yaml: keys must be {sorted(INSTANCE_KEYS)}")
    repo = source / "repo"
    base_commit = gitsnap.commit_id(repo, scratch)
    patch = _overlaid_diff(repo, source / "fix", scratch, "fix")
    test_patch = _overlaid_diff(repo, source / "test", scratch, "test")
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


def build_rows(instances_dir: Path = INSTANCES_DIR) -> str:
    """The dataset as JSON lines, sorted by instance id."""
    with tempfile.TemporaryDirectory(prefix="classic-rows-") as tmp:
        sources = sorted(p for p in instances_dir.iterdir() if (p / "instance.yaml").is_file())
        rows = [build_row(source, Path(tmp)) for source in sources]
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that rows.jsonl is up to date")
    args = parser.parse_args(argv)
    text = build_rows()
    if args.check:
        current = ROWS_FILE.read_text(encoding="utf-8") if ROWS_FILE.exists() else ""
        if current != text:
            print(f"{ROWS_FILE} is stale: run {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    ROWS_FILE.write_text(text, encoding="utf-8")
    print(f"wrote {text.count(chr(10))} row(s) to {ROWS_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
