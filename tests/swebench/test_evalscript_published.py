"""Eval scripts built from classic fields equal the official ones the published rows carry.

Every row of the v5-form SWE-bench files (Verified test, Lite test and dev, full dev) carries the
official ``eval_script``. The v5 columns are dropped, the script is rebuilt from the classic
fields alone and compared byte for byte. Needs no official package: it always runs.
"""

from __future__ import annotations

import difflib
import json
import os
import re

import pyarrow.parquet as pq
import pytest

from pytest_swe.families.swebench.evalscript import END_TEST_OUTPUT
from pytest_swe.families.swebench.evalscript import HEREDOC_DELIMITER
from pytest_swe.families.swebench.evalscript import START_TEST_OUTPUT
from pytest_swe.families.swebench.evalscript import make_eval_script_for_row
from pytest_swe.families.swebench.images import official_image_name
from pytest_swe.families.swebench.specs import PUBLISHED_PRE_TEST_STEPS

from conftest import SHARED_DATA

DATA_ROOT = SHARED_DATA
V5_DIR = DATA_ROOT / "swebench-v5"
CLASSIC_DIR = DATA_ROOT / "swebench-lite"
V5_SPLITS = ("verified-test", "lite-test", "lite-dev", "full-dev")
V5_ONLY_COLUMNS = ("eval_script", "image", "log_parser", "eval_type")

#: Rows whose rebuilt script may differ from the published one, with the reason. Each listed
#: row must still agree on every command that matters (see ``commands_that_matter``).
INTENDED_DIFFERENCES: dict[str, str] = {}


def _load_v5() -> dict[str, list[dict]]:
    if not V5_DIR.is_dir():
        return {}
    return {split: pq.read_table(V5_DIR / f"{split}.parquet").to_pylist() for split in V5_SPLITS}


V5_ROWS = _load_v5()
V5_CASES = [
    pytest.param(row, id=f"{split}/{row['instance_id']}") for split, rows in V5_ROWS.items() for row in rows
]
V5_BY_ID = {row["instance_id"]: row for rows in V5_ROWS.values() for row in rows}


def _load_classic() -> list[dict]:
    rows: list[dict] = []
    for name in ("test.jsonl", "dev.jsonl"):
        path = CLASSIC_DIR / name
        if path.is_file():
            rows += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return rows


CLASSIC_ROWS = _load_classic()

pytestmark = pytest.mark.skipif(
    not V5_ROWS and os.environ.get("CI") != "true", reason=f"no published rows under {V5_DIR}"
)


def classic_fields(row: dict) -> dict:
    """The row as a classic dataset has it: the v5-only columns dropped."""
    return {key: value for key, value in row.items() if key not in V5_ONLY_COLUMNS}


def split_commands(script: str) -> list[str]:
    """The script's commands, one per line, except that a heredoc and its body form one command."""
    commands: list[str] = []
    lines = iter(script.splitlines())
    for line in lines:
        if line.endswith(f"<<'{HEREDOC_DELIMITER}'"):
            body = [line]
            for inner in lines:
                body.append(inner)
                if inner == HEREDOC_DELIMITER:
                    break
            commands.append("\n".join(body))
        else:
            commands.append(line)
    return commands


def commands_that_matter(script: str) -> dict[str, object]:
    """What decides the verdict: environment, setup, resets, test patch, test commands, markers.

    Purely informational lines (``git status``, ``git show``, ``git diff``) are left out.
    """
    commands = split_commands(script)
    informational = re.compile(r"^git (status|show|(-c \S+ )?diff)\b")
    start, end = f": '{START_TEST_OUTPUT}'", f": '{END_TEST_OUTPUT}'"
    if start not in commands or end not in commands:
        return {"markers": False, "commands": [c for c in commands if not informational.match(c)]}
    first, last = commands.index(start), commands.index(end)
    return {
        "markers": True,
        "header": commands[:2],
        "before_tests": [c for c in commands[2:first] if not informational.match(c)],
        "tests": commands[first + 1 : last],
        "after_tests": commands[last + 1 :],
    }


