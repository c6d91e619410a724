"""Dataset sources, indexed so collection stays light.

Collection needs only each row's instance id; the full row is read when its item runs.
A :class:`DatasetIndex` holds ids and locations (byte offsets into a JSONL file, or row
numbers in a parquet file), never full rows. Indexes and Hugging Face downloads are
cached on disk under a file lock, so every xdist worker reuses the first one's work.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import re
import socket
import urllib.parse
from array import array
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from typing import BinaryIO

import platformdirs

from pytest_swe.api.errors import DatasetUnavailable
from pytest_swe.api.errors import RowError

INDEX_VERSION = 2
IdOf = Callable[[dict[str, Any]], str | None]


def cache_root() -> Path:
    """Where indexes and downloaded datasets are kept: ``PYTEST_SWE_CACHE``, else the platform's
    user cache (``$XDG_CACHE_HOME/pytest-swe``, by default ``~/.cache/pytest-swe``, on Linux)."""
    root = os.environ.get("PYTEST_SWE_CACHE")
    if root:
        return Path(root)
    return Path(platformdirs.user_cache_dir("pytest-swe", appauthor=False))


@dataclass(frozen=True)
class RowRef:
    """Where one row lives: its position, its id (None when the row has none) and its locator."""

    position: int
    instance_id: str | None
    locator: int


class DatasetIndex:
    """Ids and locators of a dataset's rows; loads one full row on demand."""

    def __init__(self, path: Path, kind: str, ids: list[str | None], locators: Sequence[int]) -> None:
        self.path = path
        self.kind = kind
        self.ids = ids
        self.locators = locators
        self._parquet: Any = None
        self._row_group_starts: list[int] | None = None

    def __len__(self) -> int:
        return len(self.ids)

    def refs(self) -> Iterator[RowRef]:
        for position, (instance_id, locator) in enumerate(zip(self.ids, self.locators, strict=False)):
            yield RowRef(position, instance_id, locator)

    def load_row(self, locator: int) -> dict[str, Any]:
        """Read the full row at ``locator``; errors name the row position."""
        if self.kind == "jsonl":
            with open(self.path, "rb") as fh:
                fh.seek(locator)
                line = fh.readline()
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise RowError("(row)", f"is not valid JSON: {exc.msg}") from None
        else:
            row = self._parquet_row(locator)
        if not isinstance(row, dict):
            raise RowError("(row)", f"must be a JSON object, got {type(row).__name__}")
        return row

    def _parquet_row(self, locator: int) -> dict[str, Any]:
        import pyarrow.parquet as pq

        starts = self._row_group_starts
        if self._parquet is None or starts is None:
            self._parquet = pq.ParquetFile(self.path)
            starts, total = [], 0
            for i in range(self._parquet.num_row_groups):
                starts.append(total)
                total += self._parquet.metadata.row_group(i).num_rows
            self._row_group_starts = starts
        group = max(i for i, start in enumerate(starts) if start <= locator)
        table = self._parquet.read_row_group(group)
        row: dict[str, Any] = table.slice(locator - starts[group], 1).to_pylist()[0]
        return row


# --- indexing ---------------------------------------------------------------------------------

# A JSON string's body as the "unrolled loop" (runs of plain bytes between escapes): one pass, no
# backtracking on a line whose string never closes, nearly twice as fast as matching a byte at a time.
_ID_PATTERN = r'"{field}"\s*:\s*"([^"\\]*(?:\\.[^"\\]*)*)"'


def _fingerprint(path: Path, id_fields: Sequence[str]) -> str:
    st = path.stat()
    key = f"{INDEX_VERSION}|{path.resolve()}|{st.st_size}|{st.st_mtime_ns}|{','.join(id_fields)}"
    return hashlib.sha256(key.encode()).hexdigest()[:24]


_INDEX_BLOCK = 8 << 20


def _index_jsonl(path: Path, id_field: str, id_of: IdOf | None) -> tuple[list[str | None], array[int]]:
    if id_of is not None:
        return _index_jsonl_parsed(path, id_of)
    ids: list[str | None] = []
    offsets = array("q")
    search = re.compile(_ID_PATTERN.format(field=re.escape(id_field)).encode()).search
    with open(path, "rb") as fh:
        for base, block, start, last in _line_blocks(fh):
            find = block.find
            while start < last:
                end = find(b"\n", start, last)
                if end < 0:
                    end = last
                match = search(block, start, end)
                if match is not None:
                    ids.append(_json_string(match.group(1)))
                    offsets.append(base + start)
                elif block[start:end].strip():
                    ids.append(None)
                    offsets.append(base + start)
                start = end + 1
    return ids, offsets


