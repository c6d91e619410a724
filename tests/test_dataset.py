"""Dataset indexes in-process: where the cache lives, parquet rows across row groups, corrupt files,
and the JSONL index checked against a full parse of generated lines."""

from __future__ import annotations

import json
import sys
from contextlib import nullcontext
from pathlib import Path
from unittest import mock

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from pytest_swe.api.errors import DatasetUnavailable
from pytest_swe.runner import dataset
from pytest_swe.runner.dataset import cache_root
from pytest_swe.runner.dataset import open_local


def test_the_cache_is_the_override_else_the_user_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_SWE_CACHE", str(tmp_path / "mine"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "mine"
    monkeypatch.delenv("PYTEST_SWE_CACHE")
    if sys.platform.startswith("linux"):
        assert cache_root() == tmp_path / "xdg" / "pytest-swe"
        # Without XDG_CACHE_HOME the path caches were always kept at is the one found.
        monkeypatch.delenv("XDG_CACHE_HOME")
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        assert cache_root() == tmp_path / "home" / ".cache" / "pytest-swe"
    else:
        assert cache_root().name in ("pytest-swe", "Cache")


def test_parquet_rows_load_from_any_row_group(tmp_path: Path) -> None:
    path = tmp_path / "rows.parquet"
    rows = [{"instance_id": f"r-{i}", "n": i} for i in range(7)]
    pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=3)
    index = open_local(path, cache=tmp_path / "cache")
    assert index.ids == [r["instance_id"] for r in rows]
    refs = list(index.refs())
    assert [index.load_row(refs[i].locator) for i in (4, 0, 6, 3)] == [rows[4], rows[0], rows[6], rows[3]]


def test_a_corrupt_parquet_file_is_an_unavailable_dataset(tmp_path: Path) -> None:
    path = tmp_path / "broken.parquet"
    path.write_bytes(b"PAR1 this is not a parquet file")
    with pytest.raises(DatasetUnavailable, match=r"cannot read dataset .*broken\.parquet: ArrowInvalid"):
        open_local(path, cache=tmp_path / "cache")


# --- the JSONL index against a parse of every line -------------------------------------------


_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\n\r"), max_size=40) | st.sampled_from(
    ['"instance_id": "fake"', '\\"instance_id\\": \\"x\\"', "tab\there", "é ☃ \u2028", "\\"]
)


def _reference_ids(path: Path) -> tuple[list[str | None], list[int]]:
    """What the index must hold: each non-blank line's top-level instance_id, parsed in full."""
    ids: list[str | None] = []
    offsets: list[int] = []
    offset = 0
    for line in path.read_bytes().splitlines(keepends=True):
        start, offset = offset, offset + len(line)
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            row = None
        value = row.get("instance_id") if isinstance(row, dict) else None
        ids.append(value if isinstance(value, str) else None)
        offsets.append(start)
    return ids, offsets


_ROW = st.fixed_dictionaries(
    {"patch": _TEXT, "problem_statement": _TEXT},
    optional={"instance_id": _TEXT, "hints": _TEXT, "n": st.integers()},
)


@hsettings(max_examples=150, deadline=None)
@given(
    rows=st.lists(
        st.one_of(
            _ROW.map(json.dumps),
            _ROW.map(lambda r: json.dumps(r, ensure_ascii=False)),
            st.sampled_from(
                ["", "   ", "not json", "[1, 2]", '{"instance_id": 7}', '{"instance_id": "raw\ttab"}']
            ),
        ),
        max_size=12,
    ),
    crlf=st.booleans(),
    final_newline=st.booleans(),
)
def test_the_jsonl_index_holds_what_a_full_parse_of_each_line_gives(
    rows: list[str], crlf: bool, final_newline: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    directory = tmp_path_factory.mktemp("jsonl")
    path = directory / "rows.jsonl"
    end = "\r\n" if crlf else "\n"
    path.write_bytes((end.join(rows) + (end if final_newline else "")).encode())
    expected_ids, expected_offsets = _reference_ids(path)
    for block in (7, 64, dataset._INDEX_BLOCK):  # lines across block ends, and longer than a block
        for mapped in (True, False):  # mapped windows, and read blocks where a file cannot be mapped
            unmappable = mock.patch.object(dataset.mmap, "mmap", side_effect=OSError(19, "No such device"))
            with (
                mock.patch.object(dataset, "_INDEX_BLOCK", block),
                unmappable if not mapped else nullcontext(),
            ):
                index = open_local(path, cache=directory / f"cache-{block}-{mapped}")
            assert index.ids == expected_ids
            assert list(index.locators) == expected_offsets
    for ref in index.refs():
        if ref.instance_id is not None:
            assert index.load_row(ref.locator)["instance_id"] == ref.instance_id


def test_an_empty_jsonl_file_indexes_to_no_rows(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    assert open_local(path, cache=tmp_path / "cache").ids == []


@pytest.mark.parametrize("damage", ["torn", "not-an-index", "wrong-types"])
def test_a_damaged_saved_index_is_built_again(tmp_path: Path, damage: str) -> None:
    """A warm index is read without the lock; one that cannot be read is rebuilt under it."""
    path = tmp_path / "rows.jsonl"
    rows = [{"instance_id": f"r-{i}", "n": i} for i in range(5)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    cache = tmp_path / "cache"
    first = open_local(path, cache=cache)
    [saved] = (cache / "index").glob("*.json")
    text = saved.read_text()
    saved.write_text(
        {
            "torn": text[: len(text) // 2],
            "not-an-index": "[1, 2]",
            "wrong-types": '{"ids": 3, "locators": 4}',
        }[damage]
    )
    again = open_local(path, cache=cache)
    assert again.ids == first.ids == [r["instance_id"] for r in rows]
    assert [again.load_row(ref.locator) for ref in again.refs()] == rows
    assert json.loads(saved.read_text())["ids"] == first.ids  # saved whole again
    assert open_local(path, cache=cache).ids == first.ids
