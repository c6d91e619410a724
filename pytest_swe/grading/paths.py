"""Which changes a patch made to the tree are neutralized before the tests run, and why.

Everything here is judged on the tree after the patch is applied (what git and the file
system report), never on the patch's headers. A neutralized path is restored to the base
commit (or removed when it is new): what the official harness discards anyway (the test
patch's files), or what only steers the test runner and never belongs to a fix (test files,
``conftest.py``, pytest and tox configuration, interpreter start-up files, planted entry
points, compiled files and native libraries, a module that shadows the runner). Restoring them
cannot change the verdict of an honest fix; it is recorded, never a reason for ``unresolved`` by
itself.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass

from .configfiles import WHOLE_FILES
from .diff import normalize
from .diff import patch_paths

CONFTEST = "conftest.py"
STARTUP_FILES = frozenset({"sitecustomize.py", "usercustomize.py"})
NATIVE_LIBRARY = re.compile(r"^.+\.(?:so(?:\.\d+)*|pyd|dylib|dll)$")
"""Native libraries: an extension module the interpreter imports, or a library ``ctypes`` loads.
Their code is machine code the patch's text does not show; a fix ships its source."""
TEST_DIRS_ANYWHERE = frozenset({"tests", "__tests__"})
TEST_DIRS_TOP_LEVEL = frozenset({"test", "testing", "spec"})
"""Only at the repository root: ``django/test`` and ``sympy/testing`` are library code."""
TEST_FILE = re.compile(
    r"^(?:test_.+\.py|.+_tests?\.py|tests\.py"
    r"|.+_test\.go"
    r"|.+\.(?:test|spec)\.[cm]?[jt]sx?"
    r"|.+_(?:spec|test)\.rb|test_.+\.rb"
    r"|.+Tests?\.(?:java|kt|scala|php|cs)"
    r"|(?:test_.+|.+_test)\.(?:c|cc|cpp))$"
)
IMPORT_ROOTS = ("", "src", "lib")
"""Directories of the repository that are on ``sys.path`` when the tests run (the work tree
under ``python -m pytest``, and the usual source roots)."""
RUNNER_MODULES = frozenset(
    {
        "pytest", "_pytest", "py", "pluggy", "iniconfig", "xdist", "pytest_cov", "hypothesis",
        "unittest", "nose", "nose2", "doctest", "coverage", "tox", "setuptools", "pkg_resources",
        "pip", "site", "importlib_metadata", "runtests", "conftest",
    }
)  # fmt: skip
"""Modules a test run imports whose shadowing by a new top-level module of the patch could
replace the runner; the standard library's names are added to these."""
SHADOWABLE = RUNNER_MODULES | frozenset(getattr(sys, "stdlib_module_names", ()))


def is_test_path(path: str) -> bool:
    """True for test files and files in test directories (by the usual layouts of many languages)."""
    parts = normalize(path).split("/")
    dirs, name = parts[:-1], parts[-1]
    if any(d in TEST_DIRS_ANYWHERE for d in dirs):
        return True
    if dirs and dirs[0] in TEST_DIRS_TOP_LEVEL:
        return True
    if any(d == "src" and dirs[k + 1] in ("test", "tests") for k, d in enumerate(dirs[:-1])):
        return True
    return bool(TEST_FILE.match(name))


def in_git_dir(path: str) -> bool:
    return ".git" in normalize(path).split("/")


def top_level_module(path: str) -> tuple[str, str] | None:
    """(import root, module name) when ``path`` is a top-level module or package at an import root."""
    parts = normalize(path).split("/")
    for root in sorted(IMPORT_ROOTS, key=lambda r: not r):  # source roots before the work tree
        depth = 1 if root else 0
        if root and (len(parts) < 2 or parts[0] != root):
            continue
        head = parts[depth] if len(parts) > depth else ""
        if not head:
            continue
        if len(parts) == depth + 1:
            for suffix in (".py", ".pyc", ".pyw"):
                if head.endswith(suffix):
                    return root, head[: -len(suffix)]
            if head.endswith((".so", ".pyd")):
                return root, head.split(".", 1)[0]
            if root:
                continue
            return None
        return root, head
    return None


@dataclass(frozen=True)
class Protection:
    """What one task protects: the test patch's files, the required tests' files, hidden paths."""

    paths: frozenset[str] = frozenset()
    extra_patterns: tuple[str, ...] = ()
    """Glob patterns (``eval.policy_options.protected_paths``) treated like test files."""
    allowed_patterns: tuple[str, ...] = ()
    """Glob patterns (``eval.policy_options.allowed_paths``) no path rule applies to."""

    @classmethod
    def build(
        cls,
        *,
        test_patch: str | None = None,
        required_tests: Iterable[str] = (),
        hidden_paths: Iterable[str] = (),
        workdir: str = "/testbed",
        protected_patterns: Iterable[str] = (),
        allowed_patterns: Iterable[str] = (),
    ) -> Protection:
        paths = {normalize(p) for p in patch_paths(test_patch or "") if p and not p.startswith("/")}
        for test in required_tests:
            head = test.split("::", 1)[0] if isinstance(test, str) else ""
            if "::" in test and ("/" in head or head.endswith(".py")):
                paths.add(normalize(head))
        root = workdir.rstrip("/") + "/"
        for hidden in hidden_paths:
            if hidden.startswith(root):
                paths.add(normalize(hidden[len(root) :]))
        paths = {p for p in paths if p and ".." not in p.split("/")}
        return cls(frozenset(paths), tuple(protected_patterns), tuple(allowed_patterns))

    def allowed(self, path: str) -> bool:
        return any(fnmatch.fnmatchcase(path, pattern) for pattern in self.allowed_patterns)

    def covers(self, path: str) -> str | None:
        """The protected path that ``path`` is or contains (a directory above it), if any."""
        if path in self.paths:
            return path
        prefix = path.rstrip("/") + "/"
        return next((p for p in sorted(self.paths) if p.startswith(prefix)), None)

    def extra(self, path: str) -> bool:
        return any(fnmatch.fnmatchcase(path, pattern) for pattern in self.extra_patterns)


