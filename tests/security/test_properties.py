"""Property-based tests: arbitrary rows, patches and logs always end in a classified outcome.

Row normalization gives a Task or a RowError naming a field; patch handling and the policy
give a verdict (findings) for any text; nothing raises anything else.
"""

from __future__ import annotations

import json
import string
from typing import Any

import pytest
from hypothesis import HealthCheck
from hypothesis import assume
from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from pytest_swe.api import task as task_helpers
from pytest_swe.api.errors import RowError
from pytest_swe.api.patch import encode_patch
from pytest_swe.api.patch import patch_bytes
from pytest_swe.api.patch import patch_sha256
from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.api.task import Task
from pytest_swe.grading import diff
from pytest_swe.grading import logcheck
from pytest_swe.grading.configfiles import steering_changed
from pytest_swe.grading.patching import apply_script
from pytest_swe.grading.paths import PathChange
from pytest_swe.grading.paths import Protection
from pytest_swe.grading.paths import why_neutralized
from pytest_swe.grading.tree import unbundle

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SETTINGS = BenchmarkSettings.model_validate(
    {
        "name": "props",
        "family": "swe-bench",
        "dataset": {"source": "rows.jsonl"},
        "agent": {"name": "gold"},
        "provider": {"name": "docker"},
    }
)

# Any JSON-ish value a dataset cell may hold.
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
test_ids = st.lists(
    st.text(string.ascii_letters + string.digits + "_/.:[]-", min_size=1, max_size=30), max_size=5
)
plausible = {
    "instance_id": st.one_of(st.text(max_size=30), st.just("acme__widgets-1")),
    "repo": st.one_of(st.just("acme/widgets"), st.just("pytest-dev/pytest"), values),
    "FAIL_TO_PASS": st.one_of(test_ids.map(json.dumps), test_ids, st.text(max_size=20), values),
    "PASS_TO_PASS": st.one_of(test_ids.map(json.dumps), test_ids, values),
    "eval_script": st.one_of(st.just("#!/bin/bash\npytest -rA\n"), values),
    "image": st.one_of(st.just("img:latest"), values),
    "log_parser": st.one_of(st.just("parse_log_pytest"), st.text(max_size=20), values),
    "eval_type": st.one_of(st.just("pass_and_fail"), st.just("fail_only"), values),
    "created_at": values,
    "patch": values,
    "test_patch": values,
    "version": values,
    "base_commit": values,
    "problem_statement": values,
}
rows = st.fixed_dictionaries({}, optional=plausible)


@FAST
@given(rows)
@example(
    {
        "instance_id": "a__b-1",
        "eval_script": "x",
        "image": "i",
        "log_parser": "parse_log_pytest",
        "created_at": 10**20,
    }
)
@example(
    {
        "instance_id": "a__b-1",
        "eval_script": "x",
        "image": "i",
        "log_parser": "parse_log_pytest",
        "FAIL_TO_PASS": "[" * 5000,
    }
)
def test_swebench_normalize_gives_a_task_or_names_a_field(row: dict[str, Any]) -> None:
    from pytest_swe.families.swebench import FAMILY

    try:
        result = FAMILY.normalize(row, SETTINGS)
    except RowError as exc:
        assert exc.field and isinstance(exc.field, str)
        assert exc.field in plausible or exc.field in {"fail_to_pass", "pass_to_pass", "version"}, exc.field
        return
    assert isinstance(result, Task)
    assert result.instance_id == row["instance_id"] and result.eval_script


HELPERS = [
    lambda v: task_helpers.test_list(v, "F"),
    lambda v: task_helpers.optional_str({"f": v}, "f"),
    lambda v: task_helpers.require_str({"f": v}, "f"),
    lambda v: task_helpers.json_mapping(v, "f"),
    lambda v: task_helpers.str_list(v, "f"),
]


@FAST
@given(st.sampled_from(range(len(HELPERS))), values)
def test_row_helpers_give_a_value_or_a_row_error(which: int, value: Any) -> None:
    try:
        HELPERS[which](value)
    except RowError as exc:
        assert exc.field in ("F", "f")


@pytest.mark.parametrize(
    ("helper", "value"),
    [
        (task_helpers.created_at_str, 10**20),
        (task_helpers.created_at_str, float("nan")),
        (task_helpers.created_at_str, -(10**15)),
        (lambda v: task_helpers.test_list(v, "F"), "[" * 5000),
    ],
    ids=["epoch-overflow", "epoch-nan", "epoch-year-out-of-range", "nested-json"],
)
def test_created_at_and_test_list_raise_only_row_errors(helper: Any, value: Any) -> None:
    with pytest.raises(RowError):
        helper(value)