def _diff(expected: str, actual: str) -> str:
    return "".join(
        difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), "published", "rebuilt", n=1)
    )[:4000]


def test_published_rows_are_present() -> None:
    """The differential test below must not pass vacuously."""
    assert {split: len(rows) for split, rows in V5_ROWS.items()} == {
        "verified-test": 500,
        "lite-test": 300,
        "lite-dev": 23,
        "full-dev": 225,
    }


@pytest.mark.parametrize("row", V5_CASES)
def test_rebuilt_script_equals_published(row: dict) -> None:
    """The script built from the classic fields is the row's official ``eval_script``."""
    published = row["eval_script"]
    rebuilt = make_eval_script_for_row(classic_fields(row))
    if row["instance_id"] in INTENDED_DIFFERENCES:
        assert commands_that_matter(rebuilt) == commands_that_matter(published), _diff(published, rebuilt)
    else:
        assert rebuilt == published, _diff(published, rebuilt)


@pytest.mark.parametrize("row", V5_CASES)
def test_published_image_is_the_official_name(row: dict) -> None:
    assert row["image"] == official_image_name(row["instance_id"])


@pytest.mark.parametrize("row", V5_CASES)
def test_generations_differ_only_in_resets_and_instance_steps(row: dict) -> None:
    """What separates the published scripts from what 4.1.0 generated, row by row.

    Only the reset lines (4.1.0 resets the files the test patch modifies, by their old name;
    the published scripts every path the patch names) and the instance steps may differ.
    """
    published = make_eval_script_for_row(classic_fields(row))
    generated = make_eval_script_for_row(classic_fields(row), compat="4.1.0")
    reset = f"git checkout {row['base_commit']}"
    steps = set(PUBLISHED_PRE_TEST_STEPS.get(row["instance_id"], ()))

    def essential(script: str) -> list[str]:
        return [c for c in split_commands(script) if not c.startswith(reset) and c not in steps]

    assert essential(published) == essential(generated)


CLASSIC_CASES = [pytest.param(row, id=row["instance_id"]) for row in CLASSIC_ROWS]


def test_classic_rows_are_present() -> None:
    assert len(CLASSIC_ROWS) == 323


#: The fields an eval script is built from. The classic files differ from the published rows
#: elsewhere only in data the script does not use (12 rows have revised PASS_TO_PASS lists, one
#: a reworded problem statement).
SCRIPT_INPUTS = ("instance_id", "repo", "version", "base_commit", "test_patch")


@pytest.mark.parametrize("row", CLASSIC_CASES)
def test_classic_row_matches_its_published_twin(row: dict) -> None:
    """The classic-form Lite rows are the same instances: same script inputs, script and image."""
    twin = V5_BY_ID[row["instance_id"]]
    assert {key: row[key] for key in SCRIPT_INPUTS} == {key: twin[key] for key in SCRIPT_INPUTS}
    assert make_eval_script_for_row(row) == twin["eval_script"]
    assert official_image_name(row["instance_id"]) == twin["image"]


def test_commands_that_matter_ignores_informational_lines_only() -> None:
    """The equivalence used for listed rows must still catch a changed test command."""
    script = V5_CASES[0].values[0]["eval_script"]
    assert commands_that_matter(script.replace("\ngit show\n", "\ngit show HEAD\n")) == commands_that_matter(
        script
    )
    changed = script.replace(f": '{START_TEST_OUTPUT}'\n", f": '{START_TEST_OUTPUT}'\necho extra\n")
    assert commands_that_matter(changed) != commands_that_matter(script)
    assert commands_that_matter(script.replace("git apply -v", "git apply")) != commands_that_matter(script)


def test_intended_differences_name_published_rows() -> None:
    assert set(INTENDED_DIFFERENCES) <= set(V5_BY_ID)
