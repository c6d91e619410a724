"""The patch applied as the first step of the eval script's own command (one round trip to the
sandbox fewer), against the same patch applied in a command of its own: on a real git repository
with bash here, for patches that apply, need the fallbacks, do not apply, delete, add what the
strict policy would put back, and eval scripts that move HEAD and rewrite the apply's files."""

from __future__ import annotations

import fcntl
import glob
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gitrepo import ENV
from gitrepo import commit_all
from gitrepo import make_patch
from localsandbox import CappingSandbox

from pytest_swe.api.family import EvalContext
from pytest_swe.api.task import Task
from pytest_swe.grading import patch_and_run
from pytest_swe.grading.paths import SHADOWABLE
from pytest_swe.grading.paths import installed_module
from pytest_swe.grading.pipeline import EvalRun
from pytest_swe.grading.pipeline import Integrity
from pytest_swe.grading.pipeline import applies_with_script
from pytest_swe.grading.pipeline import integrity_of
from pytest_swe.grading.probe import PROBE_ROOT
from pytest_swe.grading.tree import SITE_DIR_GLOBS

from conftest import benchmark_settings

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

SCRIPT = """\
#!/bin/bash
cd {repo}
echo "+ start"
: '>>>>> Start Test Output'
cat pkg/core.py
ls pkg
git status --short
: '>>>>> End Test Output'
{extra}
echo done
"""


class GitSandbox(CappingSandbox):
    """Bash here with git's identity set, its output capped as the Docker provider caps it."""

    def exec(self, command: str, **kwargs: Any) -> Any:
        return super().exec(command, **{**kwargs, "env": {**ENV, **(kwargs.get("env") or {})}})


def make_repo(root: Path, latin1_name: bool = False) -> Path:
    (root / "pkg").mkdir(parents=True)
    if latin1_name:  # a name at the import root that is not UTF-8: the record lists it
        (root / os.fsdecode(b"caf\xe9.txt")).write_text("x\n")
    (root / "tests").mkdir()
    (root / "pkg" / "core.py").write_text("".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(12)))
    (root / "pkg" / "old.py").write_text("X = 1\n")
    (root / "tests" / "test_core.py").write_text("def test_f():\n    assert True\n")
    commit_all(root)
    return root


def patches(repo: Path) -> dict[str, str]:
    core = (repo / "pkg" / "core.py").read_text()
    fixed = core.replace("return 3\n", "return 33\n")
    clean = make_patch(repo, {"pkg/core.py": fixed, "pkg/new.py": "Y = 2\n"})
    # Context lines that no longer match the base: git apply refuses, patch applies it with fuzz.
    fuzzy = clean.replace(" def f3():", " def f3(): ", 1).replace("pkg/new.py", "pkg/new2.py")
    return {
        "clean": clean,
        "fuzz": fuzzy,
        "not-applying": clean.replace("-    return 3", "-    return 99"),
        "delete": make_patch(repo, {"pkg/old.py": None}),
        "new-test-and-conftest": make_patch(
            repo,
            {
                "pkg/core.py": fixed,
                "tests/conftest.py": "x = 1\n",
                "tests/test_new.py": "def test():\n    pass\n",
            },
        ),
    }


@pytest.fixture
def locked() -> Iterator[None]:
    """The pipeline's scratch paths (/tmp/pytest-swe) are fixed, as each real sandbox has its own
    /tmp; here they are shared by the xdist workers, so one at a time."""
    Path(PROBE_ROOT).mkdir(parents=True, exist_ok=True)
    with open(f"{PROBE_ROOT}/.local-sandbox.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def evaluate(
    root: Path,
    patch: str,
    *,
    fused: bool,
    extra: str = "",
    output_limit: int = 1 << 20,
    latin1_name: bool = False,
    policy: str = "official",
    dirty: bool = False,
) -> tuple[EvalRun, EvalContext, GitSandbox]:
    repo = make_repo(root / "repo", latin1_name)
    if dirty:  # a tracked file the image's tree holds changed, not committed
        (repo / "pkg" / "old.py").write_text("X = 2\n")
    task = Task(family="swe-bench", instance_id="t", image="local", workdir=str(repo))
    ctx = EvalContext(
        settings=benchmark_settings("swe-bench", eval={"policy": policy}),
        artifacts=root / "artifacts",
        timeout=60,
        output_limit=output_limit,
    )
    sandbox = GitSandbox(repo)
    script = SCRIPT.format(repo=repo, extra=extra)
    run = patch_and_run(
        task, patch, sandbox, ctx, script, grader="t", path=str(root / "eval.sh"), applied_with_script=fused
    )
    return run, ctx, sandbox


