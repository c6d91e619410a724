"""The swe-smith family: the reversed bug patch, images, profiles, grading, no-network preparation,
and end to end in Docker."""

from __future__ import annotations

import copy
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.api.errors import RowError
from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.api.verdict import Verdict
from pytest_swe.families import swesmith
from pytest_swe.tools import gitsnap

from conftest import REPO
from conftest import SweProject
from conftest import benchmark_settings
from conftest import build_local_images
from conftest import load_module
from conftest import read_jsonl

BENCHMARKS = REPO / "benchmarks"
LOCAL_YAML = BENCHMARKS / "swe-smith-local.yaml"
LOCAL = BENCHMARKS / "swe-smith-local"
ROWS = read_jsonl(LOCAL / "rows.jsonl")
IDS = sorted(row["instance_id"] for row in ROWS)
IN_IMAGE = next(r for r in ROWS if r["instance_id"].endswith("func_pm_op_change__k3j2h1ab"))
NOT_IN_IMAGE = next(r for r in ROWS if r["instance_id"].endswith("lm_rewrite__p9q8r7st"))
docker = pytest.mark.docker


def settings(**images: Any) -> BenchmarkSettings:
    return benchmark_settings("swe-smith", images=images)


BUG = """\
diff --git a/pkg/mod.py b/pkg/mod.py
index 1111111..2222222 100644
--- a/pkg/mod.py
+++ b/pkg/mod.py
@@ -1,2 +1,2 @@
 def f(x):
-    return x + 1
+    return x - 1
"""


def row(**fields: Any) -> dict[str, Any]:
    base = {
        "instance_id": "owner__proj.a1b2c3d4.func_pm_op_change__zz",
        "repo": "swesmith/owner__proj.a1b2c3d4",
        "patch": BUG,
        "FAIL_TO_PASS": ["tests/test_mod.py::test_f", "tests/test_mod.py::test_g"],
        "PASS_TO_PASS": ["tests/test_mod.py::test_h", "tests/test_other.py::test_i"],
        "created_at": "2025-03-14T18:40:02.117250",
        "image_name": "swesmith.x86_64.owner__proj.a1b2c3d4",
        "base_commit": "f" * 40,
        "problem_statement": "f() is off by two.",
    }
    base.update(fields)
    return base


# --- the gold fix --------------------------------------------------------------------------------


