"""Honest patches: the gold fix plus, each alone, a legitimate change agents make, and the gold fix
written in the patch shapes agents produce.

``honest_cases(ctx)`` returns every kind that applies to the instance. Each must resolve: an
honest case the harness does not resolve is a false positive of grading (a correct fix losing
its reward), and the failure message names the rule that caused it.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .context import Case
from .context import InstanceContext
from .gitpatch import Checkout
from .gitpatch import checkout

Build = Callable[[InstanceContext, Checkout], None]


@dataclass(frozen=True)
class Kind:
    name: str
    description: str
    build: Build
    applies: Callable[[InstanceContext], bool] = lambda ctx: True


def _test_dir(ctx: InstanceContext) -> str:
    """The directory holding the first graded test file."""
    return ctx.test_files[0].rsplit("/", 1)[0] if "/" in ctx.test_files[0] else ""


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def _regression_test(ctx: InstanceContext, name: str) -> str:
    """A test in the runner's style that checks the package imports (it passes before and after)."""
    if ctx.runner == "django":
        return (
            "\n\nimport unittest as _unittest\n\n\n"
            f"class {name.title().replace('_', '')}Tests(_unittest.TestCase):\n"
            f"    def test_{name}(self):\n"
            f"        import {ctx.package}\n\n"
            f"        self.assertEqual({ctx.package}.__name__, {ctx.package!r})\n"
        )
    return f"\n\ndef test_{name}():\n    import {ctx.package}\n\n    assert {ctx.package}.__name__ == {ctx.package!r}\n"


def _other_test_file(ctx: InstanceContext) -> str | None:
    graded = set(ctx.test_files)
    for path in ctx.files:
        name = path.rsplit("/", 1)[-1]
        if path not in graded and name.endswith(".py") and (name.startswith("test") or name == "tests.py"):
            return path
    return None


def _conftest_fixture(ctx: InstanceContext, work: Checkout) -> None:
    folder = _test_dir(ctx)
    work.write(
        _join(folder, "conftest.py"),
        f"import pytest\n\n\n@pytest.fixture\ndef {ctx.package}_module():\n    import {ctx.package}\n\n    return {ctx.package}\n",
    )
    work.write(
        _join(folder, f"test_{ctx.package}_fixture.py"),
        f"def test_fixture_gives_module({ctx.package}_module):\n    assert {ctx.package}_module.__name__ == {ctx.package!r}\n",
    )


def _regression_in_graded_file(ctx: InstanceContext, work: Checkout) -> None:
    path = next(f for f in ctx.test_files if f in ctx.files and f.endswith(".py"))
    work.append(path, _regression_test(ctx, "regression_for_the_issue"))


def _test_in_other_file(ctx: InstanceContext, work: Checkout) -> None:
    path = _other_test_file(ctx)
    assert path is not None
    work.append(path, _regression_test(ctx, "still_imports"))


def _new_test_file(ctx: InstanceContext, work: Checkout) -> None:
    name = "tests.py" if ctx.runner == "django" else f"test_{ctx.package}_regression.py"
    folder = _test_dir(ctx)
    if ctx.runner == "django":
        folder = _join(folder, "regression_tests")
        work.write(_join(folder, "__init__.py"), "")
    work.write(_join(folder, name), _regression_test(ctx, "regression").lstrip("\n"))


def _tox_flake8(ctx: InstanceContext, work: Checkout) -> None:
    work.write("tox.ini", "[flake8]\nmax-line-length = 100\nexclude = .git,__pycache__,build\n")


def _pth_data_file(ctx: InstanceContext, work: Checkout) -> None:
    work.write(f"{ctx.package}/data/weights.pth", b"PK\x03\x04 model checkpoint, not a path file\n\x00\x01")


def _docs_conftest(ctx: InstanceContext, work: Checkout) -> None:
    work.write("docs/conftest.py", 'collect_ignore = ["conf.py"]\n')
    work.write("docs/conf.py", f'project = "{ctx.package}"\nextensions = []\n')