def outcome(run: EvalRun, ctx: EvalContext) -> dict[str, Any]:
    integrity = integrity_of(Task(family="swe-bench", instance_id="t", image="local"), ctx)
    v = run.verdict
    return {
        "ran": run.ran,
        "log": run.log,
        "exit": run.exit_code,
        "applied": v.patch_applied,
        "method": v.apply_method,
        "reasons": v.reasons,
        "findings": sorted(str(f) for f in integrity.findings),
        "saved": sorted(ctx.saved),
        "apply.log": Path(ctx.saved["apply.log"]).read_text(),
    }


CASES = ["clean", "fuzz", "not-applying", "delete", "new-test-and-conftest"]


@pytest.mark.parametrize("case", CASES)
def test_applied_in_the_script_command_the_outcome_is_as_applied_on_its_own(
    tmp_path: Path, locked: None, case: str
) -> None:
    patch = patches(make_repo(tmp_path / "source"))[case]
    alone, alone_ctx, alone_box = evaluate(tmp_path / "alone", patch, fused=False)
    fused, fused_ctx, fused_box = evaluate(tmp_path / "fused", patch, fused=True)
    expected = outcome(alone, alone_ctx)
    assert outcome(fused, fused_ctx) == expected
    assert expected["applied"] is (case != "not-applying") and expected["ran"] is (case != "not-applying")
    assert len(fused_box.commands) == len(alone_box.commands) - (1 if expected["ran"] else 0)
    assert (fused.verdict.extra["apply_in"], alone.verdict.extra["apply_in"]) == (
        "eval_command",
        "own_command",
    )
    if case == "fuzz":
        assert expected["method"].startswith("patch --batch")
    if case == "new-test-and-conftest":
        assert any("neutralized-under-strict" in f for f in expected["findings"]), expected["findings"]


def test_a_patch_that_does_not_apply_runs_no_script(tmp_path: Path, locked: None) -> None:
    patch = patches(make_repo(tmp_path / "source"))["not-applying"]
    run, ctx, _ = evaluate(tmp_path / "fused", patch, fused=True, extra=f"touch {tmp_path}/ran")
    assert not run.ran and not (tmp_path / "ran").exists()
    assert "eval.log" not in ctx.saved and not (tmp_path / "fused" / "artifacts" / "eval.log").exists()
    assert "Patch Apply Failed" in Path(ctx.saved["apply.log"]).read_text()


