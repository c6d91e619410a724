"""The probe's walks of the site directories and the repository find what ``os.walk`` finds.

Every step of the probe walks the site directories for compiled files, and a real environment
holds tens of thousands of files, so the walk is a ``scandir`` loop of its own. These tests hold
it to the plain definition (``os.walk`` with the same pruning, the same link handling and the
same stat key) on generated trees: links to files, to directories, to nothing and to an ancestor,
pruned directory names, and names that only look like compiled files.
"""

from __future__ import annotations

import os
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from test_probe_copies import load_hook

HOOK = load_hook()

NAMES = [
    "a",
    "b",
    "__pycache__",
    ".git",
    "node_modules",
    "x.pyc",
    "m.cpython-311.pyc",
    "n.py",
    "y__pycache__z",
]
"""Path parts: plain names, the pruned directories, and names that are (or only look like) compiled files."""


def reference_walk(top: str) -> list[tuple[str, str, str]]:
    """The walk as the probe first defined it: os.walk, pruned, every relative path normalized."""
    out = []
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d not in HOOK.SKIP_DIRS]
        rel_root = os.path.relpath(root, top)
        for name in files:
            out.append((name, os.path.normpath(os.path.join(rel_root, name)), os.path.join(root, name)))
        for name in list(dirs):
            full = os.path.join(root, name)
            if os.path.islink(full):
                out.append((name, os.path.normpath(os.path.join(rel_root, name)), full))
    return out


def reference_compiled(top: str, since: int) -> list[str]:
    found = []
    for _name, _rel, full in reference_walk(top):
        if full.endswith(".pyc") and "__pycache__" in full:
            try:
                if os.lstat(full).st_ctime_ns >= since:
                    found.append(full)
            except OSError:
                pass
    return found


paths = st.lists(st.sampled_from(NAMES), min_size=1, max_size=4).map(lambda parts: "/".join(parts))
entries = st.lists(
    st.one_of(
        st.tuples(st.just("dir"), paths),
        st.tuples(st.just("file"), paths, st.integers(0, 40)),
        st.tuples(st.just("link"), paths, st.one_of(paths, st.just(".."), st.just("/outside"))),
    ),
    max_size=30,
)


def build(root: Path, spec: list[tuple[Any, ...]]) -> Path:
    """The tree under ``root/top``; ``root/outside`` holds compiled files a link may lead to."""
    top, outside = root / "top", root / "outside" / "__pycache__"
    top.mkdir()
    outside.mkdir(parents=True)
    (outside / "o.pyc").write_bytes(b"o")
    for kind, rel, *rest in spec:
        path = top / rel
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if kind == "dir":
                path.mkdir(exist_ok=True)
            elif kind == "file":
                path.write_bytes(b"x" * rest[0])
            else:
                target = rest[0]
                if target == "/outside":
                    os.symlink(outside.parent, path)
                elif target == "..":
                    os.symlink("..", path)
                else:
                    os.symlink(top / target, path)
        except OSError:
            continue  # a part that is a file, a name already taken: the tree as far as it goes
    return top


@settings(max_examples=300, deadline=None)
@given(entries, st.integers(0, 3))
def test_the_compiled_files_are_those_os_walk_finds(spec: list[tuple[Any, ...]], cut: int) -> None:
    """Every compiled file (``since`` 0), or those changed since a stamp taken partway through."""
    with tempfile.TemporaryDirectory() as tmp:
        top = build(Path(tmp), spec)
        since = 0
        if cut:
            since = HOOK.change_stamp(tmp)
            for path in sorted(top.rglob("*.pyc"))[::cut]:
                if path.is_file() and not path.is_symlink():
                    path.write_bytes(path.read_bytes())
        assert sorted(HOOK.compiled_since(str(top), since)) == sorted(reference_compiled(str(top), since))
        assert sorted(HOOK.walk(str(top))) == sorted(reference_walk(str(top)))


