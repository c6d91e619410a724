"""Building blocks of the eval script: patch reading, directives, spec lookup, script shapes."""

from __future__ import annotations

import re

import pytest

from pytest_swe.families.swebench import evalscript
from pytest_swe.families.swebench.evalscript import make_eval_script
from pytest_swe.families.swebench.evalscript import modified_paths
from pytest_swe.families.swebench.evalscript import patch_files
from pytest_swe.families.swebench.evalscript import touched_paths
from pytest_swe.families.swebench.specs import RepoSpec
from pytest_swe.families.swebench.specs import SpecNotFound
from pytest_swe.families.swebench.specs import collection_of
from pytest_swe.families.swebench.specs import known_repos
from pytest_swe.families.swebench.specs import known_versions
from pytest_swe.families.swebench.specs import spec_for

BASE = "c" * 40

PATCH = """\
diff --git a/tests/test_a.py b/tests/test_a.py
--- a/tests/test_a.py
+++ b/tests/test_a.py
@@ -1,2 +1,2 @@
--- a/not/a/header.py
+x
 y
diff --git a/tests/new_test.py b/tests/new_test.py
new file mode 100644
--- /dev/null
+++ b/tests/new_test.py
@@ -0,0 +1 @@
+z
diff --git a/tests/old.py b/tests/renamed.py
similarity index 100%
rename from tests/old.py
rename to tests/renamed.py
diff --git a/tests/gone.py b/tests/gone.py
deleted file mode 100644
--- a/tests/gone.py
+++ /dev/null
@@ -1 +0,0 @@
-w
diff --git a/tests/data.csv b/tests/data.csv
--- a/tests/data.csv
+++ b/tests/data.csv
@@ -1 +1 @@
-1
+2"""


def test_patch_files_reads_headers_and_skips_hunk_bodies() -> None:
    entries = [(entry.source, entry.target) for entry in patch_files(PATCH)]
    assert entries == [
        ("a/tests/test_a.py", "b/tests/test_a.py"),
        ("/dev/null", "b/tests/new_test.py"),
        ("a/tests/old.py", "b/tests/renamed.py"),
        ("a/tests/gone.py", "/dev/null"),
        ("a/tests/data.csv", "b/tests/data.csv"),
    ]
    assert [entry.path for entry in patch_files(PATCH)] == [
        "tests/test_a.py",
        "tests/new_test.py",
        "tests/renamed.py",
        "tests/gone.py",
        "tests/data.csv",
    ]


def test_plain_unified_diff_without_git_headers() -> None:
    plain = "--- a/x_test.go\n+++ b/x_test.go\n@@ -1 +1 @@\n-a\n+b\n"
    assert [(e.source, e.target) for e in patch_files(plain)] == [("a/x_test.go", "b/x_test.go")]
    assert modified_paths(plain) == ["x_test.go"]
    assert touched_paths(plain) == []


def test_reset_sets_of_the_two_generations() -> None:
    assert touched_paths(PATCH) == [
        "tests/test_a.py",
        "tests/new_test.py",
        "tests/renamed.py",
        "tests/gone.py",
        "tests/data.csv",
    ]
    assert modified_paths(PATCH) == ["tests/test_a.py", "tests/old.py", "tests/gone.py", "tests/data.csv"]


def test_directives_drop_non_test_files_and_keep_paths() -> None:
    assert evalscript.test_directives(PATCH, "sympy/sympy") == [
        "tests/test_a.py",
        "tests/new_test.py",
        "tests/renamed.py",
        "tests/gone.py",
    ]


def test_directives_exclude_upstream_extension_list() -> None:
    patch = "".join(
        f"diff --git a/t/f{ext} b/t/f{ext}\n"
        for ext in (".json", ".png", "xcsv", ".txt", ".md", ".yaml", ".py")
    )
    assert evalscript.test_directives(patch, "pytest-dev/pytest") == ["t/f.py"]


def test_django_directives_are_dotted_modules() -> None:
    patch = (
        "diff --git a/tests/admin_views/tests.py b/tests/admin_views/tests.py\n"
        "diff --git a/tests/i18n/sampleproject/locale/fr/LC_MESSAGES/django.po "
        "b/tests/i18n/sampleproject/locale/fr/LC_MESSAGES/django.po\n"
        "diff --git a/django/test/utils.py b/django/test/utils.py\n"
    )
    assert evalscript.test_directives(patch, "django/django") == [
        "admin_views.tests",
        "i18n.sampleproject.locale.fr.LC_MESSAGES.django.po",
        "django.test.utils",
    ]


def test_spec_not_found_names_repo_and_version() -> None:
    with pytest.raises(SpecNotFound) as unknown_version:
        spec_for("django/django", "9.9")
    assert isinstance(unknown_version.value, KeyError)
    assert "'django/django'" in str(unknown_version.value)
    assert "'9.9'" in str(unknown_version.value)
    assert "5.2" in str(unknown_version.value)
    with pytest.raises(SpecNotFound, match=re.escape("'nobody/nothing' at version '1.0'")):
        spec_for("nobody/nothing", "1.0")


def test_lookup_is_case_insensitive_on_the_repository() -> None:
    assert spec_for("project-monai/monai", "1.0") is spec_for("Project-MONAI/MONAI", "1.0")
    assert known_versions("PYTHON/MYPY") == known_versions("python/mypy") != set()
    assert collection_of("project-monai/monai") == "swe-gym"
    assert collection_of("nobody/nothing") is None