# --- patches -------------------------------------------------------------------------------

any_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=400)
patchish = st.lists(
    st.one_of(
        st.sampled_from(
            ["diff --git a/x b/y", '--- "a/\\303\\251 x"', "+++ b/conftest.py", "--- /dev/null", "@@ -1,99999 +1 @@",
             "@@ -0,0 +1,3 @@", "rename from a", "rename to b", "new file mode 120000", "GIT binary patch",
             "*** a/x", "***************", "Index: t", "\\ No newline at end of file", "+x\r", "-y", " z", ""]
        ),
        st.text(max_size=30),
    ),
    max_size=40,
).map("\n".join)  # fmt: skip


@FAST
@given(st.one_of(any_text, patchish))
def test_patch_handling_never_raises(patch: str) -> None:
    data = patch_bytes(patch)
    assert isinstance(data, bytes) and (data == b"" or data.endswith(b"\n"))
    assert encode_patch(patch) == data[: len(encode_patch(patch))]
    assert len(patch_sha256(patch)) == 64
    assert "{path}" not in apply_script("/testbed")
    protection = Protection.build(test_patch=patch, required_tests=["t::x"])
    for part in diff.parse_patch(patch):
        assert all(isinstance(p, str) for p in part.paths)
        for path in part.paths:
            found = why_neutralized(PathChange(path, "added"), protection, frozenset())
            assert found is None or (isinstance(found, str) and found)


@FAST
@given(
    st.one_of(any_text, patchish), st.one_of(any_text, patchish), st.one_of(st.none(), st.integers(-300, 300))
)
def test_log_checks_never_raise(log: str, script: str, code: int | None) -> None:
    findings = logcheck.forged_markers(log, script)
    budget = logcheck.marker_budget(script)
    # A marker is evidence exactly when the log holds it more often than the script can print it.
    assert {f.message.split("'")[1] for f in findings} == {m for m, n in budget.items() if log.count(m) > n}
    assert isinstance(steering_changed("setup.cfg", log, script), bool)
    assert isinstance(steering_changed("pyproject.toml", log, script), bool)
    assert steering_changed("pyproject.toml", script, script) is False
    parts = unbundle(log.encode("utf-8", errors="surrogatepass"))
    assert all(isinstance(k, str) and isinstance(v, bytes) for k, v in parts.items())


segment = st.text(string.ascii_letters + string.digits + "_-. ", min_size=1, max_size=10).filter(
    lambda s: s.strip(" ") == s and s not in (".", "..") and s != ".git"
)


@FAST
@given(
    st.lists(segment, max_size=3),
    st.booleans(),
    st.sampled_from(["git", "quoted", "plain"]),
    st.text(max_size=60),
)
def test_a_conftest_is_named_however_the_diff_spells_it(
    dirs: list[str], crlf: bool, style: str, body: str
) -> None:
    path = "/".join([*dirs, "conftest.py"])
    assume("\n" not in body and "\r" not in body)
    if style == "git":
        patch = f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+{body}\n"
    elif style == "quoted":
        patch = f'diff --git "a/{path}" "b/{path}"\nnew file mode 100644\n--- /dev/null\n+++ "b/{path}"\n@@ -0,0 +1 @@\n+{body}\n'
    else:
        patch = f"--- /dev/null\t2024-01-01\n+++ b/{path}\t2024-01-01\n@@ -0,0 +1 @@\n+{body}\n"
    if crlf:
        patch = patch.replace("\n", "\r\n")
    named = {p for part in diff.parse_patch(patch) for p in part.paths}
    assert path in named, named
    assert "conftest" in (why_neutralized(PathChange(path, "added"), Protection(), frozenset()) or "")


@FAST
@given(
    st.lists(st.tuples(st.sampled_from(["head", "dirty", "new", "x y"]), st.binary(max_size=40)), max_size=5)
)
def test_bundles_read_back_what_was_written(parts: list[tuple[str, bytes]]) -> None:
    data = b"".join(f"{name} {len(body)}\n".encode() + body for name, body in parts)
    expected = {}
    for name, body in parts:
        expected[name] = body
    assert unbundle(data) == expected
