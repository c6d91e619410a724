"""Property-based tests: arbitrary rows, patches, logs and bundles give exactly the value the
contract names.

Row helpers give the cell's value or a RowError naming the field; a patch's bytes and digest are
those of the bytes read; every file a test patch names is restored; a config edit steers pytest
exactly when it touches pytest's sections or plugin entry points.
"""

from __future__ import annotations

import hashlib
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
from pytest_swe.grading.configfiles import steering_view
from pytest_swe.grading.diff import normalize
from pytest_swe.grading.patching import apply_script
from pytest_swe.grading.paths import PathChange
from pytest_swe.grading.paths import Protection
from pytest_swe.grading.paths import why_neutralized

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


class Invalid(Exception):
    """The value is not one the helper accepts: it must raise a RowError naming the field."""


def _json_or_invalid(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise Invalid from None


def _strings_or_invalid(value: Any) -> list[str]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) for item in value):
        raise Invalid
    return list(value)


def expect_test_list(value: Any) -> list[str]:
    if value is None or (isinstance(value, str) and not value.strip()):
        return []
    return _strings_or_invalid(_json_or_invalid(value.strip()) if isinstance(value, str) else value)


def expect_optional_str(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise Invalid


def expect_require_str(value: Any) -> str:
    if isinstance(value, str) and value.strip():
        return value
    raise Invalid


def expect_json_mapping(value: Any) -> dict[str, Any]:
    if value is None or (isinstance(value, str) and not value.strip()):
        return {}
    decoded = _json_or_invalid(value) if isinstance(value, str) else value
    if not isinstance(decoded, dict):
        raise Invalid
    return decoded


def expect_str_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    return _strings_or_invalid(value)


texts = st.lists(st.text(max_size=10), max_size=4)
# Each row helper with the value it must give for a cell (or Invalid), and the field it names.
HELPERS = [
    (lambda v: task_helpers.test_list(v, "F"), expect_test_list, "F"),
    (lambda v: task_helpers.optional_str({"f": v}, "f"), expect_optional_str, "f"),
    (lambda v: task_helpers.require_str({"f": v}, "f"), expect_require_str, "f"),
    (lambda v: task_helpers.json_mapping(v, "f"), expect_json_mapping, "f"),
    (lambda v: task_helpers.str_list(v, "f"), expect_str_list, "f"),
]


@FAST
@given(
    st.sampled_from(range(len(HELPERS))),
    st.one_of(values, texts, texts.map(json.dumps), test_ids.map(json.dumps)),
)
@example(0, '[" a::b ", "c"]')
@example(3, '{"k": [1], "n": null}')
@example(3, {"n": None})
@example(4, [" a "])
@example(4, " a ")
@example(1, 7)
@example(1, True)
@example(2, " a ")
@example(2, "  ")
@example(4, ["", "b"])
def test_row_helpers_give_the_value_or_a_row_error(which: int, value: Any) -> None:
    """A valid cell gives exactly its value; any other raises a RowError naming the field."""
    helper, expect, field_name = HELPERS[which]
    try:
        expected = expect(value)
    except Invalid:
        with pytest.raises(RowError) as raised:
            helper(value)
        assert raised.value.field == field_name
        return
    assert helper(value) == expected


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
@given(st.binary(max_size=200), st.data())
@example(b"", None)
@example(b"\xc3\xa9\xff\n", None)
def test_patch_bytes_and_digest_are_those_of_the_bytes_read(data: bytes, draw: Any) -> None:
    """A patch read from bytes (raw bytes kept as escapes) is written back byte for byte, ends with
    exactly one added newline when it lacked one, and its digest is that of its bytes: a patch
    differing in one byte has another digest."""
    patch = data.decode("utf-8", errors="surrogateescape")
    assert encode_patch(patch) == data
    assert patch_bytes(patch) == (data + b"\n" if data and not data.endswith(b"\n") else data)
    assert patch_sha256(patch) == hashlib.sha256(data).hexdigest()
    if draw is not None and data:
        at = draw.draw(st.integers(0, len(data) - 1))
        other = bytearray(data)
        other[at] = (other[at] + draw.draw(st.integers(1, 255))) % 256
        assert patch_sha256(bytes(other).decode("utf-8", errors="surrogateescape")) != patch_sha256(patch)


@FAST
@given(any_text)
@example("\ud800 lone high surrogate, \udcff escape")
def test_any_patch_string_encodes_and_reads_back(patch: str) -> None:
    """No string fails to encode: text is UTF-8, and a string holding a surrogate that is not a
    byte escape is kept in its UTF-8 form, so it decodes back to the same string."""
    data = encode_patch(patch)
    if not any("\ud800" <= ch <= "\udfff" for ch in patch):
        assert data == patch.encode("utf-8")
    elif any("\ud800" <= ch <= "\udfff" and not "\udc80" <= ch <= "\udcff" for ch in patch):
        assert data.decode("utf-8", errors="surrogatepass") == patch
    assert patch_bytes(patch) == (data + b"\n" if data and not data.endswith(b"\n") else data)


@FAST
@given(st.one_of(any_text, patchish))
@example("diff --git a/x b/y\n--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n")
@example(
    'diff --git "a/my dir/x.py" "b/my dir/x.py"\n--- "a/my dir/x.py"\n+++ "b/my dir/x.py"\n@@ -1 +1 @@\n-a\n+b\n'
)
def test_every_file_a_test_patch_names_is_restored(patch: str) -> None:
    """Whatever the text, every repository path it may write is a file of the test patch when it
    is the test patch: the strict policy restores each (none slips through unparsed)."""
    assert "{path}" not in apply_script("/testbed")
    protection = Protection.build(test_patch=patch, required_tests=["t::x"])
    for part in diff.parse_patch(patch):
        for path in part.paths:
            assert isinstance(path, str)
            if normalize(path) and not path.startswith("/") and ".." not in normalize(path).split("/"):
                assert why_neutralized(PathChange(path, "added"), protection, frozenset()) == (
                    "a file of the test patch"
                ), path


@FAST
@given(st.one_of(any_text, patchish), st.one_of(any_text, patchish))
def test_log_checks_find_exactly_the_forged_markers(log: str, script: str) -> None:
    findings = logcheck.forged_markers(log, script)
    budget = logcheck.marker_budget(script)
    # A marker is evidence exactly when the log holds it more often than the script can print it.
    assert {f.message.split("'")[1] for f in findings} == {m for m, n in budget.items() if log.count(m) > n}


@FAST
@given(
    st.sampled_from(["setup.cfg", "pyproject.toml", "pytest.ini"]), st.one_of(any_text, patchish), any_text
)
@example("setup.cfg", "[flake8]\nmax-line-length = 9\n", "")
@example("setup.cfg", "[options.entry_points]\nconsole_scripts = a = b:c\n", "")
@example("pyproject.toml", "[project]\nname = 'x'\n", "")
def test_a_pytest_section_added_to_a_config_file_always_steers(name: str, text: str, other: str) -> None:
    """Appending a pytest section or a pytest plugin entry point is a change that steers pytest,
    whatever the file held; an edit to another tool's entry points, in a file that parses, is not.
    The comparison is symmetric and a file compared with itself has not changed. Files pytest
    reads whole are compared by text."""
    assert steering_changed(name, text, text) is False
    assert steering_changed(name, text, other) == steering_changed(name, other, text)
    if name == "pytest.ini":
        assert steering_changed(name, text, text + "\n[pytest]\naddopts = -p zz_unlikely\n") is True
        assert steering_changed(name, text, other) == (text != other)
        return
    section, entry_points = {
        "setup.cfg": (
            "\n[tool:pytest]\naddopts = -p zz_unlikely\n",
            "\n[options.entry_points]\n{group} = x = {target}\n",
        ),
        "pyproject.toml": (
            '\n[tool.pytest.ini_options]\naddopts = "-p zz_unlikely"\n',
            '\n[project.entry-points.{group}]\nx = "{target}"\n',
        ),
    }[name]
    assert steering_changed(name, text, text + section) is True
    plugin = [text + entry_points.format(group="pytest11", target=t) for t in ("a:b", "c:d")]
    assert steering_changed(name, *plugin) is True
    script = [text + entry_points.format(group="console_scripts", target=t) for t in ("a:b", "c:d")]
    if not any(isinstance(steering_view(name, t), tuple) for t in script):  # both parse
        assert steering_changed(name, *script) is False


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