_Block = tuple[int, bytes | mmap.mmap, int, int]
"""(file offset of the block's first byte, the block, where its first line starts, where its
last whole line ends)"""


def _line_blocks(fh: BinaryIO) -> Iterator[_Block]:
    """The file in blocks of whole lines, each searched in place: no line is copied, and memory
    holds one block however large the file. A line longer than a block grows the block."""
    size = os.fstat(fh.fileno()).st_size
    try:
        mmap.mmap(fh.fileno(), min(size, mmap.PAGESIZE), access=mmap.ACCESS_READ).close()
    except (OSError, ValueError):  # empty, or on a file system that cannot map files
        return _read_blocks(fh)
    return _mapped_blocks(fh, size)


def _mapped_blocks(fh: BinaryIO, size: int) -> Iterator[_Block]:
    # Windows of the page cache: nothing is copied, a third of the time of reading the same
    # blocks on a dataset of several hundred MB; each window is unmapped before the next.
    pos, window = 0, _INDEX_BLOCK
    while pos < size:
        base = pos - pos % mmap.ALLOCATIONGRANULARITY
        length = min(size - base, pos - base + window)
        with mmap.mmap(fh.fileno(), length, access=mmap.ACCESS_READ, offset=base) as view:
            last = length if base + length >= size else view.rfind(b"\n", pos - base) + 1
            if last == 0:
                window *= 2
                continue
            yield base, view, pos - base, last
        pos = base + last


def _read_blocks(fh: BinaryIO) -> Iterator[_Block]:
    base = 0  # file offset of block[0]
    block = b""
    while True:
        more = fh.read(max(_INDEX_BLOCK, len(block)))
        block += more
        last = block.rfind(b"\n") + 1 if more else len(block)
        yield base, block, 0, last
        if not more:
            return
        base += last
        block = block[last:]


_NOT_PLAIN = bytes(range(0x20)) + b"\\"


def _json_string(raw: bytes) -> str | None:
    """The value of a JSON string's body, or None when it is not valid JSON text."""
    try:
        plain = len(raw.translate(None, _NOT_PLAIN)) == len(raw)  # no escapes, no control bytes
        value = raw.decode() if plain else json.loads(b'"' + raw + b'"')
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return value if isinstance(value, str) else None


def _index_jsonl_parsed(path: Path, id_of: IdOf) -> tuple[list[str | None], array[int]]:
    """Index by a family's own id function: every row is parsed (ids made of several fields)."""
    ids: list[str | None] = []
    offsets = array("q")
    offset = 0
    with open(path, "rb") as fh:
        for line in fh:
            start, offset = offset, offset + len(line)
            if not line.strip():
                continue
            instance_id: str | None
            try:
                row = json.loads(line)
                instance_id = id_of(row) if isinstance(row, dict) else None
            except (json.JSONDecodeError, UnicodeDecodeError, RowError, KeyError, TypeError, ValueError):
                instance_id = None
            ids.append(instance_id)
            offsets.append(start)
    return ids, offsets


def _index_parquet(
    path: Path, id_fields: Sequence[str], id_of: IdOf | None
) -> tuple[list[str | None], range]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        schema_names = set(pq.read_schema(path).names)
        columns = [c for c in id_fields if c in schema_names]
        table = pq.read_table(path, columns=columns)
    except pa.ArrowException as exc:  # a corrupt or foreign file (I/O errors are plain OSError)
        raise DatasetUnavailable(f"cannot read dataset {path}: {type(exc).__name__}: {exc}") from None
    ids: list[str | None]
    if id_of is None:
        ids = table.column(columns[0]).to_pylist() if columns else [None] * table.num_rows
    else:
        ids = []
        for row in table.to_pylist():
            try:
                ids.append(id_of(row))
            except (RowError, KeyError, TypeError, ValueError):
                ids.append(None)
    ids = [i if isinstance(i, str) and i else None for i in ids]
    return ids, range(len(ids))