def test_a_tree_with_every_kind_of_entry(tmp_path: Path) -> None:
    """One fixed tree, so that the cases the generated ones may miss are always there."""
    top = build(
        tmp_path,
        [
            ("file", "a/__pycache__/m.cpython-311.pyc", 7),
            ("file", ".git/__pycache__/m.cpython-311.pyc", 3),
            ("file", "node_modules/__pycache__/x.pyc", 3),
            ("file", "y__pycache__z/x.pyc", 5),
            ("file", "b/x.pyc", 2),
            ("link", "a/__pycache__/x.pyc", "a/__pycache__/m.cpython-311.pyc"),
            ("link", "b/__pycache__", "/outside"),
            ("link", "b/n.py", "nowhere"),
            ("link", "a/.git", "a"),
            ("link", "a/b", ".."),
        ],
    )
    found = HOOK.compiled_since(str(top), 0)
    assert sorted(found) == sorted(reference_compiled(str(top), 0))
    assert sorted(os.path.relpath(p, top) for p in found) == [
        "a/__pycache__/m.cpython-311.pyc",
        "a/__pycache__/x.pyc",
        "y__pycache__z/x.pyc",
    ]


def test_a_compiled_file_rewritten_with_its_old_time_put_back_is_still_found(tmp_path: Path) -> None:
    """What an install step can do to a compiled file (write it in place, rename or link another
    over it, then set the modification time back) changes its change time, which it cannot set."""
    site = tmp_path / "site-packages"
    cache = site / "pkg" / "__pycache__"
    cache.mkdir(parents=True)
    names = ["inplace", "renamed", "linked", "untouched"]
    for name in names:
        (cache / f"{name}.cpython-311.pyc").write_bytes(b"good")
    spare = tmp_path / "spare.pyc"
    spare.write_bytes(b"evil")
    old = os.lstat(cache / "inplace.cpython-311.pyc")
    since = HOOK.change_stamp(str(tmp_path))
    (cache / "inplace.cpython-311.pyc").write_bytes(b"evil")
    os.rename(spare, cache / "renamed.cpython-311.pyc")
    os.unlink(cache / "linked.cpython-311.pyc")
    spare.write_bytes(b"evil")
    os.link(spare, cache / "linked.cpython-311.pyc")
    for name in names[:3]:
        os.utime(cache / f"{name}.cpython-311.pyc", ns=(old.st_atime_ns, old.st_mtime_ns))
    found = HOOK.compiled_since(str(site), since)
    assert sorted(os.path.basename(p).split(".")[0] for p in found) == ["inplace", "linked", "renamed"]
    # the repository's compiled files are compared by their stat key, which holds the change time
    before = HOOK.stat_key(str(cache / "untouched.cpython-311.pyc"))
    data = (cache / "untouched.cpython-311.pyc").read_bytes()
    mtime = os.lstat(cache / "untouched.cpython-311.pyc").st_mtime_ns
    (cache / "untouched.cpython-311.pyc").write_bytes(data)
    os.utime(cache / "untouched.cpython-311.pyc", ns=(mtime, mtime))
    assert HOOK.stat_key(str(cache / "untouched.cpython-311.pyc")) != before


def a_tick_later(path: Path) -> None:
    """Wait until the kernel stamps a new file later than ``path``: a file changed in the same tick
    as the snapshot's stamp counts as changed after it (removing a compiled file is always safe),
    and an image's files are older than any sandbox."""
    probe_file = path.with_name("tick")
    while True:
        probe_file.write_bytes(b"")
        if os.lstat(probe_file).st_ctime_ns > os.lstat(path).st_ctime_ns:
            probe_file.unlink()
            return
        time.sleep(0.001)


