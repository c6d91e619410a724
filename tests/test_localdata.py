"""Unit tests of :mod:`pytest_swe.tools.localdata`, the toolkit every ``make_rows.py`` builds on.

Each test makes its own small instance sources in a temporary directory and uses real git, so a
diff is checked by applying it, and a commit id by making the same commit another way.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_swe.tools import gitsnap
from pytest_swe.tools import localdata

from conftest import SWEBENCH_CLASSIC_COLUMNS


def make_files(root: Path, files: dict[str, str]) -> Path:
    """Create ``root`` with ``files`` (relative path -> text); return ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def tree(root: Path) -> dict[str, str]:
    """Relative path -> text of every file under ``root`` outside ``.git``."""
    return {
        rel: (root / rel).read_text(encoding="utf-8")
        for rel in localdata.files_under(root)
        if not rel.startswith(".git/")
    }


@pytest.fixture
def base(tmp_path: Path) -> Path:
    return make_files(
        tmp_path / "src" / "repo",
        {"pkg/core.py": "def f():\n    return 1\n", "pkg/old.py": "OLD = 1\n", "README.md": "hello\n"},
    )


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    path = tmp_path / "scratch"
    path.mkdir()
    return path


# --- reading the sources ------------------------------------------------------------------------


def test_read_yaml_checks_the_keys(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("a: 1\nb: [x, y]\n", encoding="utf-8")
    assert localdata.read_yaml(path) == {"a": 1, "b": ["x", "y"]}
    assert localdata.read_yaml(path, {"a", "b"}) == {"a": 1, "b": ["x", "y"]}
    assert localdata.read_yaml(path, {"a"}, optional={"b", "c"})["a"] == 1
    with pytest.raises(ValueError, match=r"missing keys \['c'\], unknown keys \[\]"):
        localdata.read_yaml(path, {"a", "b", "c"})
    with pytest.raises(ValueError, match=r"missing keys \[\], unknown keys \['b'\]"):
        localdata.read_yaml(path, {"a"})


def test_read_yaml_rejects_anything_but_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("- a\n- b\n", encoding="utf-8")
    with pytest.raises(ValueError, match="expected a mapping"):
        localdata.read_yaml(path)


def test_instance_dirs_and_read_instance_yaml(tmp_path: Path) -> None:
    make_files(tmp_path / "b__two-2", {"instance.yaml": "repo: b/two\n"})
    make_files(tmp_path / "a__one-1", {"instance.yaml": "repo: a/one\n"})
    make_files(tmp_path / "c__notes", {"README.md": "not an instance\n"})
    (tmp_path / "stray.yaml").write_text("x: 1\n", encoding="utf-8")
    dirs = localdata.instance_dirs(tmp_path)
    assert [d.name for d in dirs] == ["a__one-1", "b__two-2"]
    assert localdata.read_instance_yaml(dirs[1], {"repo"}) == {"repo": "b/two"}


def test_files_under_lists_files_sorted_and_posix(tmp_path: Path) -> None:
    make_files(tmp_path, {"z.py": "", "a/b/c.txt": "", "a/a.py": ""})
    (tmp_path / "empty").mkdir()
    assert localdata.files_under(tmp_path) == ["a/a.py", "a/b/c.txt", "z.py"]


# --- trees, diffs and commits -------------------------------------------------------------------


def test_overlay_diff_applies_back_to_the_overlaid_tree(base: Path, tmp_path: Path, scratch: Path) -> None:
    overlay = make_files(
        tmp_path / "src" / "fix",
        {"pkg/core.py": "def f():\n    return 2\n", "pkg/new/mod.py": "NEW = 2\n"},
    )
    patch = localdata.overlay_diff(base, overlay, scratch, delete=["pkg/old.py"])
    assert "diff --git a/pkg/core.py b/pkg/core.py" in patch
    assert "new file mode" in patch and "deleted file mode" in patch
    assert "README.md" not in patch
    # The diff turns a snapshot of the base into exactly the overlaid tree.
    work = tmp_path / "work"
    gitsnap.snapshot(base, work)
    gitsnap.git(["apply", "-"], work, input=patch)
    assert tree(work) == {
        "README.md": "hello\n",
        "pkg/core.py": "def f():\n    return 2\n",
        "pkg/new/mod.py": "NEW = 2\n",
    }
    # The sources are untouched and the scratch directory is left empty.
    assert tree(base)["pkg/old.py"] == "OLD = 1\n"
    assert list(scratch.iterdir()) == []


def test_overlay_diff_of_an_overlay_that_changes_nothing_is_empty(
    base: Path, tmp_path: Path, scratch: Path
) -> None:
    same = make_files(tmp_path / "same", {"README.md": "hello\n"})
    assert localdata.overlay_diff(base, same, scratch) == ""


def test_overlay_diff_sees_a_same_size_change(base: Path, tmp_path: Path, scratch: Path) -> None:
    """A changed file of the same size (and copied mtime) must still show in the diff."""
    overlay = make_files(tmp_path / "fix", {"README.md": "HELLO\n"})
    patch = localdata.overlay_diff(base, overlay, scratch)
    assert "-hello\n+HELLO\n" in patch


def test_overlay_diff_refuses_to_delete_what_is_not_there(base: Path, tmp_path: Path, scratch: Path) -> None:
    overlay = make_files(tmp_path / "fix", {"README.md": "bye\n"})
    with pytest.raises(ValueError, match=r"cannot delete pkg/missing\.py"):
        localdata.overlay_diff(base, overlay, scratch, delete=["pkg/missing.py"])
    assert list(scratch.iterdir()) == []


def test_overlay_tree_lays_overlays_in_order_and_skips_ignored(base: Path, tmp_path: Path) -> None:
    first = make_files(
        tmp_path / "first",
        {"pkg/core.py": "first\n", "extra.txt": "1\n", "predictions/p/pkg/core.py": "kept aside\n"},
    )
    second = make_files(tmp_path / "second", {"pkg/core.py": "second\n"})
    dest = localdata.overlay_tree(
        base, [first, second], tmp_path / "out", delete=["README.md"], ignore=["predictions"]
    )
    assert tree(dest) == {
        "extra.txt": "1\n",
        "pkg/core.py": "second\n",
        "pkg/old.py": "OLD = 1\n",
    }


def test_overlay_commit_is_the_commit_of_the_applied_diff(base: Path, tmp_path: Path, scratch: Path) -> None:
    overlay = make_files(tmp_path / "bug", {"pkg/core.py": "def f():\n    return 0\n"})
    commit = localdata.overlay_commit(base, [overlay], "bug-1", scratch)
    # The same change made by applying the diff and committing with the same message.
    work = tmp_path / "work"
    gitsnap.snapshot(base, work)
    gitsnap.git(["apply", "-"], work, input=localdata.overlay_diff(base, overlay, scratch))
    gitsnap.git(["add", "-A"], work)
    gitsnap.git(["commit", "-q", "-m", "bug-1"], work)
    assert commit == gitsnap.git(["rev-parse", "HEAD"], work).strip()
    assert gitsnap.git(["rev-parse", "HEAD~1"], work).strip() == gitsnap.commit_id(base, scratch)
    # Deterministic, and the message is part of it.
    assert localdata.overlay_commit(base, [overlay], "bug-1", scratch) == commit
    assert localdata.overlay_commit(base, [overlay], "bug-2", scratch) != commit
    assert list(scratch.iterdir()) == []


# --- kept predictions ---------------------------------------------------------------------------


def test_kept_predictions_from_overlays_and_literal_diffs(base: Path, tmp_path: Path, scratch: Path) -> None:
    folder = make_files(
        tmp_path / "predictions",
        {
            "b-literal.yaml": "description: a patch no overlay can express\n",
            "b-literal.diff": "not really a diff\n",
            "a-overlay.yaml": "description: changes core\n",
            "a-overlay/pkg/core.py": "def f():\n    return 3\n",
        },
    )
    kept = localdata.kept_predictions(folder, base, scratch)
    assert [k.label for k in kept] == ["a-overlay", "b-literal"]
    assert kept[0].meta == {"description": "changes core"}
    assert kept[0].patch == localdata.overlay_diff(base, folder / "a-overlay", scratch)
    assert "+    return 3" in kept[0].patch
    assert kept[1].patch == "not really a diff\n"


def test_kept_predictions_need_exactly_one_patch_and_the_keys(
    base: Path, tmp_path: Path, scratch: Path
) -> None:
    neither = make_files(tmp_path / "neither", {"x.yaml": "description: d\n"})
    with pytest.raises(ValueError, match=r"give exactly one of x\.diff or x/"):
        localdata.kept_predictions(neither, base, scratch)
    both = make_files(tmp_path / "both", {"x.yaml": "description: d\n", "x.diff": "", "x/a.txt": "a\n"})
    with pytest.raises(ValueError, match="give exactly one"):
        localdata.kept_predictions(both, base, scratch)
    extra = make_files(tmp_path / "extra", {"x.yaml": "description: d\nexpect: partial\n", "x/a.txt": "a\n"})
    with pytest.raises(ValueError, match=r"unknown keys \['expect'\]"):
        localdata.kept_predictions(extra, base, scratch)
    assert [k.meta for k in localdata.kept_predictions(extra, base, scratch, keys=None)] == [
        {"description": "d", "expect": "partial"}
    ]
    assert localdata.kept_predictions(tmp_path / "absent", base, scratch) == []


def test_prediction_records_are_predictions_file_records(base: Path, tmp_path: Path, scratch: Path) -> None:
    folder = make_files(
        tmp_path / "predictions",
        {"wrong.yaml": "description: d\n", "wrong/README.md": "bye\n", "odd.yaml": "description: e\n"},
    )
    (folder / "odd.diff").write_text("literal\n", encoding="utf-8")
    records = localdata.prediction_records(folder, base, scratch, instance_id="acme__x-1", model="local")
    assert records == [
        {"instance_id": "acme__x-1", "model_name_or_path": "local-odd", "model_patch": "literal\n"},
        {
            "instance_id": "acme__x-1",
            "model_name_or_path": "local-wrong",
            "model_patch": localdata.overlay_diff(base, folder / "wrong", scratch),
        },
    ]
    assert "+bye" in records[1]["model_patch"]
    assert [list(r) for r in records] == [["instance_id", "model_name_or_path", "model_patch"]] * 2


# --- building and writing -----------------------------------------------------------------------


def test_build_instances_in_order_with_one_scratch_removed_after(tmp_path: Path) -> None:
    for name in ("b-2", "a-1"):
        make_files(tmp_path / "instances" / name, {"instance.yaml": f"n: {name}\n"})
    scratches: list[Path] = []

    def row(source: Path, scratch: Path) -> str:
        scratches.append(scratch)
        assert scratch.is_dir()
        return source.name

    def predictions(source: Path, scratch: Path) -> list[str]:
        return [f"{source.name}/p1", f"{source.name}/p2"]

    rows, preds = localdata.build_instances(tmp_path / "instances", row, predictions)
    assert rows == ["a-1", "b-2"]
    assert preds == ["a-1/p1", "a-1/p2", "b-2/p1", "b-2/p2"]
    assert len(set(scratches)) == 1 and not scratches[0].exists()
    assert localdata.build_instances(tmp_path / "instances", row) == (["a-1", "b-2"], [])


def test_to_jsonl_keeps_key_order_and_chooses_escaping() -> None:
    records = [{"z": "café", "a": [1, None]}, {"k": True}]
    text = localdata.to_jsonl(records)
    assert text == '{"z": "café", "a": [1, null]}\n{"k": true}\n'
    assert localdata.to_jsonl(records, ensure_ascii=True).startswith('{"z": "caf\\u00e9", ')
    assert [json.loads(line) for line in text.splitlines()] == records
    assert localdata.to_jsonl([]) == ""


def test_write_jsonl_writes_utf8_with_lf(tmp_path: Path) -> None:
    out = tmp_path / "deep" / "out"
    paths = localdata.write_jsonl(out, {"rows.jsonl": [{"a": "é\nx"}], "preds.jsonl": []})
    assert paths == [out / "rows.jsonl", out / "preds.jsonl"]
    assert paths[0].read_bytes() == '{"a": "é\\nx"}\n'.encode()
    assert paths[1].read_bytes() == b""


def test_swebench_classic_columns_match_the_published_order() -> None:
    assert localdata.SWEBENCH_CLASSIC_COLUMNS == SWEBENCH_CLASSIC_COLUMNS


# --- the command line ---------------------------------------------------------------------------


def fake_write(out_dir: Path) -> list[Path]:
    return localdata.write_jsonl(out_dir, {"rows.jsonl": [{"id": 1}], "preds.jsonl": [{"id": 2}]})


def test_cli_writes_into_out_dir_and_prints_the_paths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    default = tmp_path / "default"
    assert localdata.cli(fake_write, "Build rows.\n\nMore.", out_dir=default, argv=[]) == 0
    assert (default / "rows.jsonl").read_text(encoding="utf-8") == '{"id": 1}\n'
    other = tmp_path / "other"
    assert localdata.cli(fake_write, "Build rows.", out_dir=default, argv=["--out-dir", str(other)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        str(default / "rows.jsonl"),
        str(default / "preds.jsonl"),
        str(other / "rows.jsonl"),
        str(other / "preds.jsonl"),
    ]


def test_cli_check_compares_without_writing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    fake_write(out)
    assert localdata.cli(fake_write, "Build rows.", out_dir=out, argv=["--check"]) == 0
    (out / "preds.jsonl").write_text('{"id": 3}\n', encoding="utf-8")
    assert localdata.cli(fake_write, "Build rows.", out_dir=out, argv=["--check"]) == 1
    assert "preds.jsonl is stale" in capsys.readouterr().err
    assert (out / "preds.jsonl").read_text(encoding="utf-8") == '{"id": 3}\n'
    (out / "rows.jsonl").unlink()
    assert localdata.cli(fake_write, "Build rows.", out_dir=out, argv=["--check"]) == 1
    assert not (out / "rows.jsonl").exists()
