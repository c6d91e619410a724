"""Dataset indexes in-process: where the cache lives, parquet rows across row groups, corrupt files."""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pytest_swe.api.errors import DatasetUnavailable
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
