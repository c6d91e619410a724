"""The strict policy's apply in the eval command: what a patch's text foretells (``foresee``), and
the check in the sandbox that the tree changed just so (``WorkTree.check_foreseen``), run on a real
git repository by bash, dash and BusyBox's sh, with GNU's and BusyBox's tools."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from gitrepo import ENV
from gitrepo import commit_all
from gitrepo import git
from gitrepo import make_patch
from gitrepo import new_file_diff
from hypothesis import given
from hypothesis import strategies as st

from pytest_swe.api.family import EvalContext
from pytest_swe.api.task import Task
from pytest_swe.grading.patching import apply_script
from pytest_swe.grading.paths import PathChange
from pytest_swe.grading.paths import installed_module
from pytest_swe.grading.paths import new_importable_modules
from pytest_swe.grading.paths import top_level_module
from pytest_swe.grading.paths import why_neutralized
from pytest_swe.grading.pipeline import Foreseen
from pytest_swe.grading.pipeline import applies_with_script
from pytest_swe.grading.pipeline import foresee
from pytest_swe.grading.pipeline import integrity_of
from pytest_swe.grading.tree import WorkTree

from conftest import benchmark_settings

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

SHELLS = [["bash"], ["dash"], ["busybox", "sh"]]
TOOLS = ("tr", "paste", "cmp", "sort", "wc", "cat", "cut", "grep", "rm")


@pytest.fixture(
    params=[(shell, tools) for shell in SHELLS for tools in ("gnu", "busybox")],
    ids=lambda p: f"{'-'.join(p[0])}-{p[1]}",
)
def shell_env(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[list[str], dict[str, str]]:
    shell, tools = request.param
    if shutil.which(shell[0]) is None:
        pytest.skip(f"{shell[0]} is not installed here")
    env = {**os.environ, **ENV}
    if tools == "busybox":
        bin_dir = tmp_path / "busybox-bin"
        bin_dir.mkdir()
        for applet in TOOLS:
            (bin_dir / applet).symlink_to(shutil.which("busybox") or "busybox")
        env["PATH"] = f"{bin_dir}:{env['PATH']}"
    return shell, env


def make_repo(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "core.py").write_text("def f():\n    return 1\n")
    (root / "pkg" / "old.py").write_text("X = 1\n")
    (root / "README").write_text("docs\n")
    commit_all(root)
    return root


def ctx_for(tmp_path: Path, policy: str = "strict", **options: Any) -> EvalContext:
    return EvalContext(
        settings=benchmark_settings("swe-bench", eval={"policy": policy, "policy_options": options}),
        artifacts=tmp_path / "artifacts",
        timeout=60,
        output_limit=1 << 20,
    )


def foretold(tmp_path: Path, patch: str, policy: str = "strict", test_patch: str = "") -> Foreseen | None:
    task = Task(family="swe-bench", instance_id="t", image="local", workdir="/testbed", test_patch=test_patch)
    return foresee(patch, integrity_of(task, ctx_for(tmp_path, policy)))


FIX = {"pkg/core.py": "def f():\n    return 2\n", "pkg/util.py": "Y = 2\n", "pkg/old.py": None}


def test_a_fix_is_foretold_as_it_will_change_the_tree(tmp_path: Path) -> None:
    patch = make_patch(make_repo(tmp_path / "repo"), FIX)
    seen = foretold(tmp_path, patch)
    assert seen == Foreseen(tracked=(("D", "pkg/old.py"), ("M", "pkg/core.py")), added=("pkg/util.py",))
    assert seen.patched == ["pkg/core.py", "pkg/util.py"]


@pytest.mark.parametrize(
    "edit",
    [
        {"json.py": "X = 1\n"},  # a new top-level module of a name the policy always guards
        {"my-tool.py": "X = 1\n"},  # a new top-level name no import statement can take
        {"pkg/it's.py": "X = 1\n"},  # a quote the check cannot say plainly
        {"pkg/caf\u00e9.py": "X = 1\n"},  # not ASCII
        {"setup.cfg": "[metadata]\nname = x\n"},  # its pytest settings are read from the tree
    ],
    ids=["shadowing-module", "not-an-identifier", "quote", "non-ascii", "setup-cfg"],
)
def test_what_the_text_cannot_foretell_is_applied_in_a_command_of_its_own(
    tmp_path: Path, edit: dict[str, str | None]
) -> None:
    repo = make_repo(tmp_path / "repo")
    patch = make_patch(repo, {"pkg/core.py": "def f():\n    return 2\n", **edit})
    assert foretold(tmp_path, patch) is None
    task = Task(family="swe-bench", instance_id="t", image="local", workdir="/testbed")
    assert not applies_with_script(task, patch, ctx_for(tmp_path))
    assert applies_with_script(task, patch, ctx_for(tmp_path, "official")) is ("setup.cfg" not in edit)


def test_a_new_top_level_module_is_foretold_with_its_name(tmp_path: Path) -> None:
    """An agent's reproduction script at the repository's top, a new package, a new module under
    ``src``: foretold, with the names the check in the sandbox looks for among the installed ones."""
    repo = make_repo(tmp_path / "repo")
    patch = make_patch(
        repo,
        {
            **FIX,
            "reproduce_issue.py": "print(1)\n",
            "newpkg/__init__.py": "",
            "newpkg/core.py": "Z = 3\n",
            "src/extra.py": "Y = 1\n",
            "notes.txt": "a note\n",
        },
    )
    seen = foretold(tmp_path, patch)
    assert seen is not None
    assert seen.new_modules == ("extra", "newpkg", "reproduce_issue")
    assert "reproduce_issue.py" in seen.added and "notes.txt" in seen.added


TESTS_ADDED = {
    "tests/test_core.py": "def test_core():\n    pass\n",  # a new test file
    "pkg/conftest.py": "x = 1\n",  # a new conftest
    "test_reproduce.py": "def test_reproduce():\n    pass\n",  # at the top: a test file first
}


def test_what_the_policy_puts_back_by_its_path_is_foretold_as_put_back(tmp_path: Path) -> None:
    """Test files and ``conftest.py`` are put back whatever they hold: foretold as changed, then
    put back, and not among the paths the probe is planned for; nor a new module's name to look
    for among the installed ones (a test file at the top is put back as a test file)."""
    repo = make_repo(tmp_path / "repo")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_old.py").write_text("def test_old():\n    pass\n")
    (repo / "tests" / "test_gone.py").write_text("def test_gone():\n    pass\n")
    commit_all(repo)
    edits = {
        **FIX,
        **TESTS_ADDED,
        "tests/test_old.py": "def test():\n    assert 1\n",
        "tests/test_gone.py": None,
    }
    seen = foretold(tmp_path, make_patch(repo, edits))
    assert seen is not None
    assert seen.put_back == (
        "pkg/conftest.py",
        "test_reproduce.py",
        "tests/test_core.py",
        "tests/test_gone.py",
        "tests/test_old.py",
    )
    assert seen.patched == ["pkg/core.py", "pkg/util.py"]
    assert seen.new_modules == ()
    assert ("D", "tests/test_gone.py") in seen.tracked and "tests/test_core.py" in seen.added
    # A file of the test patch is put back as such, whatever its name.
    test_patch = make_patch(repo, {"pkg/util.py": "Z = 3\n"})
    other = foretold(
        tmp_path,
        make_patch(repo, {"pkg/core.py": "def f():\n    return 2\n", "pkg/util.py": "Y\n"}),
        test_patch=test_patch,
    )
    assert other is not None and other.put_back == ("pkg/util.py",) and other.patched == ["pkg/core.py"]


def test_files_under_a_new_directory_that_makes_no_module_are_foretold_without_a_name(tmp_path: Path) -> None:
    """A CI workflow, a script folder without ``__init__.py``, notes under ``docs/``: no import
    finds a module there before an installed one, so there is no name to look for; a package's
    ``__init__.py`` makes one."""
    repo = make_repo(tmp_path / "repo")
    loose = {
        **FIX,
        ".github/workflows/tests.yml": "name: tests\n",
        "scripts/repro.py": "print(1)\n",
        "docs/notes/fix.md": "a note\n",
    }
    seen = foretold(tmp_path, make_patch(repo, loose))
    assert seen is not None and seen.new_modules == () and ".github/workflows/tests.yml" in seen.added
    packaged = foretold(tmp_path, make_patch(repo, {**loose, "scripts/__init__.py": ""}))
    assert packaged is not None and packaged.new_modules == ("scripts",)


SEGMENTS = ["pkg", "src", "tests", ".github", "my-tool", "json", "scripts", "docs"]
LEAVES = ["__init__.py", "x.py", "my-tool.py", "a.so", "notes.txt", "conftest.py", "test_x.py", "json.py"]


@given(
    st.lists(
        st.builds(
            lambda dirs, leaf: "/".join([*dirs, leaf]),
            st.lists(st.sampled_from(SEGMENTS), max_size=3),
            st.sampled_from(LEAVES),
        ),
        min_size=1,
        max_size=6,
        unique=True,
    )
)
def test_whatever_the_host_would_put_back_of_new_files_is_foretold_or_looked_for(paths: list[str]) -> None:
    """For any set of new files: every path the host puts back whatever the tree holds is foretold
    as put back, and every module the host could put back for shadowing an installed one (with
    any image's modules, on a tree without the patch's top-level entries) is a name the check in
    the sandbox looks for, or the patch is not foretold at all."""
    if any(a != b and b.startswith(a + "/") for a in paths for b in paths):
        return  # a file where another needs a directory: no tree holds both
    task = Task(family="swe-bench", instance_id="t", image="local", workdir="/testbed")
    integrity = integrity_of(task, ctx_for(Path("/nonexistent")))
    seen = foresee("".join(new_file_diff(p, "x\n") for p in paths), integrity)
    if seen is None:
        return
    changes = [PathChange(p, "added") for p in paths]
    importable = new_importable_modules(changes, frozenset())
    for change in changes:
        by_path = why_neutralized(change, integrity.protection, frozenset())
        assert (by_path is not None) == (change.path in seen.put_back), change.path
        if by_path is None:
            # With every importable name installed: what the host would put back for shadowing.
            shadow = why_neutralized(change, integrity.protection, frozenset(), importable)
            top = top_level_module(change.path)
            assert shadow is None or (top is not None and top[1] in seen.new_modules), (change.path, shadow)


RENAMES: dict[str, tuple[dict[str, str], dict[str, str | None], Foreseen]] = {
    "module": (
        {"pkg/old.py": "pkg/older.py"},
        {},
        Foreseen(tracked=(("D", "pkg/old.py"),), added=("pkg/older.py",)),
    ),
    "module-and-edit": (
        {"pkg/core.py": "pkg/base.py"},
        {"pkg/base.py": "def f():\n    return 1\n\n\ng = f\n", "pkg/old.py": "X = 2\n"},
        Foreseen(tracked=(("D", "pkg/core.py"), ("M", "pkg/old.py")), added=("pkg/base.py",)),
    ),
    "to-the-top": (
        {"pkg/old.py": "old_module.py"},
        {},
        Foreseen(tracked=(("D", "pkg/old.py"),), added=("old_module.py",), new_modules=("old_module",)),
    ),
    "into-tests": (
        {"pkg/old.py": "tests/test_old.py"},
        {},
        Foreseen(
            tracked=(("D", "pkg/old.py"),), added=("tests/test_old.py",), put_back=("tests/test_old.py",)
        ),
    ),
    "to-a-new-dir": (
        {"README": "docs/README"},
        {},
        Foreseen(tracked=(("D", "README"),), added=("docs/README",)),
    ),
}


@pytest.mark.parametrize("case", RENAMES)
def test_a_rename_is_foretold_as_its_old_path_deleted_and_its_new_one_added(
    tmp_path: Path, shell_env: tuple[list[str], dict[str, str]], case: str
) -> None:
    """As the tree's record reads it (``--no-renames``): the check after a real apply passes, and
    the tree is as git leaves it."""
    moves, edit, expected = RENAMES[case]
    repo = make_repo(tmp_path / "repo")
    patch = make_patch(repo, edit, moves)
    assert "rename from" in patch
    seen = foretold(tmp_path, patch)
    assert seen == expected
    back = seen.to_put_back if seen.put_back else None
    assert check(shell_env, tmp_path, patch, seen, put_back=back) == (0, "")
    for old, new in moves.items():
        assert not (repo / old).exists() and (repo / new).exists() is (new not in seen.put_back)


def test_a_rename_named_other_than_git_reads_it_fails_the_check(
    tmp_path: Path, shell_env: tuple[list[str], dict[str, str]]
) -> None:
    """The text only informs: a rename foretold the wrong way round (old and new swapped) is caught
    in the sandbox, and the patch goes on to a command of its own."""
    repo = make_repo(tmp_path / "repo")
    patch = make_patch(repo, {}, {"pkg/old.py": "pkg/older.py"})
    seen = Foreseen(tracked=(("D", "pkg/older.py"),), added=("pkg/old.py",))
    assert check(shell_env, tmp_path, patch, seen)[0] == 1


def test_a_symlink_a_copy_and_a_patch_over_the_size_limit_are_not_foretold(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "pkg" / "link.py").symlink_to("core.py")
    git(repo, "add", "-A")
    link = git(repo, "diff", "--cached", "HEAD")
    git(repo, "reset", "-q", "--hard", "HEAD")
    (repo / "pkg" / "link.py").unlink(missing_ok=True)
    assert "120000" in link and foretold(tmp_path, link) is None
    copied = (
        "diff --git a/pkg/old.py b/pkg/copy.py\nsimilarity index 100%\n"
        "copy from pkg/old.py\ncopy to pkg/copy.py\n"
    )
    assert foretold(tmp_path, copied) is None
    # A rename whose header names a third path: which two the tools take is not plain.
    odd = (
        "diff --git a/pkg/old.py b/pkg/older.py\nsimilarity index 100%\n"
        "rename from pkg/x.py\nrename to pkg/older.py\n"
    )
    assert foretold(tmp_path, odd) is None
    patch = make_patch(repo, FIX)
    task = Task(family="swe-bench", instance_id="t", image="local", workdir="/testbed")
    assert applies_with_script(task, patch, ctx_for(tmp_path))
    assert not applies_with_script(task, patch, ctx_for(tmp_path, max_patch_bytes=10))


def check(
    shell_env: tuple[list[str], dict[str, str]],
    tmp_path: Path,
    patch: str,
    seen: Foreseen,
    *,
    before: str = "",
    after: str = "",
    limit: int = 1 << 20,
    put_back: tuple[list[str], list[str]] | None = None,
) -> tuple[int, str]:
    """The apply inside the tree's record and read-back, then the check, as the eval command runs
    them: ``before`` runs in the repository first (the image's state), ``after`` between the apply
    and the check (what else the apply did); then, given ``put_back`` (tracked paths, added
    paths), the put-back and its check."""
    shell, env = shell_env
    repo = tmp_path / "repo"
    patch_file = tmp_path / "patch.diff"
    patch_file.write_text(patch)
    tree = WorkTree(None, str(repo), str(tmp_path / "t"), 60)  # type: ignore[arg-type]  # only its scripts
    applied = f"( {apply_script(str(repo), path=str(patch_file))}\n) || exit $?\ncd {repo}\n{after}\nexit 0\n"
    command = (
        f"cd {repo}\n{before}\n( {tree.around(applied)}\n) > {tmp_path}/out 2>&1 || exit $?\n"
        f"( {tree.check_foreseen(seen.tracked, seen.added, limit, seen.new_modules)}\n) || exit $?\n"
    )
    if put_back is not None:
        command += f"( {tree.put_back(*put_back)}\n)\n"
    done = subprocess.run([*shell, "-c", command], env=env, capture_output=True, text=True, check=False)
    return done.returncode, done.stderr


def foretold_fix(tmp_path: Path) -> tuple[Path, str, Foreseen]:
    """The repository, the fix's patch, and what its text foretells."""
    repo = make_repo(tmp_path / "repo")
    patch = make_patch(repo, FIX)
    seen = foretold(tmp_path, patch)
    assert seen is not None
    return repo, patch, seen


def test_the_tree_as_foretold_passes_the_check(
    tmp_path: Path, shell_env: tuple[list[str], dict[str, str]]
) -> None:
    repo, patch, seen = foretold_fix(tmp_path)
    assert check(shell_env, tmp_path, patch, seen) == (0, "")
    assert (repo / "pkg" / "util.py").exists() and not (repo / "pkg" / "old.py").exists()


@pytest.mark.parametrize(
    "case",
    [
        "another-foretelling",
        "extra-file",
        "dirty-before",
        "git-changed",
        "not-ascii",
        "over-limit",
        "nothing-new",
    ],
)
def test_a_tree_not_as_foretold_fails_the_check(
    tmp_path: Path, shell_env: tuple[list[str], dict[str, str]], case: str
) -> None:
    _, patch, seen = foretold_fix(tmp_path)
    kwargs: dict[str, Any] = {
        "another-foretelling": {"seen": Foreseen(tracked=(("M", "pkg/core.py"),), added=("pkg/util.py",))},
        "extra-file": {"after": ": > pkg/core.py.orig"},  # what patch leaves beside a file it fuzzed
        "dirty-before": {"before": "echo changed >> README"},
        "git-changed": {"after": "printf '#!/bin/sh\\n' > .git/hooks/post-checkout"},
        "not-ascii": {"before": "git branch \"caf$(printf '\\351')\""},  # a name the record lists
        "over-limit": {"limit": 10},
        "nothing-new": {"seen": Foreseen(tracked=seen.tracked, added=())},
    }[case]
    code, _ = check(shell_env, tmp_path, patch, kwargs.pop("seen", seen), **kwargs)
    assert code == 1


MODULE_FIX = {**FIX, "reproduce_issue.py": "print(1)\n"}


@pytest.mark.parametrize(
    ("installed", "code"),
    [
        ("", 0),
        ("reproduce_issue_extra.py\\nxreproduce_issue\\nreproduce-issue.pth\\n", 0),
        ("reproduce_issue.py\\n", 1),
        ("aaa\\nreproduce_issue\\nzzz\\n", 1),
        ("reproduce_issue.cpython-311-x86_64-linux-gnu.so\\n", 1),
        ("reproduce_issue.pyc\\n", 1),
    ],
    ids=["nothing", "other-names", "module-file", "package", "extension", "compiled"],
)
def test_a_new_module_passes_the_check_unless_the_image_has_it_installed(
    tmp_path: Path, shell_env: tuple[list[str], dict[str, str]], installed: str, code: int
) -> None:
    repo = make_repo(tmp_path / "repo")
    patch = make_patch(repo, MODULE_FIX)
    seen = foretold(tmp_path, patch)
    assert seen is not None and seen.new_modules == ("reproduce_issue",)
    add = f"printf '{installed}' >> {tmp_path}/t/installed"  # what the image's site directories hold
    assert check(shell_env, tmp_path, patch, seen, after=add)[0] == code


@given(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}(\.[A-Za-z0-9_-]{1,12}){0,3}", fullmatch=True))
def test_every_entry_read_as_a_module_is_found_by_its_name_up_to_the_first_dot(entry: str) -> None:
    """The check in the sandbox cuts each entry at its first dot; the host reads entries with
    ``installed_module``. Whatever the host would read as module M, the check finds as M."""
    module = installed_module(entry)
    if module is not None and module.isidentifier():
        assert entry.split(".", 1)[0] == module


def status(repo: Path) -> list[str]:
    return sorted(git(repo, "status", "--porcelain", "--untracked-files=all").splitlines())


def test_what_is_foretold_as_put_back_is_put_back_after_the_check(
    tmp_path: Path, shell_env: tuple[list[str], dict[str, str]]
) -> None:
    """After the check, the put-back leaves the tree as the fix alone changes it: the test files
    it edited or deleted as at HEAD, those it added gone (a name with a space and one starting
    with a dash among them)."""
    repo = make_repo(tmp_path / "repo")
    (repo / "tests").mkdir()
    for name in ("test_old.py", "test_gone.py", "test with space.py"):
        (repo / "tests" / name).write_text(f"def test_{name[5:-3].replace(' ', '_')}():\n    pass\n")
    commit_all(repo)
    edits = {
        **FIX,
        **TESTS_ADDED,
        "tests/test_old.py": "def test():\n    assert 1\n",
        "tests/test_gone.py": None,
        "tests/test with space.py": "def test():\n    assert 2\n",
        "tests/-test_dash.py": "def test_dash():\n    pass\n",
    }
    patch = make_patch(repo, edits)
    seen = foretold(tmp_path, patch)
    assert seen is not None and len(seen.put_back) == 7
    assert check(shell_env, tmp_path, patch, seen, put_back=seen.to_put_back) == (0, "")
    assert status(repo) == [" D pkg/old.py", " M pkg/core.py", "?? pkg/util.py"]


def test_a_put_back_that_does_not_hold_fails(
    tmp_path: Path, shell_env: tuple[list[str], dict[str, str]]
) -> None:
    """A tracked path HEAD does not have cannot be put back: the command exits 1."""
    _, patch, seen = foretold_fix(tmp_path)
    code, _ = check(shell_env, tmp_path, patch, seen, put_back=(["pkg/util.py"], []))
    assert code == 1