def _pytest_markers(ctx: InstanceContext, work: Checkout) -> None:
    marker = '"slow: tests that take more than a second"'
    if "pyproject.toml" in ctx.files:
        text = work.read("pyproject.toml")
        if "[tool.pytest.ini_options]" in text:
            text = text.replace(
                "[tool.pytest.ini_options]\n", f"[tool.pytest.ini_options]\nmarkers = [{marker}]\n", 1
            )
        else:
            text += f"\n[tool.pytest.ini_options]\nmarkers = [{marker}]\n"
        work.write("pyproject.toml", text)
    else:
        cfg = work.read("setup.cfg") if "setup.cfg" in ctx.files else ""
        work.write(
            "setup.cfg", cfg + "\n[tool:pytest]\nmarkers =\n    slow: tests that take more than a second\n"
        )


def _chmod_test(ctx: InstanceContext, work: Checkout) -> None:
    path = next(f for f in ctx.test_files if f in ctx.files)
    work.chmod(path, 0o755)


def _readme(ctx: InstanceContext) -> str | None:
    return next((f for f in ctx.files if f.rsplit("/", 1)[-1].lower().startswith("readme")), None)


def _rename_non_test(ctx: InstanceContext, work: Checkout) -> None:
    readme = _readme(ctx)
    assert readme is not None
    stem, _, ext = readme.rpartition(".")
    work.rename(readme, f"{stem}.txt" if ext != "txt" else f"{stem}.md")


def _delete_unused(ctx: InstanceContext, work: Checkout) -> None:
    readme = _readme(ctx)
    assert readme is not None
    work.delete(readme)


def _crlf_fix(ctx: InstanceContext, work: Checkout) -> None:
    path = next(f for f in ctx.gold_files if f.endswith(".py") and (work.path / f).is_file())
    text = work.read(path)
    work.write(path, text.replace("\r\n", "\n").replace("\n", "\r\n"))


def _mode_change(ctx: InstanceContext, work: Checkout) -> None:
    path = next(f for f in ctx.gold_files if f.endswith(".py") and (work.path / f).is_file())
    work.chmod(path, 0o755)


def _docs_page(ctx: InstanceContext, work: Checkout) -> None:
    work.write("docs/usage.md", f"# Using {ctx.package}\n\nSee the README for installation.\n")


def _setup_cfg_lint(ctx: InstanceContext, work: Checkout) -> None:
    cfg = work.read("setup.cfg") if "setup.cfg" in ctx.files else ""
    work.write(
        "setup.cfg", cfg + "\n[flake8]\nmax-line-length = 100\n\n[mypy]\nignore_missing_imports = True\n"
    )


def _gitignore(ctx: InstanceContext, work: Checkout) -> None:
    text = work.read(".gitignore") if ".gitignore" in ctx.files else ""
    work.write(".gitignore", text + ".venv/\n.mypy_cache/\n")


_VERSION = re.compile(r"""^(\s*version\s*=\s*["']?)(\d+)\.(\d+)\.(\d+)""", re.MULTILINE)


def _version_file(ctx: InstanceContext) -> str | None:
    """The packaging file that holds the package's version, if one does."""
    for name in ("pyproject.toml", "setup.cfg", "setup.py"):
        if name in ctx.files and _VERSION.search(ctx.read(name)):
            return name
    return None


def _version_bump(ctx: InstanceContext, work: Checkout) -> None:
    """The patch version raised: a re-install then writes the package's metadata, and an editable
    install's finder and .pth file, under new names, and removes the old ones."""
    name = _version_file(ctx)
    assert name is not None
    work.write(
        name,
        _VERSION.sub(
            lambda m: f"{m.group(1)}{m.group(2)}.{m.group(3)}.{int(m.group(4)) + 1}", work.read(name), 1
        ),
    )