@dataclass(frozen=True)
class PathChange:
    """A path the patch changed: ``added``, ``modified``, ``deleted`` or ``typechange``."""

    path: str
    kind: str
    symlink: bool = False


def _root_entry(path: str, root: str) -> str:
    """The entry at import root ``root`` that ``path`` is or is under, as ``base_names`` has it."""
    parts = path.split("/")
    return posixpath.join(root, parts[1]) if root else parts[0]


def root_entry(path: str) -> str | None:
    """The entry at an import root that ``path`` is or is under (as ``base_names`` lists it), or
    None for a path at no import root."""
    top = top_level_module(path)
    return _root_entry(normalize(path), top[0]) if top is not None else None


def installed_module(name: str) -> str | None:
    """The module a site directory's entry ``name`` can be imported as (None for metadata, ``.pth``
    files and names no import statement can reach)."""
    if name == "__pycache__" or name.endswith((".dist-info", ".egg-info", ".pth", ".egg-link", ".data")):
        return None
    for suffix in (".py", ".pyc"):
        if name.endswith(suffix):
            return name[: -len(suffix)] or None
    if name.endswith((".so", ".pyd")):
        return name.split(".", 1)[0] or None
    return name if name.isidentifier() else None


def importable_module(path: str) -> tuple[str, str] | None:
    """(import root, module name) when ``path``, added, makes a top-level module that an import
    finds before a same-named one installed later on ``sys.path``: a module file, or a package's
    ``__init__.py`` (a directory without one is a namespace portion, which never wins over an
    installed module; other files under it make no module)."""
    top = top_level_module(path)
    if top is None:
        return None
    parts = normalize(path).split("/")
    depth = 1 if top[0] else 0
    return top if len(parts) == depth + 1 or parts[depth + 1 :] == ["__init__.py"] else None


def new_importable_modules(changes: Iterable[PathChange], base_names: frozenset[str]) -> frozenset[str]:
    """The top-level modules the patch adds (:func:`importable_module`) at an import-root entry the
    tree did not have before it."""
    found = set()
    for change in changes:
        if change.kind != "added":
            continue
        path = normalize(change.path)
        top = importable_module(path)
        if top is not None and _root_entry(path, top[0]) not in base_names:
            found.add(top[1])
    return frozenset(found)


def why_neutralized(
    change: PathChange,
    protection: Protection,
    base_names: frozenset[str],
    shadowing: frozenset[str] = frozenset(),
) -> str | None:
    """Why the strict policy restores this path before the tests; None when it is part of the fix.

    ``base_names`` are the names at the import roots before the patch (``""``-rooted entries as
    ``name``, others as ``root/name``), so only a *new* top-level module can shadow one.
    ``shadowing``: more module names a new top-level module must not take (those installed in
    the image's site directories, which ``.pth`` lines and the runner import at start-up).
    Configuration files that hold other tools' settings are decided by
    :func:`pytest_swe.grading.configfiles.steering_changed`, not here.
    """
    path = normalize(change.path)
    if not path or protection.allowed(path):
        return None
    name = posixpath.basename(path)
    parts = path.split("/")
    covered = protection.covers(path)
    if covered is not None:
        return "a file of the test patch" if covered == path else f"holds {covered}, a file of the test patch"
    if name == CONFTEST:
        return "conftest.py, loaded by pytest"
    if name in WHOLE_FILES:
        return "test-runner configuration"
    if name in STARTUP_FILES:
        return "run at interpreter start-up"
    if any(p.endswith((".dist-info", ".egg-info")) for p in parts[:-1]) or name.endswith(
        (".dist-info", ".egg-info")
    ):
        return "package metadata (entry points are loaded by pytest)"
    if "__pycache__" in parts or name.endswith((".pyc", ".pyo")):
        return "a compiled file (it can shadow its source)"
    if NATIVE_LIBRARY.match(name):
        return "a native library (machine code, not source)"
    if is_test_path(path) or protection.extra(path):
        return "a test file (the graded tests are the test patch's)"
    if change.kind == "added":
        top = top_level_module(path)
        if top is not None:
            root, module = top
            if (module in SHADOWABLE or module in shadowing) and _root_entry(path, root) not in base_names:
                return f"a new top-level module {module!r} that shadows the installed one"
    return None
