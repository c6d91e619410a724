"""Differential tests against the official ``swebench`` 4.1.0 package, run in its own venv.

4.1.0 is the last release that generated eval scripts from classic rows. Its package is never
imported here: ``data/official_v4_oracle.py`` runs in the venv made by ``.ci/official-venv.sh``
and answers in JSON. Compared:

* every published row (scripts in 4.1.0's form, ``compat="4.1.0"``);
* one synthetic row for every repository/version of 4.1.0's table that this project carries
  (SWE-bench Python, Multilingual, Multimodal), with a test patch that modifies, creates,
  renames and adds non-test files, so resets and directives are exercised everywhere;
* the spec table itself, field by field.

Without the venv these tests fail in CI (``CI=true``) and are skipped elsewhere.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from pytest_swe.families.swebench.evalscript import make_eval_script_for_row
from pytest_swe.families.swebench.images import official_image_name
from pytest_swe.families.swebench.specs import COLLECTIONS
from pytest_swe.families.swebench.specs import known_repos
from pytest_swe.families.swebench.specs import spec_for

from conftest import SHARED_DATA
from conftest import official_python

ORACLE = Path(__file__).parent / "data" / "official_v4_oracle.py"
DATA_ROOT = SHARED_DATA
V5_SPLITS = ("verified-test", "lite-test", "lite-dev", "full-dev")
V5_ONLY_COLUMNS = ("eval_script", "image", "log_parser", "eval_type")

#: Repositories of 4.1.0's table that this project does not carry, and why.
NOT_CARRIED = {
    "dbt-labs/dbt-core": "listed without a test command; no eval script can be made and no split has it",
    "swe-bench/humaneval": "not a SWE-bench dataset",
}
#: Spec fields compared with 4.1.0's table (our name -> upstream key).
COMPARED_FIELDS = {
    "test_cmd": "test_cmd",
    "install": "install",
    "build": "build",
    "pre_install": "pre_install",
    "eval_commands": "eval_commands",
    "python": "python",
    "docker_specs": "docker_specs",
    "apt_packages": "apt-pkgs",
}


@cache
def _ask_oracle(request_json: str) -> dict[str, Any]:
    completed = subprocess.run(
        [str(official_python("4.1.0")), str(ORACLE)],
        input=request_json,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"official oracle failed ({completed.returncode}):\n{completed.stderr[-4000:]}")
    return json.loads(completed.stdout)


def _load_published() -> list[dict]:
    v5_dir = DATA_ROOT / "swebench-v5"
    if not v5_dir.is_dir():
        return []
    rows = []
    for split in V5_SPLITS:
        for row in pq.read_table(v5_dir / f"{split}.parquet").to_pylist():
            classic = {key: value for key, value in row.items() if key not in V5_ONLY_COLUMNS}
            rows.append({**classic, "key": f"{split}/{row['instance_id']}"})
    return rows


PUBLISHED = _load_published()

# A test patch that touches files of every kind the reset and directive rules care about:
# a modified test file, a created one, a renamed one, a fixture with a non-test extension, a
# JavaScript snapshot, an end-to-end test, and a test-data file with mypy-style cases.
_SYNTHETIC_PATCH = """\
diff --git a/{test_dir}/test_existing.py b/{test_dir}/test_existing.py
index 1111111..2222222 100644
--- a/{test_dir}/test_existing.py
+++ b/{test_dir}/test_existing.py
@@ -1,3 +1,3 @@
 import os
+import sys
--- a/looks/like/a/header.py
 def test_one():
