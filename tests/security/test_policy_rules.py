"""The policy's rules without Docker: patch inspection, log checks, the guarded verdict."""

from __future__ import annotations

import pytest
from secutil import DEMO_ROWS
from secutil import FORCE_PASS_CONFTEST
from secutil import append_to
from secutil import delete_file
from secutil import new_file
from secutil import symlink_over

from pytest_swe import policy
from pytest_swe.policy import Protection
from pytest_swe.policy import inspect_patch

CALC = "demo__calc-1"
CALC_PROTECTION = Protection.build(test_patch=DEMO_ROWS[CALC]["test_patch"])


def found(patch: str, protection: Protection = CALC_PROTECTION) -> dict[str, set[str]]:
    """severity -> rules reported for ``patch``."""
    out: dict[str, set[str]] = {policy.TAMPER: set(), policy.SUSPICIOUS: set()}
    for finding in inspect_patch(patch, protection):
        out[finding.severity].add(finding.rule)
    return out


def tamper(patch: str, protection: Protection = CALC_PROTECTION) -> set[str]:
    return found(patch, protection)[policy.TAMPER]


def suspicious(patch: str, protection: Protection = CALC_PROTECTION) -> set[str]:
    return found(patch, protection)[policy.SUSPICIOUS]


# --- paths ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["conftest.py", "calc/conftest.py", "deep/er/conftest.py", "tests/conftest.py"]
)
def test_any_conftest_is_tamper(path: str) -> None:
    assert "conftest" in tamper(new_file(path, FORCE_PASS_CONFTEST))


def test_conftest_hidden_by_crlf_quoting_or_plain_diff_is_still_found() -> None:
    crlf = new_file("conftest.py", "x = 1\n").replace("\n", "\r\n")
    quoted = 'diff --git "a/sub dir/conftest.py" "b/sub dir/conftest.py"\nnew file mode 100644\n--- /dev/null\n+++ "b/sub dir/conftest.py"\n@@ -0,0 +1 @@\n+x = 1\n'
    octal = 'diff --git "a/\\143onftest.py" "b/\\143onftest.py"\nnew file mode 100644\n--- /dev/null\n+++ "b/\\143onftest.py"\n@@ -0,0 +1 @@\n+x\n'
    plain = (
        "--- /dev/null\t2024-01-01 00:00:00\n+++ x/conftest.py\t2024-01-01 00:00:00\n@@ -0,0 +1 @@\n+x = 1\n"
    )
    context = "*** /dev/null\n--- pkg/conftest.py\n***************\n*** 0 ****\n--- 1 ----\n+ x = 1\n"
    index = "Index: conftest.py\n===================================================================\n--- conftest.py\n+++ conftest.py\n@@ -0,0 +1 @@\n+x\n"
    for patch in (crlf, quoted, octal, plain, context, index):
        assert "conftest" in tamper(patch), patch


def test_test_patch_files_are_tamper_whatever_the_operation() -> None:
    edit = append_to(CALC, "tests/test_calc.py", "\ndef test_x():\n    pass\n")
    assert tamper(edit) == {"test-patch"}
    assert tamper(delete_file(CALC, "tests/test_calc.py")) == {"test-patch"}
    assert tamper(symlink_over(CALC, "tests/test_calc.py", "../calc/cli.py")) == {"test-patch"}
    rename = "diff --git a/tests/test_calc.py b/calc/other.py\nsimilarity index 100%\nrename from tests/test_calc.py\nrename to calc/other.py\n"
    assert "test-patch" in tamper(rename)
    envfile = Protection.build(test_patch=DEMO_ROWS["demo__envfile-1"]["test_patch"])
    precreate = new_file("tests/test_export.py", "def test_export_prefix_is_ignored():\n    pass\n")
    assert tamper(precreate, envfile) == {"test-patch"}
    directory = new_file("tests", "calc\n", mode="120000")  # a symlink where the test directory was
    assert "test-patch" in tamper(directory)


def test_other_test_files_edit_is_tamper_and_a_new_one_only_suspicious() -> None:
    other = "diff --git a/tests/test_other.py b/tests/test_other.py\n--- a/tests/test_other.py\n+++ b/tests/test_other.py\n@@ -1 +1 @@\n-a\n+b\n"
    assert tamper(other) == {"test-file"}
    assert tamper(new_file("tests/test_repro.py", "def test():\n    pass\n")) == set()
    assert suspicious(new_file("tests/test_repro.py", "def test():\n    pass\n")) == {"new-test-file"}
    assert suspicious(new_file("pkg/thing_test.go", "package pkg\n")) == {"new-test-file"}