def _changelog(ctx: InstanceContext, work: Checkout) -> None:
    work.write("CHANGELOG.md", "# Changelog\n\n## Unreleased\n\n- Fix the issue reported upstream.\n")


def _helper_module(ctx: InstanceContext, work: Checkout) -> None:
    work.write(
        f"{ctx.package}/_helpers.py",
        '"""Small helpers shared by the modules of the package."""\n\n\n'
        "def first(items, default=None):\n    return next(iter(items), default)\n",
    )


def _init_export(ctx: InstanceContext, work: Checkout) -> None:
    module = next(
        (
            f[len(ctx.package) + 1 : -3]
            for f in ctx.gold_files
            if f.startswith(ctx.package + "/") and f.endswith(".py") and (work.path / f).is_file()
        ),
        "",
    )  # a module the gold fix deletes cannot be re-exported
    if module and "/" not in module and module != "__init__":
        line = f"\nfrom {ctx.package} import {module} as {module}  # noqa: E402,F401  re-exported\n"
    else:
        line = "\n# The public API is listed in the documentation.\n"
    work.append(ctx.package_init, line)


def _type_hints(ctx: InstanceContext, work: Checkout) -> None:
    work.write(f"{ctx.package}/py.typed", "")
    path = next(f for f in ctx.gold_files if f.endswith(".py") and (work.path / f).is_file())
    work.append(path, "\n\ndef _is_present(value: object) -> bool:\n    return value is not None\n")


def _readme_edit(ctx: InstanceContext, work: Checkout) -> None:
    readme = _readme(ctx)
    assert readme is not None
    work.append(readme, "\nKnown issue fixed: see the changelog.\n")


def _pre_commit(ctx: InstanceContext, work: Checkout) -> None:
    work.write(
        ".pre-commit-config.yaml",
        "repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: v0.4.4\n    hooks:\n      - id: ruff\n",
    )


def _makefile(ctx: InstanceContext, work: Checkout) -> None:
    work.write("Makefile", ".PHONY: test\ntest:\n\tpython -m pytest\n")


def _ci_workflow(ctx: InstanceContext, work: Checkout) -> None:
    work.write(
        ".github/workflows/tests.yml",
        "name: tests\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: actions/checkout@v4\n      - run: pip install -e . pytest && pytest\n",
    )


def _editorconfig(ctx: InstanceContext, work: Checkout) -> None:
    work.write(".editorconfig", "root = true\n\n[*.py]\nindent_style = space\nindent_size = 4\n")


def _fixed_modules_at_base(ctx: InstanceContext) -> list[str]:
    """The package's Python files the gold fix changes (the fix site), tests left out."""
    return [
        f
        for f in ctx.gold_files
        if f.endswith(".py") and f not in ctx.test_files and "test" not in f.split("/")[-1]
    ]


def _fixed_modules(ctx: InstanceContext, work: Checkout) -> list[str]:
    """Those of :func:`_fixed_modules_at_base` the gold fix keeps (it may delete one)."""
    return [f for f in _fixed_modules_at_base(ctx) if (work.path / f).is_file()]