diff --git a/{test_dir}/test_created.py b/{test_dir}/test_created.py
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/{test_dir}/test_created.py
@@ -0,0 +1,2 @@
+def test_new():
+    assert True
diff --git a/{test_dir}/old_name_test.py b/{test_dir}/test_renamed.py
similarity index 90%
rename from {test_dir}/old_name_test.py
rename to {test_dir}/test_renamed.py
index 4444444..5555555 100644
--- a/{test_dir}/old_name_test.py
+++ b/{test_dir}/test_renamed.py
@@ -1 +1 @@
-x = 1
+x = 2
diff --git a/{test_dir}/fixtures/data.json b/{test_dir}/fixtures/data.json
index 6666666..7777777 100644
--- a/{test_dir}/fixtures/data.json
+++ b/{test_dir}/fixtures/data.json
@@ -1 +1 @@
-{{}}
+{{"a": 1}}
diff --git a/client/state/__snapshots__/reducer.js.snap b/client/state/__snapshots__/reducer.js.snap
index 8888888..9999999 100644
--- a/client/state/__snapshots__/reducer.js.snap
+++ b/client/state/__snapshots__/reducer.js.snap
@@ -1 +1 @@
-a
+b
diff --git a/test/e2e/specs/login.js b/test/e2e/specs/login.js
index aaaaaaa..bbbbbbb 100644
--- a/test/e2e/specs/login.js
+++ b/test/e2e/specs/login.js
@@ -1 +1,3 @@
-old
+[case testFirstCase]
+[case testSecond-Case]
+new"""

_ASSETS = {"test_patch": [{"path": "test/fixtures/shot.png", "url": "https://example.invalid/shot.png"}]}


def _synthetic_rows() -> list[dict]:
    rows = []
    for collection in ("swe-bench", "multilingual", "multimodal"):
        for repo_name, versions in sorted(COLLECTIONS[collection].items()):
            owner, name = repo_name.split("/")
            test_dir = "tests/utils_tests" if repo_name == "django/django" else "tests"
            for version in sorted(versions):
                row = {
                    "key": f"{repo_name}@{version}",
                    "instance_id": f"{owner}__{name}-9{len(rows):05d}",
                    "repo": repo_name,
                    "version": version,
                    "base_commit": "0123456789abcdef0123456789abcdef01234567",
                    "test_patch": _SYNTHETIC_PATCH.format(test_dir=test_dir),
                    "patch": "",
                    "problem_statement": "",
                    "hints_text": "",
                    "created_at": "",
                    "environment_setup_commit": "0123456789abcdef0123456789abcdef01234567",
                    "FAIL_TO_PASS": "[]",
                    "PASS_TO_PASS": "[]",
                }
                if collection == "multimodal":
                    row["image_assets"] = json.dumps(_ASSETS)
                rows.append(row)
    return rows


SYNTHETIC = _synthetic_rows()
_ALL_ROWS_REQUEST = json.dumps({"rows": PUBLISHED + SYNTHETIC})


def _official_script(key: str) -> str:
    answer = _ask_oracle(_ALL_ROWS_REQUEST)["eval_scripts"][key]
    if isinstance(answer, dict):
        pytest.fail(f"the official package could not build {key}: {answer['error']}")
    return answer


@cache
def _official_specs() -> dict[str, Any]:
    return _ask_oracle(json.dumps({"specs": True}))


def test_rows_to_compare_are_present() -> None:
    assert len(PUBLISHED) == 1048
    assert len(SYNTHETIC) == 671  # every version of every carried repository


@pytest.mark.parametrize("row", [pytest.param(row, id=row["key"]) for row in PUBLISHED])
def test_published_row_equals_4_1_0(row: dict) -> None:
    assert make_eval_script_for_row(row, compat="4.1.0") == _official_script(row["key"])


@pytest.mark.parametrize("row", [pytest.param(row, id=row["key"]) for row in SYNTHETIC])
def test_every_spec_equals_4_1_0_on_a_synthetic_row(row: dict) -> None:
    assert make_eval_script_for_row(row, compat="4.1.0") == _official_script(row["key"])


def test_table_covers_every_4_1_0_repository() -> None:
    official = set(_official_specs()["specs"])
    carried = known_repos("swe-bench") | known_repos("multilingual") | known_repos("multimodal")
    assert official - carried == set(NOT_CARRIED)
    assert carried <= official


def test_table_language_matches_4_1_0() -> None:
    names = {"py": "python", "c": "c", "go": "go", "java": "java", "js": "javascript", "php": "php"}
    names |= {"rb": "ruby", "rs": "rust"}
    languages = _official_specs()["languages"]
    carried = known_repos() - known_repos("swe-gym")
    assert carried == set(languages) - set(NOT_CARRIED) and len(carried) == 64
    for repo_name in sorted(carried):
        versions = COLLECTIONS["multilingual"].get(repo_name) or COLLECTIONS["multimodal"].get(repo_name)
        versions = versions or COLLECTIONS["swe-bench"][repo_name]
        assert {spec.language for spec in versions.values()} == {names[languages[repo_name]]}, repo_name


def _normalize(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_normalize(item) for item in value]
    if isinstance(value, Mapping):
        return {key: _normalize(item) for key, item in value.items()}
    return value


def _spec_cases() -> list:
    cases = []
    for collection in ("swe-bench", "multilingual", "multimodal"):
        for repo_name, versions in sorted(COLLECTIONS[collection].items()):
            cases += [
                pytest.param(repo_name, version, id=f"{repo_name}@{version}") for version in sorted(versions)
            ]
    return cases


@pytest.mark.parametrize(("repo_name", "version"), _spec_cases())
def test_spec_fields_equal_4_1_0(repo_name: str, version: str) -> None:
    official = _official_specs()["specs"][repo_name]
    assert version in official, f"{repo_name} {version} is not in 4.1.0's table"
    upstream = official[version]
    ours = spec_for(repo_name, version)
    for field, key in COMPARED_FIELDS.items():
        expected = upstream.get(key)
        if field == "install" and isinstance(expected, str):
            expected = [expected]
        expected = _normalize(expected) if expected is not None else None
        actual = _normalize(getattr(ours, field))
        if expected is None:
            assert actual in (None, [], {}), f"{field}: upstream has none, we have {actual!r}"
        else:
            assert actual == expected, field


def test_every_4_1_0_version_is_carried() -> None:
    official = _official_specs()["specs"]
    assert len(official) == 66 and set(NOT_CARRIED) <= set(official)
    for repo_name, versions in official.items():
        if repo_name in NOT_CARRIED:
            continue
        assert set(versions) == _versions_of(repo_name), repo_name


def _versions_of(repo_name: str) -> set[str]:
    for tables in COLLECTIONS.values():
        if repo_name in tables:
            return set(tables[repo_name])
    return set()


def test_image_names_equal_4_1_0() -> None:
    """``official_image_name`` against 4.1.0's ``instance_image_key`` over every instance and setting."""
    settings = [
        (namespace, arch, tag)
        for namespace in ("swebench", None, "my__org")
        for arch in ("x86_64", "arm64")
        for tag in ("latest", "v1")
    ]
    ids = sorted({row["instance_id"] for row in PUBLISHED} | {"Project-MONAI__MONAI-3715", "a__b__c-1"})
    request = [[instance_id, *setting] for instance_id in ids for setting in settings]
    official = _ask_oracle(json.dumps({"image_keys": request}))["image_keys"]
    ours = [official_image_name(i, namespace=n, arch=a, tag=t) for i, n, a, t in request]
    mismatches = [(r, o, e) for r, o, e in zip(request, ours, official, strict=True) if o != e]
    assert not mismatches, mismatches[:5]
    assert len(official) == len(ids) * len(settings) > 10000