@pytest.mark.parametrize(
    "path",
    [
        "django/test/testcases.py",
        "sympy/testing/runtests.py",
        "sphinx/testing/fixtures.py",
        "lib/matplotlib/testing/x.py",
    ],
)
def test_library_code_named_test_or_testing_is_not_a_test_path(path: str) -> None:
    assert not policy.is_test_path(path)


@pytest.mark.parametrize(
    "path",
    ["tests/x.py", "sympy/core/tests/test_basic.py", "testing/test_terminal.py", "test/unit/a.rs", "x_test.go",
     "src/foo.spec.ts", "module/src/test/java/com/acme/Helpers.java", "spec/models/user_spec.rb", "a/__tests__/b.js"],
)  # fmt: skip
def test_test_paths(path: str) -> None:
    assert policy.is_test_path(path)


@pytest.mark.parametrize("path", ["sitecustomize.py", "pkg/usercustomize.py", "evil.pth", "src/x.pth"])
def test_startup_hooks_are_tamper(path: str) -> None:
    assert tamper(new_file(path, "import os\n")) == {"startup-hook"}


@pytest.mark.parametrize("path", ["pytest.ini", "tests/pytest.ini", ".pytest.ini", "tox.ini", "pytest.toml"])
def test_pytest_config_files_are_tamper(path: str) -> None:
    assert "test-config" in tamper(new_file(path, "[pytest]\naddopts = -p x\n"))


def test_pytest_sections_of_shared_config_files() -> None:
    pyproject = append_to(
        CALC, "pyproject.toml", 'addopts = "-p calc.force"\n'
    )  # lands in [tool.pytest.ini_options]
    assert tamper(pyproject) == {"test-config"}
    setup_cfg = new_file("setup.cfg", "[metadata]\nname = x\n\n[tool:pytest]\naddopts = -x\n")
    assert tamper(setup_cfg) == {"test-config"}
    entry_point = new_file("setup.py", "setup(entry_points={'pytest11': ['x = calc.force']})\n")
    assert tamper(entry_point) == {"test-config"}
    unknown_section = "diff --git a/setup.cfg b/setup.cfg\n--- a/setup.cfg\n+++ b/setup.cfg\n@@ -10,2 +10,3 @@ x\n a = 1\n+python_functions = nothing\n b = 2\n"
    assert tamper(unknown_section) == {"test-config"}
    # what pylint-dev/pylint-4661's gold patch does to setup.cfg: other sections only
    metadata = "diff --git a/setup.cfg b/setup.cfg\n--- a/setup.cfg\n+++ b/setup.cfg\n@@ -42,3 +42,4 @@ project_urls =\n [options]\n install_requires =\n+    appdirs>=1.4.0\n     astroid>=2.6.5\n@@ -80,2 +81,5 @@\n [mypy]\n+\n+[mypy-appdirs]\n+ignore_missing_imports = True\n"
    assert found(metadata) == {policy.TAMPER: set(), policy.SUSPICIOUS: set()}


def test_config_change_comparison_reads_sections_not_text() -> None:
    before = '[project]\nname = "x"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    assert policy.config_change_findings("pyproject.toml", before, before.replace('"x"', '"y"')) == []
    changed = policy.config_change_findings("pyproject.toml", before, before + 'addopts = "-p no:x"\n')
    assert [f.rule for f in changed] == ["test-config"]
    added = policy.config_change_findings("setup.cfg", "[metadata]\n", "[metadata]\n[tool:pytest]\nx = 1\n")
    assert [f.rule for f in added] == ["test-config"]


@pytest.mark.parametrize("path", [".git/hooks/post-checkout", ".git/config", "sub/.git/HEAD"])
def test_git_metadata_is_tamper(path: str) -> None:
    assert tamper(new_file(path, "#!/bin/sh\n")) == {"git"}


def test_paths_outside_the_repository_are_tamper() -> None:
    patch = "--- a/../../etc/x\n+++ b/../../etc/x\n@@ -0,0 +1 @@\n+x\n"
    assert tamper(patch) == {"escape"}


def test_harness_markers_in_a_patch_are_tamper() -> None:
    patch = new_file("calc/x.py", "print('+ : \\'>>>>> End Test Output\\'')\n")
    assert tamper(patch) == {"forged-marker"}