def test_the_check_of_git_uses_the_base_commit_kept_before_the_script(tmp_path: Path, locked: None) -> None:
    """A script that rewrites history and the record's file of the base commit, and empties the
    apply's output file: the check still finds HEAD moved and the base commit gone, and the apply's
    log is the one printed before the script ran."""
    patch = patches(make_repo(tmp_path / "source"))["clean"]
    cover = (
        "git add -A >/dev/null && git commit -qm x && git reflog expire --expire=now --all "
        "&& git rev-parse HEAD > /dev/null\n"
        f'for f in {PROBE_ROOT}/t-*/head; do git rev-parse HEAD > "$f"; done\n'
        f'for f in {PROBE_ROOT}/a-*; do : > "$f"; done\n'
        "git checkout -q --orphan other && git commit -qm y && git branch -D master main >/dev/null 2>&1\n"
        "git gc -q --prune=now\n"
    )
    alone, alone_ctx, _ = evaluate(tmp_path / "alone", patch, fused=False, extra=cover)
    fused, fused_ctx, _ = evaluate(tmp_path / "fused", patch, fused=True, extra=cover)
    findings = outcome(fused, fused_ctx)["findings"]
    assert any("HEAD moved during the tests" in f for f in findings), findings
    assert any("is gone after the tests" in f for f in findings), findings
    commits = re.compile(r"\b[0-9a-f]{12,40}\b")  # new commits: another time, another id
    assert [commits.sub("C", f) for f in findings] == [
        commits.sub("C", f) for f in outcome(alone, alone_ctx)["findings"]
    ]
    assert "Applied Patch" in Path(fused_ctx.saved["apply.log"]).read_text()


def test_an_apply_output_over_the_cap_is_read_from_its_file(tmp_path: Path, locked: None) -> None:
    """Output capped to 2 KB, the script printing more: the apply's output is not in the kept head
    whole, and is read from its file."""
    patch = patches(make_repo(tmp_path / "source"))["clean"]
    noise = "head -c 20000 /dev/zero | tr '\\0' x; echo"
    alone, alone_ctx, _ = evaluate(tmp_path / "alone", patch, fused=False, extra=noise, output_limit=2048)
    fused, fused_ctx, _ = evaluate(tmp_path / "fused", patch, fused=True, extra=noise, output_limit=2048)
    assert outcome(fused, fused_ctx)["apply.log"] == outcome(alone, alone_ctx)["apply.log"]
    assert (
        fused.verdict.patch_applied
        and fused.verdict.apply_method == "git apply --verbose /tmp/pytest-swe/patch.diff"
    )
    assert fused.exit_code == alone.exit_code == 0


def test_a_record_that_is_not_utf8_is_read_from_its_file(tmp_path: Path, locked: None) -> None:
    """A file name of the base tree that is not UTF-8 makes the record's text differ from its
    bytes: the apply's output is read from its file, and the outcome is the same."""
    patch = patches(make_repo(tmp_path / "source"))["new-test-and-conftest"]
    alone, alone_ctx, _ = evaluate(tmp_path / "alone", patch, fused=False, latin1_name=True)
    fused, fused_ctx, box = evaluate(tmp_path / "fused", patch, fused=True, latin1_name=True)
    assert outcome(fused, fused_ctx) == outcome(alone, alone_ctx)
    assert fused.ran
    assert len(box.commands) == 1  # the file was read, not run again


@pytest.mark.parametrize("dirty", [False, True], ids=["as-foretold", "dirty-tree"])
def test_under_strict_a_tree_not_as_foretold_runs_the_script_in_a_second_command(
    tmp_path: Path, locked: None, dirty: bool
) -> None:
    """Under ``strict`` a clean fix is foretold by its text; on a tree that was dirty before the
    patch the check in the eval command fails, the script does not run there, and runs once in a
    second command. The verdict says which (``apply_in``); the outcome is the same."""
    patch = patches(make_repo(tmp_path / "source"))["clean"]
    extra = f"echo ran >> {tmp_path}/runs"
    run, ctx, box = evaluate(tmp_path / "e", patch, fused=True, policy="strict", dirty=dirty, extra=extra)
    assert run.ran and run.verdict.patch_applied and run.verdict.reasons == []
    assert (tmp_path / "runs").read_text() == "ran\n"
    assert len(box.commands) == (2 if dirty else 1)
    assert run.verdict.extra["apply_in"] == ("eval_command_not_foretold" if dirty else "eval_command")
    assert "Applied Patch" in Path(ctx.saved["apply.log"]).read_text()


