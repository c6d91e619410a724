"""Building blocks for a local dataset's ``make_rows.py``.

A local dataset keeps each instance as plain files a reviewer can read: ``repo/`` (the repository
at its base commit), overlay directories holding the full new contents of the files a patch
changes or adds (``fix/``, ``test/``, ``predictions/<label>/``) and ``instance.yaml`` (the row's
other columns). A generator turns them into dataset rows; these helpers are the parts every
generator needs, built on :mod:`pytest_swe.tools.gitsnap`, so that commits and diffs are the ones the
image builder makes and the written files are byte-identical on every machine.

A minimal generator::

    HERE = Path(__file__).resolve().parent

    def build_row(source: Path, scratch: Path) -> dict[str, Any]:
        meta = localdata.read_instance_yaml(source, {"repo", "FAIL_TO_PASS"})
        repo = source / "repo"
        return {
            "instance_id": source.name,
            "base_commit": gitsnap.commit_id(repo, scratch),
            "patch": localdata.overlay_diff(repo, source / "fix", scratch),
            **meta,
        }

    def write(out_dir: Path = HERE) -> list[Path]:
        rows, _ = localdata.build_instances(HERE / "instances", build_row)
        return localdata.write_jsonl(out_dir, {"rows.jsonl": rows})

    if __name__ == "__main__":
        sys.exit(localdata.cli(write, __doc__ or "", out_dir=HERE))
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from typing import TypeVar

import yaml

from pytest_swe.tools import gitsnap

__all__ = [
    "INSTANCE_FILE",
    "SWEBENCH_CLASSIC_COLUMNS",
    "KeptPrediction",
    "build_instances",
    "cli",
    "files_under",
    "instance_dirs",
    "kept_predictions",
    "overlay_commit",
    "overlay_diff",
    "overlay_tree",
    "prediction_records",
    "read_instance_yaml",
    "read_yaml",
    "to_jsonl",
    "write_jsonl",
]

#: The file that marks a directory as an instance and holds the row's other columns.
INSTANCE_FILE = "instance.yaml"

#: The classic SWE-bench row, in the column order of the published parquet files; later forms
#: (SWE-bench Verified v5 and others) append their columns to it.
SWEBENCH_CLASSIC_COLUMNS: tuple[str, ...] = (
    "repo",
    "instance_id",
    "base_commit",
    "patch",
    "test_patch",
    "problem_statement",
    "hints_text",
    "created_at",
    "version",
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
    "environment_setup_commit",
)

Row = TypeVar("Row")
Pred = TypeVar("Pred")


# --- reading the sources ------------------------------------------------------------------------


def read_yaml(
    path: Path, keys: Collection[str] | None = None, *, optional: Collection[str] = ()
) -> dict[str, Any]:
    """A YAML mapping, with exactly ``keys`` (plus any of ``optional``) when ``keys`` is given.

    A source file with a missing or misspelt key would otherwise give a row that is silently
    wrong, so it stops the build with the file named.
    """
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping")
    if keys is not None:
        missing = set(keys) - data.keys()
        unknown = data.keys() - set(keys) - set(optional)
        if missing or unknown:
            raise ValueError(f"{path}: missing keys {sorted(missing)}, unknown keys {sorted(unknown)}")
    return data


def read_instance_yaml(
    source: Path, keys: Collection[str] | None = None, *, optional: Collection[str] = ()
) -> dict[str, Any]:
    """The ``instance.yaml`` of the instance directory ``source`` (see :func:`read_yaml`)."""
    return read_yaml(Path(source) / INSTANCE_FILE, keys, optional=optional)


def instance_dirs(instances_dir: Path) -> list[Path]:
    """The instance directories (those with an ``instance.yaml``), sorted by name.

    Sorting makes the row order independent of the file system's listing order.
    """
    return sorted(p for p in Path(instances_dir).iterdir() if (p / INSTANCE_FILE).is_file())


def files_under(root: Path) -> list[str]:
    """Relative POSIX paths of the regular files under ``root``, sorted (stable across machines)."""
    root = Path(root)
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


# --- trees, diffs and commits -------------------------------------------------------------------


def overlay_tree(
    base_dir: Path,
    overlays: Sequence[Path],
    dest: Path,
    *,
    delete: Iterable[str] = (),
    ignore: Sequence[str] = (),
) -> Path:
    """Copy ``base_dir`` to ``dest``, lay ``overlays`` over it in order, delete ``delete``; return ``dest``.

    An overlay holds only the files it changes or adds, so a deletion has to be named
    (``delete``: paths relative to the tree). ``ignore`` names (glob patterns) in the overlays
    that are not part of the tree, such as a ``predictions/`` folder kept beside an overlay's
    files. Symbolic links are copied as links, as :func:`gitsnap.snapshot` copies them.
    """
    shutil.copytree(base_dir, dest, symlinks=True)
    skip = shutil.ignore_patterns(*ignore) if ignore else None
    for overlay in overlays:
        shutil.copytree(overlay, dest, symlinks=True, dirs_exist_ok=True, ignore=skip)
    for rel in delete:
        target = Path(dest) / rel
        if not target.is_file():
            raise ValueError(f"cannot delete {rel}: not a file in {base_dir}")
        target.unlink()
    return Path(dest)


def overlay_diff(base_dir: Path, overlay_dir: Path, scratch: Path, delete: Iterable[str] = ()) -> str:
    """The git diff that turns ``base_dir`` into ``base_dir`` with ``overlay_dir`` laid over it
    (and ``delete`` removed): a gold patch, a test patch or a prediction from its overlay.

    ``scratch`` is a work directory; the tree built in it is removed again.
    """
    work = Path(tempfile.mkdtemp(prefix="overlay-", dir=scratch))
    try:
        after = overlay_tree(base_dir, [overlay_dir], work / "tree", delete=delete)
        return gitsnap.diff_trees(base_dir, after, scratch)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def overlay_commit(
    base_dir: Path,
    overlays: Sequence[Path],
    message: str,
    scratch: Path,
    *,
    ignore: Sequence[str] = (),
) -> str:
    """The id of the commit that lays ``overlays`` over the snapshot of ``base_dir``.

    Like the snapshot, it is committed with :mod:`gitsnap`'s fixed identity and date, so an image
    builder that makes the same change with the same ``message`` gets the same id (a branch or a
    second commit that rows name).
    """
    work = Path(tempfile.mkdtemp(prefix="commit-", dir=scratch))
    try:
        repo = work / "repo"
        gitsnap.snapshot(base_dir, repo)
        skip = shutil.ignore_patterns(*ignore) if ignore else None
        for overlay in overlays:
            shutil.copytree(overlay, repo, symlinks=True, dirs_exist_ok=True, ignore=skip)
        # Rebuild the index from the files, as gitsnap.diff_trees does: an overlaid file of the same
        # size, with its mtime kept by the copy, can otherwise look unchanged and drop out of the commit.
        (repo / ".git" / "index").unlink(missing_ok=True)
        gitsnap.git(["add", "-A"], repo)
        gitsnap.git(["commit", "-q", "-m", message], repo)
        return gitsnap.git(["rev-parse", "HEAD"], repo).strip()
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --- kept predictions ---------------------------------------------------------------------------


@dataclass(frozen=True)
class KeptPrediction:
    """A prediction kept beside an instance: its label, its ``<label>.yaml`` and its patch."""

    label: str
    meta: dict[str, Any]
    patch: str


def kept_predictions(
    folder: Path, base_dir: Path, scratch: Path, keys: Collection[str] | None = ("description",)
) -> list[KeptPrediction]:
    """The predictions kept in ``folder`` (usually ``<instance>/predictions``), sorted by label.

    Each ``<label>.yaml`` (with exactly ``keys``, unless ``keys`` is None) says what the
    prediction is; its patch is either the overlay ``<label>/`` laid over ``base_dir`` or, for a
    patch no overlay can express (one that does not apply, say), the literal ``<label>.diff``.
    A missing ``folder`` means no predictions.
    """
    folder = Path(folder)
    if not folder.is_dir():
        return []
    found = []
    for spec in sorted(folder.glob("*.yaml")):
        label = spec.stem
        meta = read_yaml(spec, keys)
        literal, overlay = folder / f"{label}.diff", folder / label
        if literal.is_file() == overlay.is_dir():
            raise ValueError(f"{spec}: give exactly one of {literal.name} or {overlay.name}/")
        if literal.is_file():
            patch = literal.read_text(encoding="utf-8")
        else:
            patch = overlay_diff(base_dir, overlay, scratch)
        found.append(KeptPrediction(label, meta, patch))
    return found


def prediction_records(
    folder: Path,
    base_dir: Path,
    scratch: Path,
    *,
    instance_id: str,
    model: str,
    keys: Collection[str] | None = ("description",),
) -> list[dict[str, str]]:
    """The predictions kept in ``folder`` as SWE-bench predictions-file records.

    Each is named ``<model>-<label>`` so that runs of different kept predictions stay apart in a
    ledger (see :func:`kept_predictions` for ``folder``, ``base_dir`` and ``keys``).
    """
    return [
        {"instance_id": instance_id, "model_name_or_path": f"{model}-{kept.label}", "model_patch": kept.patch}
        for kept in kept_predictions(folder, base_dir, scratch, keys)
    ]


# --- building and writing -----------------------------------------------------------------------


def build_instances(
    instances_dir: Path,
    row: Callable[[Path, Path], Row],
    predictions: Callable[[Path, Path], Iterable[Pred]] | None = None,
) -> tuple[list[Row], list[Pred]]:
    """Every instance's row and predictions, in instance order.

    ``row(source, scratch)`` and ``predictions(source, scratch)`` get the instance directory and
    a scratch directory that is removed when all are built.
    """
    rows: list[Row] = []
    preds: list[Pred] = []
    with tempfile.TemporaryDirectory(prefix="localdata-") as tmp:
        scratch = Path(tmp)
        for source in instance_dirs(instances_dir):
            rows.append(row(source, scratch))
            if predictions is not None:
                preds.extend(predictions(source, scratch))
    return rows, preds


def to_jsonl(records: Iterable[Mapping[str, Any]], *, ensure_ascii: bool = False) -> str:
    """One JSON object per line, in the records' key order.

    Non-ASCII text is kept readable by default so that diffs of a dataset stay reviewable;
    ``ensure_ascii=True`` escapes it, as :func:`json.dumps` does by default.
    """
    return "".join(json.dumps(record, ensure_ascii=ensure_ascii) + "\n" for record in records)


def write_jsonl(
    out_dir: Path, files: Mapping[str, Iterable[Mapping[str, Any]]], *, ensure_ascii: bool = False
) -> list[Path]:
    """Write each ``{file name: records}`` into ``out_dir`` as JSON lines; return the paths.

    UTF-8 with ``\\n`` line ends on every platform, so the bytes match the committed files.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, records in files.items():
        path = out_dir / name
        path.write_text(to_jsonl(records, ensure_ascii=ensure_ascii), encoding="utf-8", newline="\n")
        paths.append(path)
    return paths