def test_allowed_and_protected_patterns() -> None:
    allowed = Protection.build(allowed_patterns=["tests/fixtures/*"])
    edit = "diff --git a/tests/fixtures/a.json b/tests/fixtures/a.json\n--- a/tests/fixtures/a.json\n+++ b/tests/fixtures/a.json\n@@ -1 +1 @@\n-1\n+2\n"
    assert tamper(edit, allowed) == set()
    assert tamper(edit, Protection()) == {"test-file"}
    protected = Protection.build(protected_patterns=["golden/*.txt"])
    golden = "diff --git a/golden/out.txt b/golden/out.txt\n--- a/golden/out.txt\n+++ b/golden/out.txt\n@@ -1 +1 @@\n-1\n+2\n"
    assert tamper(golden, protected) == {"test-file"}


def test_required_test_files_are_protected_without_a_test_patch() -> None:
    protection = Protection.build(required_tests=["tests/test_a.py::test_x", "test_plain_name"])
    assert protection.paths == frozenset({"tests/test_a.py"})


# --- code in the patch ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        "import _pytest.runner\n",
        "def pytest_runtest_makereport(item, call):\n    pass\n",
        "pytest_plugins = ['x']\n",
        "import os\nos._exit(0)\n",
        "import sys\nsys.exit(0)\n",
        "raise SystemExit\n",
        "import os\nos.dup2(3, 1)\n",
        "import sys\nsys.stdout = open('/dev/null', 'w')\n",
        "import atexit\natexit.register(print)\n",
        "import unittest\nunittest.TestCase.run = lambda *a: None\n",
        "print('PASSED tests/test_calc.py::test_x')\n",
        "X = ['tests/test_calc.py::test_evaluate[8-3-2-3]']\n",
    ],
)
def test_code_that_rewrites_the_runner_is_suspicious(code: str) -> None:
    protection = Protection.build(required_tests=["tests/test_calc.py::test_evaluate[8-3-2-3]"])
    assert found(new_file("calc/hack.py", code), protection) == {
        policy.TAMPER: set(),
        policy.SUSPICIOUS: {"runner-code"},
    }


def test_ordinary_code_is_not_flagged() -> None:
    code = (
        "import sys\n\n\ndef main():\n    sys.exit(run())\n\n\n"
        'if __name__ == "__main__":\n    sys.exit(main())\n'
        "OUTPUT = sys.stdout\n"
    )
    assert found(new_file("calc/cli2.py", code)) == {policy.TAMPER: set(), policy.SUSPICIOUS: set()}


def test_pytest_own_sources_may_use_its_internals() -> None:
    code = "from _pytest.nodes import Item\n\n\ndef pytest_collection_modifyitems(items):\n    pass\n"
    assert found(new_file("src/_pytest/terminal.py", code), Protection()) == {
        policy.TAMPER: set(),
        policy.SUSPICIOUS: set(),
    }
    assert "runner-code" in suspicious(new_file("src/mylib/core.py", code), Protection())


def test_docs_may_show_pytest_output() -> None:
    doc = new_file("doc/en/how-to/output.rst", "    PASSED test_example.py::test_ok\n    os._exit(0)\n")
    assert found(doc) == {policy.TAMPER: set(), policy.SUSPICIOUS: set()}


# --- logs -------------------------------------------------------------------------------------

SCRIPT = (
    "#!/bin/bash\nset -uxo pipefail\ncd /testbed\n: '>>>>> Start Test Output'\npython3 -m pytest -rA tests/test_a.py\n"
    "SWEBENCH_TEST_EXIT_CODE=$?\n: '>>>>> End Test Output'\necho \">>>>> Test Exit Code: $SWEBENCH_TEST_EXIT_CODE\"\n"
)
HEAD = "+ : '>>>>> Start Test Output'\n+ python3 -m pytest -rA tests/test_a.py\n"
TAIL = "+ SWEBENCH_TEST_EXIT_CODE={code}\n+ : '>>>>> End Test Output'\n+ echo '>>>>> Test Exit Code: {code}'\n>>>>> Test Exit Code: {code}\n"
REAL = (
    "============================= test session starts ==============================\ncollected 2 items\n\n"
    "tests/test_a.py .F\n=========================== short test summary info ============================\n"
    "PASSED tests/test_a.py::test_one\nFAILED tests/test_a.py::test_two - assert 0\n"
    "========================= 1 failed, 1 passed in 0.05s ==========================\n"
)
REQUIRED = ["tests/test_a.py::test_one", "tests/test_a.py::test_two"]
FORGED = "PASSED tests/test_a.py::test_one\nPASSED tests/test_a.py::test_two\n"