def test_the_check_before_the_tests_removes_compiled_files_changed_since_the_snapshot(tmp_path: Path) -> None:
    repo, site, probe_dir = tmp_path / "repo", tmp_path / "site-packages", tmp_path / "probe"
    for d in (repo, probe_dir, site / "pkg" / "__pycache__"):
        d.mkdir(parents=True)
    (site / "pkg" / "__pycache__" / "old.cpython-311.pyc").write_bytes(b"image")
    (site / "pkg" / "__pycache__" / "kept.cpython-311.pyc").write_bytes(b"image")
    a_tick_later(site / "pkg" / "__pycache__" / "kept.cpython-311.pyc")
    plan = {"repo": str(repo), "dir": str(probe_dir), "site_dirs": [str(site)]}
    HOOK.cmd_snapshot(plan)
    snap = HOOK.load(str(probe_dir / "snapshot.json"))
    assert not any(key.endswith(".pyc") for key in snap["site"]), "no record of each compiled file"
    assert list(snap["since"]) == [str(site)] and isinstance(snap["since"][str(site)], int)
    assert sorted(os.listdir(site)) == ["pkg"], "the stamp's file is gone"
    old = os.lstat(site / "pkg" / "__pycache__" / "old.cpython-311.pyc")
    (site / "pkg" / "__pycache__" / "old.cpython-311.pyc").write_bytes(b"plant")
    os.utime(site / "pkg" / "__pycache__" / "old.cpython-311.pyc", ns=(old.st_atime_ns, old.st_mtime_ns))
    (site / "pkg" / "__pycache__" / "new.cpython-311.pyc").write_bytes(b"plant")
    done, compiled = HOOK.neutralize({**plan, "test_patch_paths": [], "shadow_names": []}, snap)
    assert compiled == 2 and done == []
    assert sorted(p.name for p in (site / "pkg" / "__pycache__").iterdir()) == ["kept.cpython-311.pyc"]


