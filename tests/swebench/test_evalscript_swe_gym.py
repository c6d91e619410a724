"""SWE-Gym: specs and scripts checked against the facts read from the SWE-Gym harness fork.

The fork (``SWE-Gym/SWE-Bench-Fork``) is not installable here, so there is no oracle to run. The
expected scripts below are written out from the fork's ``make_eval_script_list`` and
``make_test_command`` (read from its mirrors): header ``set -xo pipefail``, conda activation,
``cd /testbed``, the spec's ``eval_commands``, ``git status``/``show``/``git diff <base>``, the
spec's ``install``, a reset of the ``--- a/`` paths, ``git apply -v`` of the test patch, the test
command, and the reset again; no markers. mypy's test command is ``test_cmd "case1 or case2"``.
"""

from __future__ import annotations

import pytest

from pytest_swe.families.swebench.evalscript import make_eval_script
from pytest_swe.families.swebench.evalscript import test_directives
from pytest_swe.families.swebench.images import swe_gym_image_name
from pytest_swe.families.swebench.specs import COLLECTIONS
from pytest_swe.families.swebench.specs import known_repos
from pytest_swe.families.swebench.specs import spec_for

BASE = "b" * 40

MOTO_PATCH = """\
diff --git a/tests/test_s3/test_s3.py b/tests/test_s3/test_s3.py
--- a/tests/test_s3/test_s3.py
+++ b/tests/test_s3/test_s3.py
@@ -1,2 +1,2 @@
 import boto3
-x = 1
+x = 2
diff --git a/tests/test_s3/test_new.py b/tests/test_s3/test_new.py
new file mode 100644
--- /dev/null
+++ b/tests/test_s3/test_new.py
@@ -0,0 +1 @@
+def test_new(): pass"""

MOTO_EXPECTED = f"""\
#!/bin/bash
set -xo pipefail
source /opt/miniconda3/bin/activate
conda activate testbed
cd /testbed
git config --global --add safe.directory /testbed
cd /testbed
git status
git show
git diff {BASE}
source /opt/miniconda3/bin/activate
conda activate testbed
make init
git checkout {BASE} tests/test_s3/test_s3.py
git apply -v - <<'EOF_114329324912'
{MOTO_PATCH}
EOF_114329324912
pytest -n0 -rA tests/test_s3/test_s3.py tests/test_s3/test_new.py
git checkout {BASE} tests/test_s3/test_s3.py
"""

MYPY_PATCH = """\
diff --git a/test-data/unit/check-classes.test b/test-data/unit/check-classes.test
--- a/test-data/unit/check-classes.test
+++ b/test-data/unit/check-classes.test
@@ -1,3 +1,9 @@
 [case testExisting]
 x = 1
+[case testNewFeature]
+y = 2
+[builtins fixtures/tuple.pyi]
+
+[case testNewFeature_python38]
+z = 3
 [out]"""


def test_moto_script_is_the_forks_form_with_markers_dropped() -> None:
    script = make_eval_script(
        instance_id="getmoto__moto-7000",
        repo="getmoto/moto",
        version="4.2",
        base_commit=BASE,
        test_patch=MOTO_PATCH,
        markers=False,
    )
    assert script == MOTO_EXPECTED


def test_default_script_adds_only_the_markers() -> None:
    """Our default keeps the fork's commands and adds the no-op markers around the test command."""
    script = make_eval_script(
        instance_id="getmoto__moto-7000",
        repo="getmoto/moto",
        version="4.2",
        base_commit=BASE,
        test_patch=MOTO_PATCH,
    )
    test_line = "pytest -n0 -rA tests/test_s3/test_s3.py tests/test_s3/test_new.py\n"
    marked = ": '>>>>> Start Test Output'\n" + test_line + ": '>>>>> End Test Output'\n"
    assert script == MOTO_EXPECTED.replace(test_line, marked)


def test_mypy_runs_the_cases_of_the_test_patch() -> None:
    assert test_directives(MYPY_PATCH, "python/mypy") == [
        '"testExisting or testNewFeature or testNewFeature_python38"'
    ]
    script = make_eval_script(
        instance_id="python__mypy-15000",
        repo="python/mypy",
        version="1.4",
        base_commit=BASE,
        test_patch=MYPY_PATCH,
        markers=False,
    )
    lines = script.splitlines()
    assert lines[-2] == 'pytest -n0 -rA -k "testExisting or testNewFeature or testNewFeature_python38"'
    assert lines[12] == "python -m pip install -r test-requirements.txt; python -m pip install -e .; hash -r"
    assert lines[-1] == f"git checkout {BASE} test-data/unit/check-classes.test"


def test_conan_exports_its_pythonpath_before_anything_else() -> None:
    script = make_eval_script(
        instance_id="conan-io__conan-13000",
        repo="conan-io/conan",
        version="2.0",
        base_commit=BASE,
        test_patch=MOTO_PATCH,
    )
    assert script.splitlines()[2:7] == [
        "source /opt/miniconda3/bin/activate",
        "conda activate testbed",
        "cd /testbed",
        "export PYTHONPATH=${PYTHONPATH:-}:$(pwd)",
        "git config --global --add safe.directory /testbed",
    ]


