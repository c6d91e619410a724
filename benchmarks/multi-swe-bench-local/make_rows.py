"""Build the multi-swe-bench-local dataset from its instance sources.

Each ``instances/<instance_id>/`` holds ``repo/`` (the repository at its base commit), ``fix/``
and ``test/`` (full contents of the files the fix patch and the test patch change or add),
``instance.yaml`` (the pull request, its resolved issues, language and test command) and
optional ``predictions/<label>/`` overlays with ``predictions/<label>.yaml``.

As upstream's dataset builder does, the tests run three times: with no patch (``run_result``),
with the test patch (``test_patch_result``) and with both patches (``fix_patch_result``); the
transitions between the last two give ``f2p_tests``, ``p2p_tests``, ``s2p_tests`` and
``n2p_tests``. The runs happen here, on this host's Python and pytest, in a git snapshot of the
repository, and are read by the family's own log parser. ``home/`` receives what the image
keeps in ``/home``: ``run.sh``, ``test-run.sh``, ``fix-run.sh``, ``test.patch`` and the gold
``fix.patch``.

    python benchmarks/multi-swe-bench-local/make_rows.py              # rewrites the generated files
    python benchmarks/multi-swe-bench-local/make_rows.py --out-dir D  # writes the .jsonl files into D
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from pytest_swe.families import multiswe
from pytest_swe.tools import gitsnap
from pytest_swe.tools import localdata

HERE = Path(__file__).resolve().parent
INSTANCES = HERE / "instances"
DATASET = "multi-swe-bench-local.jsonl"
PREDICTIONS = "predictions-wrong.jsonl"

RUN_SCRIPTS = {
    "run.sh": "",
    "test-run.sh": "git apply --whitespace=nowarn /home/test.patch\n",
    "fix-run.sh": "git apply --whitespace=nowarn /home/test.patch /home/fix.patch\n",
}


def run_script(repo: str, apply: str, test_command: str) -> str:
    """One of the image's run scripts, in upstream's shape."""
    return f"#!/bin/bash\nset -e\n\ncd /home/{repo}\n{apply}{test_command}\n"


def test_run(repo: Path, patches: list[str], test_command: str, scratch: Path) -> multiswe.TestResult:
    """Run the tests in a snapshot of ``repo`` with ``patches`` applied; read them like the family does."""
    work = scratch / "run"
    shutil.rmtree(work, ignore_errors=True)
    gitsnap.snapshot(repo, work)
    for number, patch in enumerate(patches):
        (scratch / f"{number}.patch").write_text(patch, encoding="utf-8")
        gitsnap.git(["apply", "--whitespace=nowarn", str(scratch / f"{number}.patch")], work)
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    proc = subprocess.run(
        ["bash", "-c", test_command], cwd=work, env=env, capture_output=True, text=True, check=False
    )
    shutil.rmtree(work, ignore_errors=True)
    return multiswe.PARSERS["pytest"](proc.stdout + proc.stderr)


def build_row(source: Path, scratch: Path) -> dict[str, Any]:
    """One row, its test results from real runs; also writes the instance's ``home/``."""
    meta = localdata.read_instance_yaml(source)
    repo = source / "repo"
    fix_patch = localdata.overlay_diff(repo, source / "fix", scratch)
    test_patch = localdata.overlay_diff(repo, source / "test", scratch)
    command = meta["test_command"]
    run = test_run(repo, [], command, scratch)
    test = test_run(repo, [test_patch], command, scratch)
    fix = test_run(repo, [test_patch, fix_patch], command, scratch)
    report = multiswe.transition_report(run, test, fix)
    if not report.valid:
        raise ValueError(f"{source}: the gold patch does not grade as resolved: {report.error}")

    def tests(names: set[str]) -> dict[str, dict[str, str]]:
        return {
            n: dict(zip(("run", "test", "fix"), report.transitions[n], strict=True)) for n in sorted(names)
        }

    fixed = {n for n, (_, t, f) in report.transitions.items() if t != multiswe.PASS and f == multiswe.PASS}
    home = source / "home"
    home.mkdir(exist_ok=True)
    for name, apply in RUN_SCRIPTS.items():
        (home / name).write_text(run_script(meta["repo"], apply, command), encoding="utf-8")
    (home / "fix.patch").write_text(fix_patch, encoding="utf-8")
    (home / "test.patch").write_text(test_patch, encoding="utf-8")
    row: dict[str, Any] = {
        "org": meta["org"],
        "repo": meta["repo"],
        "number": meta["number"],
        "state": meta["state"],
        "title": meta["title"],
        "body": meta["body"],
        "base": {"label": f"{meta['org']}:main", "ref": "main", "sha": gitsnap.commit_id(repo, scratch)},
        "resolved_issues": meta["resolved_issues"],
        "fix_patch": fix_patch,
        "test_patch": test_patch,
        "fixed_tests": tests(fixed),
        "p2p_tests": tests(report.sets[multiswe.PASS]),
        "f2p_tests": tests(report.sets[multiswe.FAIL]),
        "s2p_tests": tests(report.sets[multiswe.SKIP]),
        "n2p_tests": tests(report.sets[multiswe.NONE]),
        "run_result": run.as_dict(),
        "test_patch_result": test.as_dict(),
        "fix_patch_result": fix.as_dict(),
        "lang": meta["lang"],
        "tag": "",
        "number_interval": "",
        "hints": "",
    }
    if meta["with_instance_id"]:
        row["instance_id"] = f"{meta['org']}__{meta['repo']}-{meta['number']}"
    return row


def build_predictions(source: Path, scratch: Path) -> list[dict[str, Any]]:
    """The wrong patches kept beside one instance, as records both upstream and SWE-bench read."""
    meta = localdata.read_instance_yaml(source)
    return [
        {
            "org": meta["org"],
            "repo": meta["repo"],
            "number": meta["number"],
            "instance_id": source.name,
            "model_name_or_path": f"wrong-{kept.label}",
            "fix_patch": kept.patch,
            "model_patch": kept.patch,
        }
        for kept in localdata.kept_predictions(source / "predictions", source / "repo", scratch, keys=None)
    ]


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
