"""Build the nv-internal-local dataset from its instance sources.

Each ``instances/<instance_id>/`` holds ``repo/`` (the repository at its base commit), ``fix/``
and ``test/`` (full contents of the files the upstream change fixes or adds), ``instance.yaml``
(issue, Dockerfiles, selected test files, test lists and the row ``form``) and optional
``predictions/<label>/`` overlays with ``predictions/<label>.yaml``.

Rows follow SWE-bench Pro's schema with NeMo's nv-internal additions (``run_script.sh``,
``parsing_script.py``, ``base_dockerfile``, ``instance_dockerfile``, ``*_select`` lists).
As in SWE-bench Pro, the tests reach the checkout through ``before_repo_set_cmd``, whose last
line checks the test files out of the upstream commit: the commit ``make-upstream.sh`` makes at
image build (fix and tests on top of the base commit), computed here the same way.

    python benchmarks/nv-internal-local/make_rows.py              # rewrites the .jsonl files beside it
    python benchmarks/nv-internal-local/make_rows.py --out-dir D  # writes them into D instead
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
DATASET = "nv-internal-local.jsonl"
PREDICTIONS = "predictions-wrong.jsonl"
IMAGE_REPOSITORY = "pytest-swe-nv"


def upstream_commit(source: Path, scratch: Path) -> str:
    """The commit make-upstream.sh makes in the image: fix and tests on top of the base commit."""
    return localdata.overlay_commit(source / "repo", [source / "fix", source / "test"], "upstream", scratch)


def build_row(source: Path, scratch: Path) -> dict[str, Any]:
    """One row, in the ``form`` (flat or nested) its ``instance.yaml`` asks for."""
    meta = localdata.read_instance_yaml(source)
    instance_id = source.name
    repo = source / "repo"
    base = gitsnap.commit_id(repo, scratch)
    upstream = upstream_commit(source, scratch)
    tests = " ".join(localdata.files_under(source / "test"))
    fields: dict[str, Any] = {
        "instance_id": instance_id,
        "repo": meta["repo"],
        "base_commit": base,
        "patch": localdata.overlay_diff(repo, source / "fix", scratch),
        "test_patch": localdata.overlay_diff(repo, source / "test", scratch),
        "problem_statement": meta["problem_statement"],
        "requirements": meta["requirements"],
        "interface": meta["interface"],
        "repo_language": meta["repo_language"],
        "issue_specificity": "['minor_bug']",
        "issue_categories": "['back_end_knowledge']",
        "before_repo_set_cmd": f"git reset --hard {base}\ngit clean -fd \ngit checkout {base} \ngit checkout {upstream} -- {tests}",
        "selected_test_files_to_run": str(meta["selected_test_files_to_run"]),
        "base_dockerfile": meta["base_dockerfile"],
        "instance_dockerfile": meta["instance_dockerfile"],
        "created_at": meta["created_at"],
    }
    run_script = (HERE / "run_script.sh").read_text(encoding="utf-8")
    parsing_script = (HERE / "parsing_script.py").read_text(encoding="utf-8")
    if meta["form"] == "flat":
        dockerhub_tag = f"{meta['repo'].replace('/', '.')}-{instance_id}"
        return {
            **fields,
            "fail_to_pass": str(meta["fail_to_pass"]),
            "pass_to_pass": str(meta["pass_to_pass"]),
            "fail_to_pass_select": json.dumps(meta["fail_to_pass"]),
            "pass_to_pass_select": json.dumps(meta["pass_to_pass"]),
            "dockerhub_tag": dockerhub_tag,
            "run_script.sh": run_script,
            "parsing_script.py": parsing_script,
        }
    nested = {
        **fields,
        "FAIL_TO_PASS": json.dumps(meta["fail_to_pass"]),
        "PASS_TO_PASS": json.dumps(meta["pass_to_pass"]),
        "image_name": f"{IMAGE_REPOSITORY}/{instance_id}:latest".lower(),
        "run_script": run_script,
        "parsing_script": parsing_script,
    }
    return {
        "instance_id": instance_id,
        "dataset_name": "nv-internal-1",
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