def put_back_patches(repo: Path) -> dict[str, str]:
    """A fix with what agents add beside it: tests of their own, edits to the repository's tests."""
    fixed = (repo / "pkg" / "core.py").read_text().replace("return 3\n", "return 33\n")
    return {
        "new-test-and-conftest": patches(repo)["new-test-and-conftest"],
        "edited-and-deleted-tests": make_patch(
            repo,
            {
                "pkg/core.py": fixed,
                "tests/test_core.py": "def test_f():\n    assert 33\n",
                "test_reproduce.py": "def test_reproduce():\n    pass\n",
            },
        ),
        "deleted-test": make_patch(repo, {"pkg/core.py": fixed, "tests/test_core.py": None}),
    }


def status_lines(log: str) -> list[str]:
    """The script's ``git status --short`` and ``ls pkg`` lines: the tree the tests saw."""
    return [line for line in log.splitlines() if re.fullmatch(r"( M| D|\?\?) \S+|\w+\.py", line)]


def same_as_in_its_own_command(tmp_path: Path, patch: str) -> tuple[EvalRun, Integrity]:
    """Under ``strict``, the patch applied in the eval command and in a command of its own: the
    same notes, put-backs, tree the script saw and outcome, the former in one command. The
    former's run and grading state."""
    alone, alone_ctx, alone_box = evaluate(tmp_path / "alone", patch, fused=False, policy="strict")
    fused, fused_ctx, fused_box = evaluate(tmp_path / "fused", patch, fused=True, policy="strict")
    task = Task(family="swe-bench", instance_id="t", image="local")
    seen = [integrity_of(task, ctx) for ctx in (alone_ctx, fused_ctx)]
    assert seen[0].neutralized == seen[1].neutralized
    assert seen[0].patched == seen[1].patched
    assert status_lines(fused.log) == status_lines(alone.log)
    assert (fused.ran, fused.exit_code, fused.verdict.reasons) == (
        alone.ran,
        alone.exit_code,
        alone.verdict.reasons,
    )
    assert fused.verdict.extra["apply_in"] == "eval_command" and len(fused_box.commands) == 1
    assert alone.verdict.extra["apply_in"] == "own_command" and len(alone_box.commands) > 1
    return fused, seen[1]


@pytest.mark.parametrize("case", ["new-test-and-conftest", "edited-and-deleted-tests", "deleted-test"])
def test_under_strict_what_is_put_back_by_its_path_is_put_back_in_the_eval_command(
    tmp_path: Path, locked: None, case: str
) -> None:
    """Test files and ``conftest.py`` an agent added or edited: put back in the eval command
    itself, the script run once there, with the same tree, notes and outcome as when a command
    of their own puts them back."""
    patch = put_back_patches(make_repo(tmp_path / "source"))[case]
    fused, seen = same_as_in_its_own_command(tmp_path, patch)
    assert seen.neutralized and seen.patched == ["pkg/core.py"]
    assert " M pkg/core.py" in status_lines(fused.log)
    assert not any("test" in line for line in status_lines(fused.log))


@pytest.mark.parametrize(
    "moves",
    [{"pkg/old.py": "pkg/older.py"}, {"tests/test_core.py": "tests/test_renamed.py"}],
    ids=["module", "test-file"],
)
def test_under_strict_a_rename_is_applied_in_the_eval_command_as_in_its_own(
    tmp_path: Path, locked: None, moves: dict[str, str]
) -> None:
    """A fix with a file renamed beside it: one command, and the same tree, notes and outcome as
    with the apply in a command of its own (a renamed test file put back at its old path)."""
    source = make_repo(tmp_path / "source")
    fixed = (source / "pkg" / "core.py").read_text().replace("return 3\n", "return 33\n")
    patch = make_patch(source, {"pkg/core.py": fixed}, moves)
    assert "rename from" in patch
    fused, seen = same_as_in_its_own_command(tmp_path, patch)
    if "tests/test_core.py" in moves:
        assert seen.patched == ["pkg/core.py"] and len(seen.neutralized) == 2
        assert not any("test" in line for line in status_lines(fused.log))
    else:
        assert seen.patched == ["pkg/core.py", "pkg/older.py"] and seen.neutralized == []
        assert " D pkg/old.py" in status_lines(fused.log) and "?? pkg/older.py" in status_lines(fused.log)