def _json_to_jsonl(path: Path, dest: Path) -> None:
    """A .json file (a list of rows, or a mapping id -> row) rewritten as JSONL once."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetUnavailable(f"{path}: cannot read JSON dataset: {exc}") from None
    if isinstance(data, dict):
        rows = [
            dict(v, instance_id=v.get("instance_id", k)) if isinstance(v, dict) else v
            for k, v in data.items()
        ]
    elif isinstance(data, list):
        rows = data
    else:
        raise DatasetUnavailable(f"{path}: a JSON dataset must be a list of rows or a mapping of rows")
    tmp = dest.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    tmp.replace(dest)


def open_local(
    path: Path,
    *,
    id_fields: Sequence[str] = ("instance_id",),
    id_of: IdOf | None = None,
    cache: Path | None = None,
) -> DatasetIndex:
    """Index a local .jsonl/.json/.parquet file (cached by path, size and mtime)."""
    path = Path(path)
    if not path.is_file():
        raise DatasetUnavailable(f"dataset file not found: {path}")
    if not os.access(path, os.R_OK):
        raise DatasetUnavailable(f"dataset file not readable: {path}")
    cache = (cache or cache_root()) / "index"
    cache.mkdir(parents=True, exist_ok=True)
    key = _fingerprint(path, id_fields) + ("-custom" if id_of else "")
    index_file = cache / f"{key}.json"
    data_path, kind = path, path.suffix.lstrip(".")
    if kind != "json":
        # An index is written whole under a temporary name, then renamed: one that is there can
        # be read without the lock (and without importing filelock, on every warm run).
        warm = _read_index(index_file, data_path, kind)
        if warm is not None:
            return warm
    from filelock import FileLock

    with FileLock(str(cache / f"{key}.lock")):
        if kind == "json":
            data_path, kind = cache / f"{key}.jsonl", "jsonl"
            if not data_path.exists():
                _json_to_jsonl(path, data_path)
        warm = _read_index(index_file, data_path, kind)
        if warm is not None:
            return warm
        locators: Sequence[int]
        try:
            if kind == "jsonl":
                ids, locators = _index_jsonl(data_path, id_fields[0], id_of)
            elif kind == "parquet":
                ids, locators = _index_parquet(data_path, id_fields, id_of)
            else:
                raise DatasetUnavailable(
                    f"{path}: unsupported dataset format (use .jsonl, .json or .parquet)"
                )
        except OSError as exc:
            raise DatasetUnavailable(f"cannot read dataset {path}: {exc}") from None
        payload = {"ids": ids, "locators": list(locators) if kind == "jsonl" else []}
        tmp = index_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(payload))
        tmp.replace(index_file)
        return DatasetIndex(data_path, kind, ids, locators)


def _read_index(index_file: Path, data_path: Path, kind: str) -> DatasetIndex | None:
    """The index saved for ``data_path``; None when there is none or it cannot be read."""
    try:
        cached = json.loads(index_file.read_text())
        locators: Sequence[int] = (
            array("q", cached["locators"]) if kind == "jsonl" else range(len(cached["ids"]))
        )
        return DatasetIndex(data_path, kind, cached["ids"], locators)
    except (OSError, ValueError, KeyError, TypeError):
        return None


# --- Hugging Face ------------------------------------------------------------------------------


def _hub_reachable(timeout: float = 3.0) -> str | None:
    """None when the Hub answers a TCP connect, else the reason it does not."""
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    parsed = urllib.parse.urlparse(endpoint)
    host = parsed.hostname or "huggingface.co"
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    if os.environ.get("HTTPS_PROXY") or os.environ.get("https_proxy"):
        return None  # let the library go through the proxy
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except OSError as exc:
        return f"cannot reach {host}:{port} ({exc.strerror or exc})"


def _offline() -> bool:
    return any(
        os.environ.get(v, "").lower() in {"1", "true", "yes"}
        for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")
    )


def hf_cache_file(source: str, split: str, name: str | None, revision: str | None) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{source}--{name or 'default'}--{split}--{revision or 'main'}")
    return cache_root() / "hf" / f"{safe}.parquet"


def fetch_hf(source: str, split: str, *, name: str | None = None, revision: str | None = None) -> Path:
    """A local parquet copy of a Hugging Face split, downloaded once and shared by all workers."""
    dest = hf_cache_file(source, split, name, revision)
    if dest.exists():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    from filelock import FileLock

    with FileLock(str(dest) + ".lock"):
        if dest.exists():
            return dest
        try:
            import datasets
        except ImportError:
            raise DatasetUnavailable(
                f"Hugging Face dataset {source!r} needs the 'datasets' package: pip install 'pytest-swe[hf]'"
            ) from None
        if not _offline():
            reason = _hub_reachable()
            if reason:
                raise DatasetUnavailable(f"Hugging Face dataset {source!r} is not cached here and {reason}")
        try:
            ds = datasets.load_dataset(source, name, split=split, revision=revision)
        except (
            Exception
        ) as exc:  # datasets and its hub client raise many unrelated types (offline, auth, missing split)
            raise DatasetUnavailable(
                f"cannot load Hugging Face dataset {source!r} (split {split!r}): {type(exc).__name__}: {exc}"
            ) from None
        tmp = dest.with_suffix(".tmp")
        ds.to_parquet(str(tmp))
        tmp.replace(dest)
    return dest