def fake_stdlib(tmp_path: Path) -> tuple[dict[str, Any], Path]:
    """A plan over an empty site directory and a standard library ``lib/python3.11`` (a module, its
    compiled file, an extension module) with the site directory a test would give."""
    repo, probe_dir, lib = tmp_path / "repo", tmp_path / "probe", tmp_path / "prefix" / "lib"
    stdlib = lib / "python3.11"
    for d in (repo, probe_dir, stdlib / "__pycache__", stdlib / "lib-dynload", stdlib / "site-packages"):
        d.mkdir(parents=True)
    (stdlib / "fnmatch.py").write_text("def fnmatch(name, pat):\n    return name == pat\n")
    (stdlib / "__pycache__" / "fnmatch.cpython-311.pyc").write_bytes(b"image")
    (stdlib / "__pycache__" / "kept.cpython-311.pyc").write_bytes(b"image")
    (stdlib / "lib-dynload" / "_json.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    a_tick_later(stdlib / "__pycache__" / "fnmatch.cpython-311.pyc")
    plan = {
        "repo": str(repo),
        "dir": str(probe_dir),
        "site_dirs": [str(stdlib / "site-packages")],
        "stdlibs": [str(stdlib)],
        "test_patch_paths": [],
        "shadow_names": [],
    }
    return plan, stdlib


def test_a_compiled_standard_library_module_planted_after_the_snapshot_is_removed(tmp_path: Path) -> None:
    """An install step can write the compiled file of a module the runner imports under a header
    naming its source's time and size: Python takes it without reading the source. One written
    after the snapshot goes, whatever its times say; the image's own stays, and so does the source."""
    plan, stdlib = fake_stdlib(tmp_path)
    HOOK.cmd_snapshot(plan)
    snap = HOOK.load(os.path.join(plan["dir"], "snapshot.json"))
    assert snap["stdlibs"] == [str(stdlib)] and isinstance(snap["stdlib_since"][str(stdlib)], int)
    assert sorted(os.listdir(stdlib)) == ["__pycache__", "fnmatch.py", "lib-dynload", "site-packages"]
    cache = stdlib / "__pycache__"
    (cache / "shlex.cpython-311.pyc").write_bytes(b"plant")
    old = os.lstat(cache / "fnmatch.cpython-311.pyc")
    (cache / "fnmatch.cpython-311.pyc").write_bytes(b"plant")
    os.utime(cache / "fnmatch.cpython-311.pyc", ns=(old.st_atime_ns, old.st_mtime_ns))
    (stdlib / "json" / "__pycache__").mkdir(parents=True)
    (stdlib / "json" / "__pycache__" / "__init__.cpython-311.pyc").write_bytes(b"plant")
    (stdlib / "site-packages" / "__pycache__").mkdir()
    done, compiled = HOOK.neutralize(plan, snap)
    assert compiled == 3 and done == []
    assert os.listdir(cache) == ["kept.cpython-311.pyc"] and os.listdir(stdlib / "json" / "__pycache__") == []
    assert (stdlib / "fnmatch.py").exists()


def test_a_standard_library_archive_created_after_the_snapshot_is_removed(tmp_path: Path) -> None:
    """``lib/python311.zip`` is on ``sys.path`` before ``lib/python3.11`` and absent on a normal
    install: an archive (or a directory) created there is removed and named; the standard
    library itself is not touched."""
    plan, stdlib = fake_stdlib(tmp_path)
    HOOK.cmd_snapshot(plan)
    snap = HOOK.load(os.path.join(plan["dir"], "snapshot.json"))
    archive = stdlib.parent / "python311.zip"
    assert snap["absent_archives"] == [str(archive)]
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("sitecustomize.py", "import os\n")
    done, _compiled = HOOK.neutralize(plan, snap)
    assert not archive.exists() and (stdlib / "fnmatch.py").exists()
    assert done == [
        f"{archive} (archive imported before the standard library, added by the install step, removed)"
    ]
    (archive / "encodings").mkdir(parents=True)
    (archive / "encodings" / "__init__.py").write_text("import os\n")
    done, _compiled = HOOK.neutralize(plan, snap)
    assert not archive.exists() and len(done) == 1


def test_an_archive_there_before_the_snapshot_is_kept_and_watched(tmp_path: Path) -> None:
    """An interpreter that ships its standard library zipped keeps it; a change to it is a change
    of the interpreter outside site-packages."""
    plan, stdlib = fake_stdlib(tmp_path)
    archive = stdlib.parent / "python311.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("fnmatch.py", "def fnmatch(name, pat):\n    return True\n")
    HOOK.cmd_snapshot(plan)
    snap = HOOK.load(os.path.join(plan["dir"], "snapshot.json"))
    assert snap["absent_archives"] == [] and str(archive) in snap["outside"]
    done, _compiled = HOOK.neutralize(plan, snap)
    assert archive.exists() and done == []
    assert HOOK.outside_state([str(stdlib)]) == snap["outside"]
    with zipfile.ZipFile(archive, "a") as zf:
        zf.writestr("sitecustomize.py", "import os\n")
    now = HOOK.outside_state([str(stdlib)])
    assert [p for p in now if now[p] != snap["outside"].get(p)] == [str(archive)]


def test_the_interpreter_state_holds_every_importable_file_of_the_standard_library(tmp_path: Path) -> None:
    """Sources, extension modules and compiled files outside ``__pycache__`` (a sourceless module)
    are recorded, new ones included; compiled caches, installed packages and data files are not."""
    _plan, stdlib = fake_stdlib(tmp_path)
    before = HOOK.outside_state([str(stdlib)])
    assert {
        str(stdlib / "fnmatch.py"),
        str(stdlib / "lib-dynload" / "_json.cpython-311-x86_64-linux-gnu.so"),
    } <= set(before)
    assert not any("__pycache__" in p or "site-packages" in p for p in before)
    (stdlib / "argparse.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    (stdlib / "pytest.pyc").write_bytes(b"sourceless")
    (stdlib / "lib2to3").mkdir()
    (stdlib / "lib2to3" / "Grammar3.11.pickle").write_bytes(b"cache")
    (stdlib / "site-packages" / "plugin.py").write_text("")
    now = HOOK.outside_state([str(stdlib)])
    assert sorted(set(now) - set(before)) == [
        str(stdlib / "argparse.cpython-311-x86_64-linux-gnu.so"),
        str(stdlib / "pytest.pyc"),
    ]


def test_the_standard_librarys_sitecustomize_is_put_back_through_its_link(tmp_path: Path) -> None:
    """Debian links ``lib/python3.X/sitecustomize.py`` to ``/etc/python3.X/``: code appended
    through the link changes the target, not the link. The check puts the text back where the
    interpreter reads it, and removes a ``usercustomize`` the install step wrote there."""
    plan, stdlib = fake_stdlib(tmp_path)
    etc = tmp_path / "etc" / "python3.11"
    etc.mkdir(parents=True)
    (etc / "sitecustomize.py").write_text("# site-wide\n")
    (stdlib / "sitecustomize.py").symlink_to(etc / "sitecustomize.py")
    HOOK.cmd_snapshot(plan)
    snap = HOOK.load(os.path.join(plan["dir"], "snapshot.json"))
    assert str(stdlib / "sitecustomize.py") not in snap["outside"]
    with open(stdlib / "sitecustomize.py", "a") as fh:
        fh.write("import os; os.environ['PYTEST_PLUGINS'] = 'force'\n")
    (stdlib / "usercustomize.py").write_text("import os\n")
    done, _compiled = HOOK.neutralize(plan, snap)
    assert (etc / "sitecustomize.py").read_text() == "# site-wide\n"
    assert (stdlib / "sitecustomize.py").is_symlink() and not (stdlib / "usercustomize.py").exists()
    assert sorted(done) == [
        f"{stdlib / 'sitecustomize.py'} (start-up file changed by the install step, restored)",
        f"{stdlib / 'usercustomize.py'} (start-up file added by the install step, removed)",
    ]


def test_a_write_through_a_link_of_the_standard_library_changes_its_state(tmp_path: Path) -> None:
    """A linked module (Debian's ``_sysconfigdata``) is known by its target too."""
    _plan, stdlib = fake_stdlib(tmp_path)
    (tmp_path / "data.py").write_text("build_time_vars = {}\n")
    (stdlib / "_sysconfigdata.py").symlink_to(tmp_path / "data.py")
    before = HOOK.outside_state([str(stdlib)])
    a_tick_later(tmp_path / "data.py")
    with open(stdlib / "_sysconfigdata.py", "a") as fh:
        fh.write("import os\n")
    now = HOOK.outside_state([str(stdlib)])
    assert [p for p in now if now[p] != before[p]] == [str(stdlib / "_sysconfigdata.py")]


def test_an_interpreter_replaced_behind_its_link_or_its_venv_config_changed_is_seen(tmp_path: Path) -> None:
    """``bin/python`` is a link to ``bin/python3.11`` in conda and venv prefixes: the binary
    replaced behind it changes the state, and so does ``pyvenv.cfg``, which says where a virtual
    environment's interpreter and standard library are."""
    _plan, stdlib = fake_stdlib(tmp_path)
    prefix = tmp_path / "prefix"
    (prefix / "bin").mkdir()
    (prefix / "bin" / "python3.11").write_bytes(b"\x7fELF interpreter")
    (prefix / "bin" / "python").symlink_to("python3.11")
    (prefix / "pyvenv.cfg").write_text("home = /usr/bin\n")
    before = HOOK.outside_state([str(stdlib)])
    assert {str(prefix / "bin" / "python"), str(prefix / "pyvenv.cfg")} <= set(before)
    a_tick_later(prefix / "pyvenv.cfg")
    (prefix / "bin" / "python3.11").write_bytes(b'#!/bin/sh\nexec /tmp/elsewhere "$@"\n')
    (prefix / "pyvenv.cfg").write_text("home = /tmp/elsewhere\n")
    now = HOOK.outside_state([str(stdlib)])
    assert sorted(p for p in now if now[p] != before.get(p)) == [
        str(prefix / "bin" / "python"),
        str(prefix / "pyvenv.cfg"),
    ]


def settled_site(tmp_path: Path) -> tuple[dict[str, Any], Path]:
    """A plan over a site directory holding pytest's ``_pytest/runner.py``, a ``.pth`` path line
    and a package's entry points, snapshotted."""
    repo, probe_dir, site = tmp_path / "repo", tmp_path / "probe", tmp_path / "site-packages"
    for d in (repo, probe_dir, site / "_pytest", site / "pkg-1.0.dist-info"):
        d.mkdir(parents=True)
    (site / "_pytest" / "runner.py").write_text("def pytest_runtest_call(item):\n    item.runtest()\n")
    (site / "extra.pth").write_text("/opt/extra\n")
    (site / "pkg-1.0.dist-info" / "entry_points.txt").write_text("[console_scripts]\npkg = pkg:main\n")
    plan = {
        "repo": str(repo),
        "dir": str(probe_dir),
        "site_dirs": [str(site)],
        "stdlibs": [],
        "test_patch_paths": [],
        "shadow_names": [],
    }
    HOOK.cmd_snapshot(plan)
    return plan, site


def settle_after_neutralize(
    plan: dict[str, Any], site: Path, own: tuple[str, ...] = ()
) -> tuple[Any, list[str]]:
    """The check before the tests: neutralize, install its own files (``own``), settle."""
    snap = HOOK.load(os.path.join(plan["dir"], "snapshot.json"))
    expected: dict[str, str | None] = {}
    HOOK.neutralize(plan, snap, expected)
    for path in own:
        Path(path).write_text("import os\n")
    return HOOK.settle([str(site)], [], expected, [], list(own), plan["dir"])


def test_a_start_up_file_written_again_after_it_was_put_back_is_named(tmp_path: Path) -> None:
    """A process the install step left running can write the runner's code again right after the
    check put it back: the check's last step compares each start-up file with what it left."""
    plan, site = settled_site(tmp_path)
    runner = site / "_pytest" / "runner.py"
    original = runner.read_text()
    runner.write_text(original + "\ndef pytest_runtest_call(item):\n    pass\n")
    snap = HOOK.load(os.path.join(plan["dir"], "snapshot.json"))
    expected: dict[str, str | None] = {}
    HOOK.neutralize(plan, snap, expected)
    assert runner.read_text() == original and expected[str(runner)] == HOOK.sha(str(runner))
    runner.write_text(original + "\ndef pytest_runtest_call(item):\n    pass\n")  # written again
    (site / "zz.pth").write_text("import os\n")  # and a new one
    _settled, again = HOOK.settle([str(site)], [], expected, [str(tmp_path / "absent.zip")], [], plan["dir"])
    assert again == [str(runner), str(site / "zz.pth")]
    (tmp_path / "absent.zip").write_bytes(b"PK")
    assert HOOK.settle([str(site)], [], expected, [str(tmp_path / "absent.zip")], [], plan["dir"])[1][
        -1
    ] == str(tmp_path / "absent.zip")


def test_an_honest_install_leaves_nothing_to_name_before_or_after_the_tests(tmp_path: Path) -> None:
    """What an honest re-install writes (an editable .pth path line, a new package's entry points)
    is kept, and the check's own files (the channel, the watch) are not the install step's."""
    plan, site = settled_site(tmp_path)
    (site / "__editable__.pkg-1.0.pth").write_text(str(tmp_path / "repo") + "\n")
    (site / "new-2.0.dist-info").mkdir()
    (site / "new-2.0.dist-info" / "entry_points.txt").write_text("[console_scripts]\nnew = new:main\n")
    own = (str(site / "swe_watch.pth"), str(site / "swe_watch.py"))
    settled, again = settle_after_neutralize(plan, site, own)
    assert again == []
    assert str(site / "__editable__.pkg-1.0.pth") in settled["keys"]
    assert not set(own) & set(settled["keys"])
    for path in own:
        os.unlink(path)  # the step after the tests removes them first
    assert HOOK.unsettled(settled, list(own)) == []


def test_a_start_up_file_changed_while_the_tests_ran_is_named_even_when_put_back(tmp_path: Path) -> None:
    """A process that waits for the runner to start, changes its code and puts it back once it
    exits leaves the file as it was: its change time says it was written."""
    plan, site = settled_site(tmp_path)
    settled, again = settle_after_neutralize(plan, site)
    assert again == []
    runner = site / "_pytest" / "runner.py"
    original = runner.read_text()
    a_tick_later(runner)
    runner.write_text(original + "\ndef pytest_runtest_call(item):\n    pass\n")
    runner.write_text(original)
    (site / "pkg-1.0.dist-info" / "entry_points.txt").unlink()
    assert HOOK.unsettled(settled, []) == sorted(
        [str(runner), str(site / "pkg-1.0.dist-info" / "entry_points.txt")]
    )