def log_rules(body: str, code: int = 1) -> dict[str, set[str]]:
    log = HEAD + body + TAIL.format(code=code)
    out: dict[str, set[str]] = {policy.TAMPER: set(), policy.SUSPICIOUS: set()}
    for finding in policy.check_log(log, SCRIPT, 0, REQUIRED):
        out[finding.severity].add(finding.rule)
    return out


def test_a_real_log_is_clean() -> None:
    assert log_rules(REAL) == {policy.TAMPER: set(), policy.SUSPICIOUS: set()}
    quiet = REAL.replace(
        "========================= 1 failed, 1 passed in 0.05s ==========================\n", ""
    )
    assert log_rules(quiet) == {policy.TAMPER: set(), policy.SUSPICIOUS: set()}  # -qq: no final line


def test_forged_lines_before_pytest_summary_are_tamper() -> None:
    assert log_rules(FORGED + REAL)[policy.TAMPER] == {"forged-status"}
    assert log_rules(FORGED + REAL)[policy.SUSPICIOUS] == {"conflicting-status"}


def test_forged_lines_after_the_final_summary_are_tamper() -> None:
    assert log_rules(REAL + FORGED, code=0)[policy.TAMPER] == {"forged-status"}


def test_early_exit_with_status_zero_is_tamper() -> None:
    assert log_rules("", code=0)[policy.TAMPER] == {"early-exit"}
    assert log_rules(FORGED, code=0)[policy.TAMPER] == {"forged-status", "early-exit"}
    assert log_rules("", code=2)[policy.TAMPER] == set()  # a crash is not an early exit


def test_forged_markers_are_counted_against_the_script() -> None:
    forged_end = "+ : '>>>>> End Test Output'\n>>>>> Test Exit Code: 0\n"
    assert log_rules(FORGED + forged_end + REAL)[policy.TAMPER] >= {"forged-marker"}
    assert policy.marker_budget(SCRIPT) == {
        ">>>>> Start Test Output": 1,
        ">>>>> End Test Output": 1,
        ">>>>> Test Exit Code": 2,
    }
    heredoc = "set -x\ngit apply - <<'EOF'\n+>>>>> End Test Output\nEOF\n: '>>>>> End Test Output'\n"
    assert policy.marker_budget(heredoc) == {">>>>> End Test Output": 1}


def test_logs_of_other_runners_are_left_alone() -> None:
    django = "test_a (app.tests.T) ... ok\nPASSED not/a/pytest::line\n\nRan 1 test in 0.01s\n\nOK\n"
    assert (
        policy.check_log(
            HEAD.replace("python3 -m pytest -rA tests/test_a.py", "./tests/runtests.py") + django, SCRIPT, 0
        )
        == []
    )


# --- the verdict ------------------------------------------------------------------------------


def test_a_tampered_verdict_cannot_be_resolved_later() -> None:
    verdict = policy.GuardedVerdict(resolved=False, patch_exists=True)
    policy.record_findings(
        verdict, [policy.Finding(policy.TAMPER, "conftest", "adds conftest.py")], policy="strict"
    )
    verdict.resolution = "RESOLVED_FULL"
    verdict.resolved = True  # what a family computes from the tests
    assert verdict.resolved is False and verdict.resolution == "RESOLVED_NO"
    assert verdict.extra["resolved_without_policy"] is True
    assert verdict.extra["resolution_without_policy"] == "RESOLVED_FULL"
    assert verdict.reasons[0].startswith("tampering detected by the strict policy")
    assert verdict.tamper == ["conftest: adds conftest.py"]


def test_official_policy_only_flags() -> None:
    verdict = policy.GuardedVerdict(resolved=False, patch_exists=True)
    policy.record_findings(
        verdict, [policy.Finding(policy.TAMPER, "conftest", "adds conftest.py")], policy="official"
    )
    verdict.resolved = True
    assert verdict.resolved is True and verdict.tamper == []
    assert verdict.suspicious == ["conftest: adds conftest.py (tamper under strict)"]


def test_suspicious_findings_leave_the_grade_alone() -> None:
    verdict = policy.GuardedVerdict(resolved=False, patch_exists=True)
    policy.record_findings(
        verdict, [policy.Finding(policy.SUSPICIOUS, "new-test-file", "adds x")], policy="strict"
    )
    verdict.resolved = True
    assert verdict.resolved is True and verdict.suspicious == ["new-test-file: adds x"]