def test_collections_hold_the_documented_repositories() -> None:
    assert len(known_repos("swe-bench")) == 18
    assert len(known_repos("multilingual")) == 41
    assert len(known_repos("multimodal")) == 5
    assert len(known_repos("swe-gym")) == 11
    assert {"astropy/astropy", "django/django", "sympy/sympy", "sqlfluff/sqlfluff"} <= known_repos(
        "swe-bench"
    )
    assert {"burntsushi/ripgrep", "redis/redis", "gin-gonic/gin", "rubocop/rubocop"} <= known_repos(
        "multilingual"
    )
    with pytest.raises(KeyError, match="unknown collection"):
        known_repos("swe-nothing")


def test_python_script_shape() -> None:
    script = make_eval_script(
        instance_id="django__django-1",
        repo="django/django",
        version="3.0",
        base_commit=BASE,
        test_patch=PATCH,
    )
    lines = script.splitlines()
    assert lines[:9] == [
        "#!/bin/bash",
        "set -uxo pipefail",
        "source /opt/miniconda3/bin/activate",
        "conda activate testbed",
        "cd /testbed",
        "sed -i '/en_US.UTF-8/s/^# //g' /etc/locale.gen && locale-gen",
        "export LANG=en_US.UTF-8",
        "export LANGUAGE=en_US:en",
        "export LC_ALL=en_US.UTF-8",
    ]
    reset = (
        f"git checkout {BASE} tests/test_a.py tests/new_test.py tests/renamed.py tests/gone.py tests/data.csv"
    )
    assert lines[-4:] == [
        ": '>>>>> Start Test Output'",
        "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 test_a new_test renamed gone",
        ": '>>>>> End Test Output'",
        reset,
    ]
    assert script.endswith("\n")
    assert "python -m pip install -e .\n" + reset + "\ngit apply -v - <<'EOF_114329324912'\n" in script


def test_common_script_shape_with_build_steps() -> None:
    spec = RepoSpec(language="rust", test_cmd=("cargo test a", "cargo test b"), build=("cargo build",))
    script = make_eval_script(
        instance_id="o__r-1",
        repo="o/r",
        version="1",
        base_commit=BASE,
        test_patch=PATCH,
        spec=spec,
        compat="4.1.0",
    )
    lines = script.splitlines()
    assert lines[2:6] == [
        "cd /testbed",
        "git config --global --add safe.directory /testbed",
        "cd /testbed",
        lines[5],
    ]
    assert lines[5] == f"git checkout {BASE} tests/test_a.py tests/old.py tests/gone.py tests/data.csv"
    assert lines[6] == "git apply --verbose --reject - <<'EOF_114329324912'"
    assert lines[-7:] == [
        "EOF_114329324912",
        "cargo build",
        ": '>>>>> Start Test Output'",
        "cargo test a",
        "cargo test b",
        ": '>>>>> End Test Output'",
        lines[5],
    ]


def test_common_script_without_files_to_reset() -> None:
    spec = RepoSpec(language="go", test_cmd="go test ./...")
    script = make_eval_script(
        instance_id="o__r-1", repo="o/r", version="1", base_commit=BASE, test_patch="", spec=spec
    )
    assert script.splitlines()[5] == 'echo "No test files to reset"'


def test_published_instance_steps_come_right_before_the_tests() -> None:
    row = dict(repo="astropy/astropy", version="3.1", base_commit=BASE, test_patch=PATCH)
    script = make_eval_script(instance_id="astropy__astropy-8707", **row)
    assert "EOF_114329324912\npython -m pip install -q 'pytest<7.2'\n: '>>>>> Start Test Output'\n" in script
    assert "pytest<7.2" not in make_eval_script(instance_id="astropy__astropy-8707", compat="4.1.0", **row)
    assert "pytest<7.2" not in make_eval_script(instance_id="astropy__astropy-8708", **row)


def test_multimodal_assets_are_downloaded_before_the_test_patch() -> None:
    assets = {"test_patch": [{"path": "test/img/a.png", "url": "https://example.invalid/a.png"}]}
    script = make_eval_script(
        instance_id="chartjs__Chart.js-1",
        repo="chartjs/Chart.js",
        version="3.0",
        base_commit=BASE,
        test_patch=PATCH,
        image_assets=assets,
    )
    assert (
        "\nmkdir -p test/img\ncurl -o test/img/a.png https://example.invalid/a.png\nchmod 777 test/img/a.png\n"
        "git apply --verbose --reject" in script
    )


def test_markers_can_be_left_out() -> None:
    row = dict(instance_id="x__y-1", repo="pallets/flask", version="2.0", base_commit=BASE, test_patch=PATCH)
    assert ">>>>>" not in make_eval_script(markers=False, **row)
    assert make_eval_script(**row).count(">>>>>") == 2


def test_invalid_inputs_are_refused() -> None:
    row = dict(instance_id="x__y-1", repo="pallets/flask", version="2.0", base_commit=BASE)
    with pytest.raises(ValueError, match="heredoc delimiter"):
        make_eval_script(test_patch=PATCH + "\nEOF_114329324912\n", **row)
    with pytest.raises(ValueError, match="compat"):
        make_eval_script(test_patch=PATCH, compat="5.0", **row)  # type: ignore[arg-type]
    with pytest.raises(SpecNotFound):
        make_eval_script(test_patch=PATCH, **{**row, "version": "0.0"})
    with pytest.raises(ValueError, match="dialect"):
        RepoSpec(language="python", test_cmd="pytest", dialect="other")