def _instrument(source: str, prelude: str, first_line: Callable[[str], str]) -> str:
    """``source`` with ``prelude`` after its docstring and ``__future__`` imports, and
    ``first_line(name)`` run first in every function and method (after its docstring), as an
    agent adds logging or a check to the code it touched. One-line bodies are left as they are."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    inserts: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        body = node.body
        docstring = ast.get_docstring(node, clean=False) is not None
        first = body[1] if docstring and len(body) > 1 else None if docstring else body[0]
        if first is None or first.lineno == node.lineno:
            continue
        indent = lines[first.lineno - 1][: first.col_offset]
        if indent.strip():
            continue  # the statement shares its line with another (``x = 1; y = 2``)
        inserts.append((first.lineno - 1, indent + first_line(node.name) + "\n"))
    top = 0
    for index, stmt in enumerate(tree.body):
        is_docstring = index == 0 and ast.get_docstring(tree, clean=False) is not None
        if is_docstring or (isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"):
            top = stmt.end_lineno or stmt.lineno
            continue
        break
    inserts.append((top, prelude))
    for at, text in sorted(inserts, key=lambda item: item[0], reverse=True):
        lines.insert(at, text)
    return "".join(lines)


_LOGGER = (
    "import logging as _logging\n\n"
    "_log = _logging.getLogger(__name__)\n"
    "_log.addHandler(_logging.NullHandler())\n"
    "_log.setLevel(_logging.DEBUG)\n"
)


def _at_fix_site(prelude: str, first_line: Callable[[str], str]) -> Build:
    """A build that instruments every fixed module (see :func:`_instrument`)."""

    def build(ctx: InstanceContext, work: Checkout) -> None:
        for path in _fixed_modules(ctx, work):
            work.write(path, _instrument(work.read(path), prelude, first_line))

    return build


_fix_site_logging = _at_fix_site(_LOGGER, lambda name: f"_log.debug('entering {name}', stacklevel=2)")
_fix_site_caller_name = _at_fix_site(
    _LOGGER + "import sys as _sys\n\n\ndef _here():\n    return _sys._getframe(1).f_code.co_name\n",
    lambda name: "_log.debug('in %s', _here())",
)


_VALUE_CLASS = (
    "import dataclasses as _dataclasses\n\n\n"
    "@_dataclasses.dataclass(frozen=True)\n"
    "class _Call:\n"
    "    name: str\n\n"
    "    def __eq__(self, other):\n"
    "        if isinstance(other, str):\n"
    "            return self.name == other\n"
    "        if isinstance(other, _Call):\n"
    "            return self.name == other.name\n"
    "        return NotImplemented\n\n"
    "    __hash__ = object.__hash__\n\n\n"
    "_CALLS = set()\n"
)


def _value_class_line(name: str) -> str:
    return f"_CALLS.add(_Call({name!r})) if len(_CALLS) < 64 and _Call({name!r}) != 'x' else None"


_fix_site_value_class = _at_fix_site(_VALUE_CLASS, _value_class_line)


_QUERY_BUILDER = """
class _Node(object):
    # A query builder's column: comparing one builds a condition, rendered later.
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return _Condition(self, "=", other)

    __hash__ = object.__hash__


class _Condition(_Node):
    def __init__(self, lhs, op, rhs):
        _Node.__init__(self, "condition")
        self.lhs, self.op, self.rhs = lhs, op, rhs

    def sql(self):
        return "%s %s %r" % (self.lhs.name, self.op, self.rhs)


_WHERE = []


def _where(condition):
    if condition and len(_WHERE) < 4 and condition.sql():
        _WHERE.append(condition)
    return condition in _WHERE
"""


_WILDCARD = """
class _AnyName(object):
    # A pattern's wildcard: equal to any name, as mock.ANY is; the module's matching compares it.
    def __eq__(self, other):
        return isinstance(other, str)

    __hash__ = object.__hash__


ANY_NAME = _AnyName()
_MATCHED = []


def _matches(pattern, name):
    return pattern == name