def installed_here() -> str | None:
    """A module the site directories the tree's record lists hold here (as in an image), that the
    policy does not guard by name."""
    for pattern in SITE_DIR_GLOBS:
        for site in sorted(glob.glob(pattern)):
            for entry in sorted(os.listdir(site)):
                module = installed_module(entry)
                if (
                    module
                    and module.isidentifier()
                    and module not in SHADOWABLE
                    and not module.startswith("_")
                ):
                    return module
    return None


@pytest.mark.parametrize("module", ["reproduce_issue", "installed"])
def test_under_strict_a_new_top_level_module_is_applied_in_the_eval_command_unless_installed(
    tmp_path: Path, locked: None, module: str
) -> None:
    """An agent's reproduction script at the repository's top goes in the eval command; a new
    module of a name the image has installed fails the check there, and is put back as shadowing
    it, as it would be with the apply in a command of its own."""
    name = installed_here() if module == "installed" else module
    if name is None:
        pytest.skip("no installed module in this machine's site directories")
    source = make_repo(tmp_path / "source")
    fixed = (source / "pkg" / "core.py").read_text().replace("return 3\n", "return 33\n")
    patch = make_patch(source, {"pkg/core.py": fixed, f"{name}.py": "print('reproduced')\n"})
    run, ctx, box = evaluate(tmp_path / "e", patch, fused=True, policy="strict")
    assert run.ran and run.verdict.patch_applied
    neutralized = [
        str(p)
        for p in integrity_of(Task(family="swe-bench", instance_id="t", image="local"), ctx).neutralized
    ]
    if module == "installed":
        assert run.verdict.extra["apply_in"] == "eval_command_not_foretold" and len(box.commands) > 1
        assert any(f"{name}.py" in p and "shadows the installed one" in p for p in neutralized), neutralized
        assert (
            f"{name}.py" not in run.log
        )  # put back before the tests: the script's git status shows no such file
    else:
        assert run.verdict.extra["apply_in"] == "eval_command" and len(box.commands) == 1
        assert neutralized == []
        assert f"?? {name}.py" in run.log  # the script's git status shows it kept


def test_when_the_patch_is_applied_in_the_script_command(tmp_path: Path) -> None:
    def decided(policy: str, patch: str) -> bool:
        task = Task(family="swe-bench", instance_id="t", image="local")
        ctx = EvalContext(
            settings=benchmark_settings("swe-bench", eval={"policy": policy}),
            artifacts=tmp_path,
            timeout=60,
            output_limit=1 << 20,
        )
        return applies_with_script(task, patch, ctx)

    plain = (
        "diff --git a/pkg/core.py b/pkg/core.py\n--- a/pkg/core.py\n+++ b/pkg/core.py\n@@ -1 +1 @@\n-a\n+b\n"
    )
    assert decided("official", plain)
    assert decided("strict", plain)  # foretold by its text: the probe is planned from it
    assert decided("strict", plain.replace("pkg/core.py", "tests/test_core.py"))  # put back there
    added = "diff --git a/json.py b/json.py\nnew file mode 100644\n--- /dev/null\n+++ b/json.py\n@@ -0,0 +1 @@\n+a\n"
    assert not decided("strict", added)  # put back or not as the tree decides: a command of its own
    assert not decided("official", "")
    for name in ("setup.cfg", "pyproject.toml"):  # their settings are read as the patch left them
        assert not decided("official", plain.replace("pkg/core.py", name))
        assert not decided("strict", plain.replace("pkg/core.py", name))
        # Named only in the code: under strict the paths decide (the sandbox checks them), elsewhere
        # the whole text does.
        mentioned = plain.replace("+b\n", f"+b = {name!r}\n")
        assert decided("strict", mentioned) and not decided("official", mentioned)