def cli(
    write: Callable[[Path], Iterable[Path]],
    description: str,
    *,
    out_dir: Path,
    argv: Sequence[str] | None = None,
) -> int:
    """The command line of a ``make_rows.py``: ``write`` into ``--out-dir`` and print each path.

    ``--check`` writes into a temporary directory instead and exits 1 if any file differs from
    the one in ``--out-dir``, so CI can tell stale committed files without touching them.
    ``description``'s first line (a module docstring will do) is the help text.
    """
    parser = argparse.ArgumentParser(description=description.strip().splitlines()[0] if description else None)
    parser.add_argument(
        "--out-dir", type=Path, default=out_dir, help="where to write (default: beside this file)"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if a file in --out-dir is not what would be written",
    )
    args = parser.parse_args(argv)
    if not args.check:
        for path in write(args.out_dir):
            print(path)
        return 0
    stale = []
    with tempfile.TemporaryDirectory(prefix="localdata-check-") as tmp:
        for path in write(Path(tmp)):
            committed = args.out_dir / Path(path).relative_to(tmp)
            if not committed.is_file() or committed.read_bytes() != Path(path).read_bytes():
                stale.append(committed)
    for path in stale:
        print(f"{path} is stale: run {Path(sys.argv[0]).name} without --check", file=sys.stderr)
    return 1 if stale else 0