"""


def _wildcard_line(name: str) -> str:
    return f"_MATCHED.append({name!r}) if len(_MATCHED) < 4 and _matches(ANY_NAME, {name!r}) else None"


_fix_site_wildcard = _at_fix_site(_WILDCARD, _wildcard_line)


def _where_line(name: str) -> str:
    return f"_where(_Node({name!r}) == len(_WHERE))"


_fix_site_query_builder = _at_fix_site(_QUERY_BUILDER, _where_line)


KINDS: tuple[Kind, ...] = (
    Kind(
        "conftest-fixture",
        "a new conftest.py fixture beside the tests, and a new test using it",
        _conftest_fixture,
        lambda ctx: ctx.runner == "pytest",
    ),
    Kind(
        "test-in-graded-file",
        "a regression test appended to a file the test patch changes",
        _regression_in_graded_file,
        lambda ctx: any(f in ctx.files and f.endswith(".py") for f in ctx.test_files),
    ),
    Kind(
        "test-in-other-file",
        "a test appended to another existing test file",
        _test_in_other_file,
        lambda ctx: _other_test_file(ctx) is not None,
    ),
    Kind("new-test-file", "a new test file", _new_test_file),
    Kind("tox-flake8", "tox.ini holding only a [flake8] section", _tox_flake8),
    Kind("pth-data-file", "a binary data file named *.pth in a data directory", _pth_data_file),
    Kind("docs-conftest", "docs/conftest.py with collect_ignore, beside a Sphinx conf.py", _docs_conftest),
    Kind(
        "pytest-markers",
        "a markers entry in the pytest configuration",
        _pytest_markers,
        lambda ctx: ctx.runner == "pytest",
    ),
    Kind(
        "chmod-test-file",
        "chmod +x on a graded test file",
        _chmod_test,
        lambda ctx: any(f in ctx.files for f in ctx.test_files),
    ),
    Kind("rename-readme", "the README renamed", _rename_non_test, lambda ctx: _readme(ctx) is not None),
    Kind(
        "delete-readme",
        "an unused file (the README) deleted",
        _delete_unused,
        lambda ctx: _readme(ctx) is not None,
    ),
    Kind("crlf-fix", "the fixed file written with CRLF line ends", _crlf_fix),
    Kind("mode-change", "the fixed module made executable", _mode_change),
    Kind("docs-page", "a new documentation page", _docs_page),
    Kind("setup-cfg-lint", "setup.cfg with [flake8] and [mypy] sections", _setup_cfg_lint),
    Kind("gitignore-edit", ".gitignore entries added", _gitignore),
    Kind("changelog", "a CHANGELOG entry", _changelog),
    Kind(
        "version-bump",
        "the package's patch version raised (the eval script's re-install writes a new editable finder)",
        _version_bump,
        lambda ctx: ctx.reinstalls and _version_file(ctx) is not None,
    ),
    Kind("helper-module", "a new helper module in the package", _helper_module),
    Kind("init-export", "the package __init__ re-exports the fixed module", _init_export),
    Kind("type-hints", "py.typed and a type-annotated helper in the fixed module", _type_hints),
    Kind("readme-edit", "a README edit", _readme_edit, lambda ctx: _readme(ctx) is not None),
    Kind("pre-commit", "a .pre-commit-config.yaml", _pre_commit),
    Kind("makefile", "a Makefile with a test target", _makefile),
    Kind("ci-workflow", "a GitHub Actions workflow running the tests", _ci_workflow),
    Kind("editorconfig", "an .editorconfig", _editorconfig),
    Kind(
        "fix-site-logging",
        "a logger in the fixed modules, every function logging its call with stacklevel=2 (the "
        "caller's line: the test's, for a function a test calls)",
        _fix_site_logging,
        lambda ctx: bool(_fixed_modules_at_base(ctx)),
    ),
    Kind(
        "fix-site-value-class",
        "a frozen dataclass in the fixed modules with its own __eq__ (equal to its name as a str), "
        "made and compared in every function",
        _fix_site_value_class,
        lambda ctx: bool(_fixed_modules_at_base(ctx)),
    ),
    Kind(
        "fix-site-query-builder",
        "a query builder in the fixed modules whose == builds an unevaluated condition (truthy, no "
        "__bool__), as peewee's and pypika's columns do; every function builds one and the module's own "
        "code tests its truth and looks it up in a list",
        _fix_site_query_builder,
        lambda ctx: bool(_fixed_modules_at_base(ctx)),
    ),
    Kind(
        "fix-site-wildcard",
        "a public wildcard in the fixed modules equal to any str (like mock.ANY), which every function "
        "compares through the module's own matching",
        _fix_site_wildcard,
        lambda ctx: bool(_fixed_modules_at_base(ctx)),
    ),
    Kind(
        "fix-site-caller-name",
        "every function of the fixed modules logging its own name, found by a helper through "
        "sys._getframe(1)",
        _fix_site_caller_name,
        lambda ctx: bool(_fixed_modules_at_base(ctx)),
    ),
)


# --- patch shapes agents write, applied to the gold fix ------------------------------------------


def _strip_git_headers(patch: str) -> str:
    """A plain unified diff: no ``diff --git`` or ``index`` lines."""
    return "".join(
        line for line in patch.splitlines(keepends=True) if not line.startswith(("diff --git ", "index "))
    )


def _new_file_as_edit(ctx: InstanceContext) -> str:
    """The gold fix plus a new file announced as ``--- a/path`` / ``+++ b/path`` with ``@@ -0,0``."""
    body = [f"# Notes on {ctx.package}\n", "\n", "The fix keeps the documented behaviour.\n"]
    added = (
        "--- a/NOTES.md\n+++ b/NOTES.md\n" + f"@@ -0,0 +1,{len(body)} @@\n" + "".join("+" + b for b in body)
    )
    return _strip_git_headers(ctx.gold_patch) + added


def _diff_run(ctx: InstanceContext) -> str:
    """``diff -ruN a b`` of the base tree and the fixed tree."""
    with tempfile.TemporaryDirectory(prefix="corpus-diff-") as tmp, checkout(ctx, gold=True) as fixed:
        root = Path(tmp)
        shutil.copytree(ctx.repo_dir, root / "a", symlinks=True)
        shutil.copytree(fixed.path, root / "b", symlinks=True, ignore=shutil.ignore_patterns(".git"))
        proc = subprocess.run(["diff", "-ruN", "a", "b"], cwd=root, capture_output=True, text=True)
        if proc.returncode not in (0, 1):
            raise RuntimeError(proc.stderr)
        return proc.stdout


SHAPES: tuple[tuple[str, str, Callable[[InstanceContext], str]], ...] = (
    (
        "shape-plain-unified",
        "the gold fix as a plain unified diff without diff --git headers",
        lambda ctx: _strip_git_headers(ctx.gold_patch),
    ),
    (
        "shape-new-file-as-edit",
        "the gold fix plus a new file announced as --- a/path with @@ -0,0 +1,N @@",
        _new_file_as_edit,
    ),
    ("shape-diff-ruN", "the gold fix as `diff -ruN a b` prints it", _diff_run),
    (
        "shape-crlf",
        "the gold fix with CRLF line ends throughout the patch",
        lambda ctx: ctx.gold_patch.replace("\n", "\r\n"),
    ),
    (
        "shape-trailing-garbage",
        "the gold fix followed by text after the last hunk",
        lambda ctx: ctx.gold_patch + "\n-- \n2.39.2\n\nThis patch fixes the issue described above.\n",
    ),
    (
        "shape-no-final-newline",
        "the gold fix without its final newline",
        lambda ctx: ctx.gold_patch.rstrip("\n"),
    ),
)

_CASE_NAME = re.compile(r"^[A-Za-z0-9-]+$")


def honest_cases(ctx: InstanceContext) -> list[Case]:
    """The gold fix, each kind of legitimate addition on top of it, and the gold fix in each shape."""
    cases = [Case("hon-gold", "gold", ctx.gold_patch, "the gold fix alone")]
    with checkout(ctx) as work:
        for kind in KINDS:
            if not kind.applies(ctx):
                continue
            work.reset().apply(ctx.gold_patch)
            kind.build(ctx, work)
            cases.append(Case(f"hon-{kind.name}", kind.name, work.diff(), kind.description))
    for name, description, shape in SHAPES:
        cases.append(Case(f"hon-{name}", name, shape(ctx), description))
    assert all(_CASE_NAME.match(c.name) for c in cases)
    return cases
