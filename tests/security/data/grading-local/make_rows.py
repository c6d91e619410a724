"""Build the rows of the grading-local benchmark from their instance sources.

Eight small repositories of our own in the SWE-bench v5 row form, each behaving like a real
repository in one way that matters to grading:

* every eval script re-installs the package before the tests (``python -m pip install -e .``
  after ``conda activate testbed``, before the test files are reset and the test patch applied),
  exactly as the published v5 scripts do, so ``setup.py``/``pyproject.toml`` run at grading;
* ``grading__minidj-1`` is graded by the Django reader (``./tests/runtests.py --verbosity 2``),
  ``grading__symcalc-1`` by the SymPy reader (``bin/test -C --verbose``), ``grading__skyproj-1``
  by the v2 pytest reader (``pytest -rA -vv -o console_output_style=classic --tb=no``);
* ``grading__runlog-1``'s tests run pytest sessions of their own whose status lines reach the log;
* ``grading__units-1`` installs through ``setup.py``/``setup.cfg`` and keeps its tests inside the
  package;
* ``grading__knownissue-1`` is a pytest plugin (a ``pytest11`` entry point) loaded into the graded
  session itself, whose fix is in its own ``pytest_runtest_makereport`` hook and whose tests run
  ``pytester`` sessions, in process and in a subprocess;
* ``grading__portspec-1``'s bug is a missing check: every test it must fix expects an error
  (``pytest.raises``), the way a validation fix is tested.

Each ``instances/<instance_id>/`` holds ``repo/`` (the repository at its base commit), ``fix/`` and
``test/`` (overlays with the full new contents of the files the gold and test patches change) and
``instance.yaml`` (the other columns, the log parser and the test command). Run from anywhere::

    python tests/security/data/grading-local/make_rows.py           # rewrites rows.jsonl
    python tests/security/data/grading-local/make_rows.py --check   # exit 1 if rows.jsonl is stale
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from pytest_swe.tools import gitsnap
from pytest_swe.tools import localdata

HERE = Path(__file__).resolve().parent
INSTANCES_DIR = HERE / "instances"
ROWS_FILE = "rows.jsonl"
COLUMNS = (*localdata.SWEBENCH_CLASSIC_COLUMNS, "eval_script", "log_parser", "eval_type", "image")
INSTANCE_KEYS = {
    "repo",
    "version",
    "created_at",
    "problem_statement",
    "hints_text",
    "log_parser",
    "test_cmd",
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
}
HEREDOC = "EOF_114329324912"
TESTBED = "/testbed"
DIFF_HEADER = re.compile(r"^diff --git a/(?P<a>\S+) b/(?P<b>\S+)$", re.MULTILINE)
NON_TEST_EXTS = (".json", ".png", "csv", ".txt", ".md", ".jpg", ".jpeg", ".pkl", ".yml", ".yaml", ".toml")


def test_patch_files(test_patch: str) -> list[tuple[str, bool]]:
    """``(path, is_new)`` for each file of a git diff, in order."""
    headers = list(DIFF_HEADER.finditer(test_patch))
    found = []
    for i, header in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(test_patch)
        is_new = re.search(r"^new file mode ", test_patch[header.end() : end], re.MULTILINE) is not None
        found.append((header["b"], is_new))
    return found


def directives(test_patch: str, log_parser: str) -> list[str]:
    """What the test command is given, as the official harness derives it: the test patch's paths
    minus data files; Django takes dotted module names relative to ``tests/``."""
    paths = [path for path, _ in test_patch_files(test_patch) if not path.endswith(NON_TEST_EXTS)]
    if log_parser == "parse_log_django":
        return [p.removeprefix("tests/").removesuffix(".py").replace("/", ".") for p in paths]
    return paths


def eval_script(base_commit: str, test_patch: str, test_cmd: str, log_parser: str) -> str:
    """The eval script in the shape of the published v5 Python scripts, re-install included."""
    existing = [path for path, is_new in test_patch_files(test_patch) if not is_new]
    reset = [f"git checkout {base_commit} {' '.join(existing)}"] if existing else []
    lines = [
        "#!/bin/bash",
        "set -uxo pipefail",
        "source /opt/miniconda3/bin/activate",
        "conda activate testbed",
        f"cd {TESTBED}",
        f"git config --global --add safe.directory {TESTBED}",
        f"cd {TESTBED}",
        "git status",
        "git show",
        f"git -c core.fileMode=false diff {base_commit}",
        "source /opt/miniconda3/bin/activate",
        "conda activate testbed",
        "python -m pip install -e .",
        *reset,
        f"git apply -v - <<'{HEREDOC}'\n{test_patch}\n{HEREDOC}",
        ": '>>>>> Start Test Output'",
        " ".join([test_cmd, *directives(test_patch, log_parser)]),
        ": '>>>>> End Test Output'",
        *reset,
    ]
    return "\n".join(lines) + "\n"


def image_name(instance_id: str) -> str:
    return f"pytest-swe-grading/sweb.eval.x86_64.{instance_id.replace('__', '_1776_')}:latest".lower()


def build_row(source: Path, scratch: Path) -> dict[str, str]:
    """One row in the column order of the published v5 parquet (without ``difficulty``)."""
    meta = localdata.read_instance_yaml(source, INSTANCE_KEYS)
    repo = source / "repo"
    base_commit = gitsnap.commit_id(repo, scratch)
    patch = localdata.overlay_diff(repo, source / "fix", scratch)
    test_patch = localdata.overlay_diff(repo, source / "test", scratch)
    if not patch or not test_patch:
        raise ValueError(f"{source}: the gold patch and the test patch must both change something")
    if not meta["FAIL_TO_PASS"]:
        raise ValueError(f"{source}: FAIL_TO_PASS is empty, so nothing grades this instance")
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
        "eval_script": eval_script(base_commit, test_patch, meta["test_cmd"], meta["log_parser"]),
        "log_parser": meta["log_parser"],
        "eval_type": "pass_and_fail",
        "image": image_name(source.name),
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