def test_monai_keeps_the_double_space_of_its_test_command() -> None:
    script = make_eval_script(
        instance_id="Project-MONAI__MONAI-5000",
        repo="Project-MONAI/MONAI",
        version="1.0",
        base_commit=BASE,
        test_patch=MOTO_PATCH,
    )
    assert "\npytest -rA  tests/test_s3/test_s3.py tests/test_s3/test_new.py\n" in script


def test_reset_uses_the_forks_unanchored_regex() -> None:
    """The fork resets every ``--- a/`` match, even one inside a hunk (a removed ``-- a/`` line)."""
    patch = MOTO_PATCH.replace("-x = 1\n", "--- a/docs/notes.rst\n")
    script = make_eval_script(
        instance_id="getmoto__moto-1", repo="getmoto/moto", version="4.2", base_commit=BASE, test_patch=patch
    )
    assert f"\ngit checkout {BASE} tests/test_s3/test_s3.py docs/notes.rst\n" in script


def test_swe_gym_repos_and_version_counts() -> None:
    """The fork's version lists, as read; a dropped or duplicated version fails here."""
    counts = {repo_name: len(versions) for repo_name, versions in COLLECTIONS["swe-gym"].items()}
    assert counts == {
        "python/mypy": 23,
        "getmoto/moto": 14,
        "conan-io/conan": 34,
        "dask/dask": 60,
        "Project-MONAI/MONAI": 15,
        "iterative/dvc": 147,
        "bokeh/bokeh": 24,
        "modin-project/modin": 28,
        "pydantic/pydantic": 40,
        "pandas-dev/pandas": 21,
        "facebookresearch/hydra": 10,
    }
    assert known_repos("swe-gym") == set(counts)


@pytest.mark.parametrize(
    ("repo_name", "version", "test_cmd", "python"),
    [
        ("python/mypy", "1.9", "pytest -rA -k", "3.12"),
        ("python/mypy", "0.920", "pytest -n0 -rA -k", "3.9"),
        ("getmoto/moto", "5.0", "pytest -n0 -rA", "3.12"),
        ("conan-io/conan", "1.60", "pytest -n0 -rA", "3.10"),
        ("dask/dask", "2024.5", "pytest -n0 -rA  --color=no", None),
        ("project-monai/monai", "0.105", "pytest -rA ", "3.8"),
        ("iterative/dvc", "0.93", "pytest -rA", "3.8"),
        ("iterative/dvc", "3.3", "pytest -rA", "3.9"),
        ("iterative/dvc", "3.4", "pytest -rA", "3.10"),
        ("bokeh/bokeh", "0.1181316818", "pytest -rA -n0", "3.8"),
        ("bokeh/bokeh", "3.5", "pytest -rA -n0", "3.10"),
        ("modin-project/modin", "0.19", "pytest -n0 -rA", "3.8"),
        ("modin-project/modin", "0.20", "pytest -n0 -rA", "3.9"),
        (
            "pydantic/pydantic",
            "1.10",
            "pytest -rA --tb=short -vv -o console_output_style=classic --no-header",
            "3.7",
        ),
        (
            "pydantic/pydantic",
            "2.01",
            "pytest -rA --tb=short -vv -o console_output_style=classic --no-header",
            "3.8",
        ),
        ("pandas-dev/pandas", "2.2", "pytest -rA --tb=long", None),
        ("facebookresearch/hydra", "1.4", "pytest -rA --tb=long", "3.8"),
    ],
)
def test_swe_gym_spec_facts(repo_name: str, version: str, test_cmd: str, python: str | None) -> None:
    spec = spec_for(repo_name, version)
    assert (spec.test_cmd, spec.python, spec.dialect) == (test_cmd, python, "swe-gym")


def test_swe_gym_install_steps_by_version() -> None:
    assert spec_for("pandas-dev/pandas", "2.1").install[0].startswith("python -m pip install 'numpy<2'; ")
    assert not spec_for("pandas-dev/pandas", "2.2").install[0].startswith("python -m pip install 'numpy<2'")
    assert (
        spec_for("iterative/dvc", "0.1")
        .install[0]
        .endswith(' python -m pip install "numpy<=1.20"; python -m pip install "pytest<8";')
    )
    assert spec_for("iterative/dvc", "3.49").install[0].endswith('-e ".[tests,dev,all_remotes,all,testing]";')
    assert spec_for("conan-io/conan", "1.59").install[0].startswith("echo 'cython<3' > /tmp/constraint.txt;")
    assert spec_for("conan-io/conan", "1.60").install[0].startswith("python -m pip install -r conans/")
    assert spec_for("facebookresearch/hydra", "1.2").install[0].startswith("sed -i 's|isort@git+git://")
    assert spec_for("facebookresearch/hydra", "1.3").install == (
        "pip install -r requirements/dev.txt; pip install -e .;",
    )
    assert '\n" | python setup.py develop' in spec_for("bokeh/bokeh", "2.4").install[0]


def test_swe_gym_image_names() -> None:
    assert swe_gym_image_name("getmoto__moto-7000") == "xingyaoww/sweb.eval.x86_64.getmoto_s_moto-7000:latest"
    assert (
        swe_gym_image_name("Project-MONAI__MONAI-3715")
        == "xingyaoww/sweb.eval.x86_64.project-monai_s_monai-3715:latest"
    )
