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
DATASET = "nv-internal-local.jsonl"
PREDICTIONS = "predictions-wrong.jsonl"
IMAGE_REPOSITORY = "pytest-swe-nv"


def overlay_diff(repo: Path, overlays: list[Path], scratch: Path) -> str:
    """The git diff that turns ``repo`` into ``repo`` with ``overlays`` laid over it."""
    after = scratch / "after"
    shutil.rmtree(after, ignore_errors=True)
    shutil.copytree(repo, after)
    for overlay in overlays:
        shutil.copytree(overlay, after, dirs_exist_ok=True)
    try:
        return gitsnap.diff_trees(repo, after, scratch)
    finally:
        shutil.rmtree(after, ignore_errors=True)


def upstream_commit(source: Path, scratch: Path) -> str:
    """The commit make-upstream.sh makes in the image: fix and tests on top of the base commit."""
    work = scratch / "upstream"
    shutil.rmtree(work, ignore_errors=True)
    gitsnap.snapshot(source / "repo", work)
    for overlay in ("fix", "test"):
        shutil.copytree(source / overlay, work, dirs_exist_ok=True)
    gitsnap.git(["add", "-A"], work)
    gitsnap.git(["commit", "-q", "-m", "upstream"], work)
    commit = gitsnap.git(["rev-parse", "HEAD"], work).strip()
    shutil.rmtree(work, ignore_errors=True)
    return commit


def files_under(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def build_row(source: Path, scratch: Path) -> dict[str, Any]:
    meta = yaml.safe_load((source / "instance.yaml").read_text(encoding="utf-8"))
    instance_id = source.name
    repo = source / "repo"
    base = gitsnap.commit_id(repo, scratch)
    upstream = upstream_commit(source, scratch)
    tests = " ".join(files_under(source / "test"))
    fields: dict[str, Any] = {
        "instance_id": instance_id,
        "repo": meta["repo"],
        "base_commit": base,
        "patch": overlay_diff(repo, [source / "fix"], scratch),
        "test_patch": overlay_diff(repo, [source / "test"], scratch),
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
    records = []
    for spec in sorted((source / "predictions").glob("*.yaml")):
        patch = overlay_diff(source / "repo", [spec.with_suffix("")], scratch)
        records.append(
            {"instance_id": source.name, "model_name_or_path": f"wrong-{spec.stem}", "model_patch": patch}
        )
    return records


def write(out_dir: Path) -> list[Path]:
    """Write the dataset and the wrong predictions into ``out_dir``; return their paths."""
    rows, predictions = [], []
    with tempfile.TemporaryDirectory(prefix="nv-rows-") as tmp:
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
