"""Build the demo benchmark's dataset from its instance sources.

Each instance under ``instances/<instance_id>/`` is kept as plain files that a reviewer
can read: ``repo/`` (the repository at its base commit), ``fix/`` and ``test/`` (overlays
with the full contents of the files the gold patch and the test patch change or add) and
``instance.yaml`` (the issue and the test lists). Commits and diffs come from
:mod:`pytest_swe.tools.gitsnap`, so ``base_commit`` is the very commit the image builder makes
from ``repo/`` and the rows stay byte-identical on every machine.

Wrong predictions live beside each instance in ``predictions/<label>.yaml`` with either an
overlay directory ``predictions/<label>/`` or a literal ``predictions/<label>.diff``.

Run from anywhere::

    python benchmarks/demo/make_rows.py              # rewrites demo.jsonl and predictions-wrong.jsonl
    python benchmarks/demo/make_rows.py --out-dir D  # writes them into D instead
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_swe.tools import gitsnap
from pytest_swe.tools import localdata

HERE = Path(__file__).resolve().parent
INSTANCES_DIR = HERE / "instances"
DATASET_FILE = "demo.jsonl"
PREDICTIONS_FILE = "predictions-wrong.jsonl"
PREDICTIONS_MODEL = "demo-wrong-patches"

# Column order of the published SWE-bench Verified parquet (v5 form): the classic columns and five more.
COLUMNS = (
    *localdata.SWEBENCH_CLASSIC_COLUMNS,
    "difficulty",
    "eval_script",
    "log_parser",
    "eval_type",
    "image",
)
INSTANCE_KEYS_REQUIRED = frozenset(
    {
        "repo",
        "problem_statement",
        "hints_text",
        "created_at",
        "version",
        "difficulty",
        "FAIL_TO_PASS",
        "PASS_TO_PASS",
    }
)
INSTANCE_KEYS_OPTIONAL = frozenset({"fix_delete"})
# What a wrong (or merely different) prediction is expected to do when graded.
EXPECTATIONS = frozenset(
    {"resolves", "partial", "breaks-pass-to-pass", "fails-fail-to-pass", "does-not-apply"}
)

INSTANCE_ID = re.compile(r"demo__(?P<name>[a-z][a-z0-9_]*)-(?P<number>[0-9]+)")
DIFF_HEADER = re.compile(r"^diff --git a/(?P<a>\S+) b/(?P<b>\S+)$", re.MULTILINE)
HEREDOC = "EOF_114329324912"
TESTBED = "/testbed"
# The official harness drops test-patch paths with these endings from the pytest directives.
NON_TEST_EXTS = (".json", ".png", "csv", ".txt", ".md", ".jpg", ".jpeg", ".pkl", ".yml", ".yaml", ".toml")


def is_test_path(rel: str) -> bool:
    """Whether a repository path belongs to the tests (these may only change in the test patch)."""
    parts = rel.split("/")
    name = parts[-1]
    return (
        any(p in ("tests", "test") for p in parts[:-1])
        or name == "conftest.py"
        or (name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py")))
    )


@dataclass(frozen=True)
class PatchFile:
    """One file entry of a git diff, as the official harness reads it."""

    old_path: str
    new_path: str
    is_new: bool


def patch_files(patch: str) -> list[PatchFile]:
    """The files a git diff touches, in diff order."""
    headers = list(DIFF_HEADER.finditer(patch))
    files = []
    for i, header in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(patch)
        body = patch[header.end() : end]
        is_new = re.search(r"^new file mode ", body, re.MULTILINE) is not None
        files.append(PatchFile(header["a"], header["b"], is_new))
    return files


def pytest_directives(test_patch: str) -> list[str]:
    """The paths pytest is given: every ``b/`` path of the test patch except data files."""
    return [f.new_path for f in patch_files(test_patch) if not f.new_path.endswith(NON_TEST_EXTS)]


def eval_script(base_commit: str, test_patch: str) -> str:
    """The v5 eval script for a row, in the official Python shape without conda.

    Like the official harness, only files that exist at the base commit are checked out
    before and after the run (a new test file is not known to git there).
    """
    existing = [f.old_path for f in patch_files(test_patch) if not f.is_new]
    reset = [f"git checkout {base_commit} {' '.join(existing)}"] if existing else []
    lines = [
        "#!/bin/bash",
        "set -uxo pipefail",
        f"cd {TESTBED}",
        f"git config --global --add safe.directory {TESTBED}",
        "git status",
        "git show",
        f"git -c core.fileMode=false diff {base_commit}",
        *reset,
        f"git apply -v - <<'{HEREDOC}'\n{test_patch}\n{HEREDOC}",
        ": '>>>>> Start Test Output'",
        " ".join(["python3 -m pytest -rA", *pytest_directives(test_patch)]),
        ": '>>>>> End Test Output'",
        *reset,
    ]
    return "\n".join(lines) + "\n"


def image_name(instance_id: str) -> str:
    """Local image name, in the official naming scheme (``__`` is not allowed by registries)."""
    return f"pytest-swe-demo/sweb.eval.x86_64.{instance_id.replace('__', '_1776_')}:latest".lower()


def check_instance(instance_id: str, meta: dict[str, Any], source: Path) -> None:
    """Catch the mistakes that would make a row silently ungradable (the keys are checked on reading)."""
    where = f"{source}/instance.yaml"
    match = INSTANCE_ID.fullmatch(instance_id)
    if match is None:
        raise ValueError(f"{source}: directory name is not an instance id of the form demo__<name>-<n>")
    if meta["repo"] != f"demo/{match['name']}":
        raise ValueError(f"{where}: repo must be demo/{match['name']}")
    for key in INSTANCE_KEYS_REQUIRED - {"FAIL_TO_PASS", "PASS_TO_PASS"}:
        if not isinstance(meta[key], str):
            raise ValueError(f"{where}: {key} must be a string (quote dates and versions)")
    for key in ("FAIL_TO_PASS", "PASS_TO_PASS"):
        ids = meta[key]
        if not isinstance(ids, list) or not all(isinstance(t, str) and t and " " not in t for t in ids):
            raise ValueError(f"{where}: {key} must be a list of test ids without spaces")
        if len(set(ids)) != len(ids):
            raise ValueError(f"{where}: {key} repeats a test id")
    if not meta["FAIL_TO_PASS"]:
        raise ValueError(f"{where}: FAIL_TO_PASS is empty, so nothing grades this instance")
    if set(meta["FAIL_TO_PASS"]) & set(meta["PASS_TO_PASS"]):
        raise ValueError(f"{where}: a test is in both FAIL_TO_PASS and PASS_TO_PASS")
    for rel in localdata.files_under(source / "fix") + list(meta.get("fix_delete") or []):
        if is_test_path(rel):
            raise ValueError(f"{source}/fix: {rel} is a test file; it belongs in test/")
    for rel in localdata.files_under(source / "test"):
        if not is_test_path(rel):
            raise ValueError(f"{source}/test: {rel} is not a test file; it belongs in fix/")


def build_row(source: Path, scratch: Path) -> dict[str, str]:
    """One dataset row, in the column order of the published parquet."""
    instance_id = source.name
    meta = localdata.read_instance_yaml(source, INSTANCE_KEYS_REQUIRED, optional=INSTANCE_KEYS_OPTIONAL)
    check_instance(instance_id, meta, source)
    repo = source / "repo"
    base_commit = gitsnap.commit_id(repo, scratch)
    patch = localdata.overlay_diff(repo, source / "fix", scratch, delete=meta.get("fix_delete") or ())
    test_patch = localdata.overlay_diff(repo, source / "test", scratch)
    if not patch or not test_patch:
        raise ValueError(f"{source}: the gold patch and the test patch must both change something")
    directives = set(pytest_directives(test_patch))
    for test_id in meta["FAIL_TO_PASS"] + meta["PASS_TO_PASS"]:
        if test_id.split("::", 1)[0] not in directives:
            raise ValueError(f"{source}: {test_id} is not in a file that the eval script runs")
    row = {
        "repo": meta["repo"],
        "instance_id": instance_id,
        "base_commit": base_commit,
        "patch": patch,
        "test_patch": test_patch,
        "problem_statement": meta["problem_statement"],
        "hints_text": meta["hints_text"],
        "created_at": meta["created_at"],
        "version": meta["version"],
        "FAIL_TO_PASS": json.dumps(meta["FAIL_TO_PASS"]),
        "PASS_TO_PASS": json.dumps(meta["PASS_TO_PASS"]),
        "environment_setup_commit": base_commit,
        "difficulty": meta["difficulty"],
        "eval_script": eval_script(base_commit, test_patch),
        "log_parser": "parse_log_pytest",
        "eval_type": "pass_and_fail",
        "image": image_name(instance_id),
    }
    assert tuple(row) == COLUMNS
    return row


@dataclass(frozen=True)
class Prediction:
    """A prediction kept for the demo, with what grading it is expected to show."""

    instance_id: str
    label: str
    expect: str
    description: str
    model_patch: str

    def record(self) -> dict[str, str]:
        """The SWE-bench predictions-file record."""
        return {
            "instance_id": self.instance_id,
            "model_name_or_path": PREDICTIONS_MODEL,
            "model_patch": self.model_patch,
        }


def build_predictions(source: Path, scratch: Path) -> list[Prediction]:
    """The predictions kept beside one instance, sorted by label."""
    folder = source / "predictions"
    found = []
    for kept in localdata.kept_predictions(folder, source / "repo", scratch, keys={"expect", "description"}):
        if kept.meta["expect"] not in EXPECTATIONS:
            raise ValueError(f"{folder}/{kept.label}.yaml: expect must be one of {sorted(EXPECTATIONS)}")
        description = kept.meta["description"].strip()
        found.append(Prediction(source.name, kept.label, kept.meta["expect"], description, kept.patch))
    return found


def build(instances_dir: Path = INSTANCES_DIR) -> tuple[list[dict[str, str]], list[Prediction]]:
    """All rows and all kept predictions, sorted by instance id."""
    rows, predictions = localdata.build_instances(instances_dir, build_row, build_predictions)
    ids = [p.instance_id for p in predictions]
    if len(set(ids)) != len(ids):
        # Predictions files are keyed by instance_id: a second entry would replace the first.
        raise ValueError("at most one prediction per instance fits in one predictions file")
    return rows, predictions


def write(out_dir: Path = HERE, instances_dir: Path = INSTANCES_DIR) -> list[Path]:
    """Write the dataset and the predictions file into ``out_dir``; return their paths."""
    rows, predictions = build(instances_dir)
    files = {DATASET_FILE: rows, PREDICTIONS_FILE: [p.record() for p in predictions]}
    return localdata.write_jsonl(out_dir, files)


def main(argv: list[str] | None = None) -> int:
    """Command line entry: regenerate the files (or ``--check`` them) and print their paths."""
    return localdata.cli(write, __doc__ or "", out_dir=HERE, argv=argv)


if __name__ == "__main__":
    sys.exit(main())