def git_tree(path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    return path


def files_of(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.parts
    }


def test_reversed_bug_patch_restores_the_clean_tree(tmp_path: Path) -> None:
    clean = git_tree(
        tmp_path / "clean",
        {"keep.py": "a\nb\nc\n", "edit.py": "x = 1\ny = 2\n", "gone.py": "old\n", "tail.txt": "no newline"},
    )
    buggy = git_tree(
        tmp_path / "buggy", {"keep.py": "a\nb\nc\n", "edit.py": "x = 2\ny = 2\nz = 3\n", "new.py": "n\n"}
    )
    (buggy / "tail.txt").write_text("no newline either")
    bug = gitsnap.diff_trees(clean, buggy, tmp_path / "scratch")
    gold = swesmith.reverse_patch(bug)
    work = tmp_path / "work"
    gitsnap.snapshot(buggy, work)
    gitsnap.git(["apply", "-"], work, input=gold)
    assert files_of(work) == files_of(clean)
    assert swesmith.reverse_patch(gold) == bug


def test_reverse_keeps_a_removed_line_that_looks_like_a_header() -> None:
    bug = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,1 @@\n--- old\n keep\n"
    assert swesmith.reverse_patch(bug) == "--- a/f.txt\n+++ b/f.txt\n@@ -1,1 +1,2 @@\n+-- old\n keep\n"


def test_binary_bug_patches_are_a_row_error() -> None:
    with pytest.raises(RowError) as info:
        swesmith.FAMILY.normalize(
            row(patch="diff --git a/x.bin b/x.bin\nGIT binary patch\nliteral 1\n"), settings()
        )
    assert info.value.field == "patch"


# --- rows ----------------------------------------------------------------------------------------


def test_published_row() -> None:
    task = swesmith.FAMILY.normalize(row(), settings())
    assert task.image == "jyangballin/swesmith.x86_64.owner_1776_proj.a1b2c3d4:latest"
    assert task.repo == "owner/proj" and task.workdir == "/testbed"
    assert task.gold_patch == swesmith.reverse_patch(BUG) and task.test_patch is None
    assert task.base_commit is None and task.raw["bug_commit"] == "f" * 40
    assert task.test_cmds == ["pytest --disable-warnings --color=no --tb=no --verbose tests/test_mod.py"]
    # Only the tests of the files that run are graded.
    assert task.pass_to_pass == ["tests/test_mod.py::test_h"]
    assert task.created_at == "2025-03-14T18:40:02.117250"


def test_image_names() -> None:
    assert (
        swesmith.FAMILY.normalize(row(image_name="jyangballin/custom:1"), settings()).image
        == "jyangballin/custom:1"
    )
    derived = swesmith.FAMILY.normalize(row(image_name=None), settings(namespace="mirror", tag="v1"))
    assert derived.image == "mirror/swesmith.x86_64.owner_1776_proj.a1b2c3d4:v1"
    local = swesmith.FAMILY.normalize(row(), settings(namespace=""))
    assert local.image == "swesmith.x86_64.owner__proj.a1b2c3d4:latest"


def test_a_malformed_lower_case_test_list_is_a_row_error_even_beside_a_filled_upper_case_one() -> None:
    """Both spellings are read, as SWE-rebench reads them: a broken column is never passed over."""
    with pytest.raises(RowError, match="fail_to_pass"):
        swesmith.FAMILY.normalize(row(fail_to_pass="[not json"), settings())


def test_json_string_lists_lower_case_keys_and_profiles() -> None:
    data = row(FAIL_TO_PASS=None, PASS_TO_PASS=None, fail_to_pass='["tests/a.py::t"]', pass_to_pass="[]")
    data["instance_id"] = "paramiko__paramiko.23f92003.func_basic__x"
    task = swesmith.FAMILY.normalize(data, settings())
    assert task.fail_to_pass == ["tests/a.py::t"] and task.log_parser == "parse_log_paramiko"
    assert task.test_cmds == ["pytest -rA --color=no --disable-warnings tests/a.py"]
    mypy = swesmith.FAMILY.normalize(
        row(
            instance_id="python__mypy.e93f06ce.x",
            FAIL_TO_PASS=["mypy/test/testcheck.py::TypeCheckSuite::check-a.test::testA"],
        ),
        settings(),
    )
    assert mypy.test_cmds == ['pytest --color=no -rA -k "testA"']
    tornado = swesmith.FAMILY.normalize(row(instance_id="tornadoweb__tornado.d5ac65c1.x"), settings())
    assert tornado.test_cmds == ["python -m tornado.test --verbose"] and len(tornado.pass_to_pass) == 2


@pytest.mark.parametrize(
    ("data", "field"),
    [
        (row(image_name=None, repo="owner/proj"), "image_name"),
        (row(FAIL_TO_PASS="[oops"), "FAIL_TO_PASS"),
        (row(patch=""), "patch"),
        (row(instance_id="noseparator"), "instance_id"),
    ],
)
def test_malformed_rows_name_the_field(data: dict[str, Any], field: str) -> None:
    with pytest.raises(RowError) as info:
        swesmith.FAMILY.normalize(data, settings())
    assert info.value.field == field


# --- parsing and grading ---------------------------------------------------------------------------


VERBOSE_LOG = """\
+ : '>>>>> Start Test Output'
+ pytest --disable-warnings --color=no --tb=no --verbose tests/test_mod.py
tests/test_mod.py::test_f PASSED                                         [ 33%]
tests/test_mod.py::test_g FAILED                                         [ 66%]
tests/test_mod.py::test_h PASSED                                         [100%]
+ : '>>>>> End Test Output'
"""


def grade(log: str, *, patch: bool = True, lenient: bool = False, **fields: Any) -> Verdict:
    task = swesmith.FAMILY.normalize(row(**fields), settings())
    return swesmith.grade_log(
        task, log, Verdict(resolved=False, patch_exists=patch), missing_tests_pass=lenient
    )


def test_verbose_lines_between_the_markers() -> None:
    assert swesmith.parse_log_pytest(swesmith.read_test_output(VERBOSE_LOG) or "") == {
        "tests/test_mod.py::test_f": "PASSED",
        "tests/test_mod.py::test_g": "FAILED",
        "tests/test_mod.py::test_h": "PASSED",
    }
    verdict = grade(VERBOSE_LOG)
    assert not verdict.resolved and verdict.group("FAIL_TO_PASS").failure == ["tests/test_mod.py::test_g"]


def test_all_required_tests_pass_resolves_but_not_for_an_empty_patch() -> None:
    log = VERBOSE_LOG.replace("test_g FAILED", "test_g PASSED")
    assert grade(log).resolved
    assert not grade(log, patch=False).resolved


def test_a_missing_test_fails_unless_upstreams_leniency_is_asked_for() -> None:
    log = VERBOSE_LOG.replace("tests/test_mod.py::test_g FAILED", "")
    strict = grade(log)
    assert not strict.resolved and strict.group("FAIL_TO_PASS").failure == ["tests/test_mod.py::test_g"]
    assert grade(log, lenient=True).resolved


def test_a_log_without_markers_and_an_empty_f2p_never_resolve() -> None:
    log = VERBOSE_LOG.replace("test_g FAILED", "test_g PASSED")
    assert not grade(log.replace("+ : '>>>>> End Test Output'\n", "")).resolved
    empty = grade(log, FAIL_TO_PASS=[])
    assert not empty.resolved and swesmith.EMPTY_F2P_REASON in empty.reasons


def test_profile_parsers() -> None:
    assert swesmith.parse_log_status_first("PASSED tests/a.py::t\nFAILED tests/a.py::u - x\n") == {
        "tests/a.py::t": "PASSED",
        "tests/a.py::u": "FAILED",
    }
    assert swesmith.parse_log_xdist("[gw0] PASSED tests/a.py::t\n") == {"tests/a.py::t": "PASSED"}
    assert swesmith.parse_log_unittest_verbose("test_x (m.T) ... ok\nFAIL: test_y (m.T)\n") == {
        "test_x (m.T)": "PASSED",
        "test_y (m.T)": "FAILED",
    }


# --- preparing a sandbox without network -------------------------------------------------------------


def run_prepare(repo: Path, commit: str | None, bug: str, tmp_path: Path, *, scrub: bool) -> str:
    patch = tmp_path / "bug.diff"
    patch.write_text(bug)
    script = swesmith.prepare_script(str(repo), commit, scrub_history=scrub, bug_patch_path=str(patch))
    env = {
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
    }
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture
def smith_repo(tmp_path: Path) -> tuple[Path, str, str]:
    """A repository at the clean commit, holding a bug branch; returns (repo, clean commit, bug commit)."""
    source = git_tree(tmp_path / "src", {"pkg/mod.py": "def f(x):\n    return x + 1\n"})
    repo = tmp_path / "repo"
    clean = gitsnap.snapshot(source, repo)
    gitsnap.git(["checkout", "-q", "-b", "bug"], repo)
    gitsnap.git(["apply", "-"], repo, input=BUG)
    gitsnap.git(["commit", "-qam", "bug"], repo)
    bug = gitsnap.git(["rev-parse", "HEAD"], repo).strip()
    gitsnap.git(["checkout", "-q", "main"], repo)
    return repo, clean, bug


def test_prepare_checks_out_a_commit_the_image_has(smith_repo: tuple[Path, str, str], tmp_path: Path) -> None:
    repo, _, bug = smith_repo
    assert "checked out" in run_prepare(repo, bug, BUG, tmp_path, scrub=False)
    assert gitsnap.git(["rev-parse", "HEAD"], repo).strip() == bug


def test_prepare_applies_the_bug_when_the_commit_is_absent(
    smith_repo: tuple[Path, str, str], tmp_path: Path
) -> None:
    repo, clean, _ = smith_repo
    assert "applied the bug patch" in run_prepare(repo, "e" * 40, BUG, tmp_path, scrub=False)
    assert "x - 1" in (repo / "pkg/mod.py").read_text()
    assert gitsnap.git(["status", "--porcelain"], repo) == ""
    assert gitsnap.git(["rev-parse", "HEAD~1"], repo).strip() == clean


def test_agent_repository_keeps_no_history(smith_repo: tuple[Path, str, str], tmp_path: Path) -> None:
    repo, clean, bug = smith_repo
    run_prepare(repo, bug, BUG, tmp_path, scrub=True)
    assert "x - 1" in (repo / "pkg/mod.py").read_text()
    assert gitsnap.git(["rev-list", "--all"], repo).split() == [
        gitsnap.git(["rev-parse", "HEAD"], repo).strip()
    ]
    for commit in (clean, bug):
        assert subprocess.run(["git", "cat-file", "-e", commit], cwd=repo, check=False).returncode != 0
    assert gitsnap.git(["status", "--porcelain"], repo) == ""


# --- the local dataset --------------------------------------------------------------------------------


def test_local_rows_use_the_published_schema() -> None:
    assert len(IDS) == 2
    for data in ROWS:
        assert tuple(data) == load_module(LOCAL / "make_rows.py").COLUMNS
        assert data["repo"] == "swesmith/" + data["instance_id"].rsplit(".", 1)[0]
        assert data["image_name"] == "swesmith.x86_64." + data["repo"].removeprefix("swesmith/")
    assert len({r["image_name"] for r in ROWS}) == 1  # one image per repository at a commit


# --- end to end -----------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def smith_images(docker_engine: Any, base_image: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    build_local_images(docker_engine, tmp_path_factory, LOCAL_YAML, force=True)


@docker
def test_gold_resolves_every_local_row(swe_project: SweProject, smith_images: None) -> None:
    run = swe_project.run(str(LOCAL_YAML), "--swe-agent", "gold")
    assert run.outcomes() == dict.fromkeys(IDS, "passed"), run.result.stdout.str()
    prepared = {case.instance_id: Path(case.properties["prepare_log_path"]).read_text() for case in run.cases}
    assert "checked out" in prepared[IN_IMAGE["instance_id"]]
    assert "applied the bug patch" in prepared[NOT_IN_IMAGE["instance_id"]]


@docker
def test_empty_patch_resolves_none(swe_project: SweProject, smith_images: None) -> None:
    run = swe_project.run(str(LOCAL_YAML), "--swe-agent", "empty")
    assert run.outcomes() == dict.fromkeys(IDS, "failed"), run.result.stdout.str()
    assert "tests/test_truncate.py::test_exact_width (FAILED)" in run.by_id[IN_IMAGE["instance_id"]].message
    assert "tests/test_slug.py::test_digits_kept (FAILED)" in run.by_id[NOT_IN_IMAGE["instance_id"]].message


@docker
def test_wrong_patch_fails_naming_the_broken_tests(swe_project: SweProject, smith_images: None) -> None:
    run = swe_project.run(str(LOCAL_YAML), "--swe-predictions", str(LOCAL / "predictions-wrong.jsonl"))
    case = run.by_id[IN_IMAGE["instance_id"]]
    assert case.outcome == "failed" and case.properties["f2p_passed"] == "1"
    assert "PASS_TO_PASS failing (2 of 3)" in case.message
    assert "tests/test_truncate.py::test_long (FAILED)" in case.message
    assert run.by_id[NOT_IN_IMAGE["instance_id"]].outcome == "skipped"


@docker
def test_malformed_rows_error_and_the_others_run(swe_project: SweProject, smith_images: None) -> None:
    good = copy.deepcopy(NOT_IN_IMAGE)
    no_image = dict(
        copy.deepcopy(good), instance_id=good["instance_id"] + "x", image_name=None, repo="tinyworks/strkit"
    )
    bad_json = dict(copy.deepcopy(good), instance_id=good["instance_id"] + "y", PASS_TO_PASS="[oops")
    swe_project.variant(LOCAL_YAML, "smith-malformed", [no_image, bad_json, good])
    run = swe_project.run("benchmarks/")
    assert run.outcomes() == {
        no_image["instance_id"]: "error",
        bad_json["instance_id"]: "error",
        good["instance_id"]: "passed",
    }
    run.assert_bad_rows(
        {
            no_image["instance_id"]: (f"row 1 ({no_image['instance_id']})", "field 'image_name'"),
            bad_json["instance_id"]: (f"row 2 ({bad_json['instance_id']})", "field 'PASS_TO_PASS'"),
        }
    )


AGENT_VIEW = """
import pytest

def sh(sandbox, command):
    result = sandbox.exec(command, timeout=60, workdir="/testbed")
    return result.exit_code, result.output.strip()

@pytest.mark.parametrize("instance_id", {ids!r})
def test_view(request, instance_id):
    request.applymarker(pytest.mark.swe_task({benchmark!r}, instance_id))
    sandbox = request.getfixturevalue("swe_agent_sandbox")
    task = request.getfixturevalue("swe_task")
    assert sh(sandbox, "git rev-list --all | wc -l") == (0, "1")
    assert sh(sandbox, "git status --porcelain") == (0, "")
    assert sh(sandbox, "git cat-file -e {clean}")[0] != 0
    assert sh(sandbox, "git cat-file -e " + task.raw["bug_commit"])[0] != 0
    check = sandbox.exec("git apply --check /dev/stdin <<'EOF'\\n" + task.gold_patch + "\\nEOF", timeout=60, workdir="/testbed")
    assert check.exit_code == 0, check.output
"""


@docker
def test_agent_sandbox_holds_the_bug_without_the_clean_history(
    swe_project: SweProject, smith_images: None
) -> None:
    """Both ways to the buggy tree (the branch is in the image, or not) leave the agent one commit."""
    clean = gitsnap.commit_id(
        LOCAL / "instances" / "tinyworks__strkit" / "repo", swe_project.path / "scratch"
    )
    source = AGENT_VIEW.format(ids=IDS, benchmark=str(LOCAL_YAML), clean=clean)
    swe_project.pytester.makepyfile(test_agent_view=source)
    run = swe_project.run("test_agent_view.py")
    run.result.assert_outcomes(passed=2)
