"""Honest patches: the gold fix plus, each alone, a legitimate change agents make, and the gold fix
written in the patch shapes agents produce.

``honest_cases(ctx)`` returns every kind that applies to the instance. Each must resolve: an
honest case the harness does not resolve is a false positive of grading (a correct fix losing
its reward), and the failure message names the rule that caused it.
"""

from __future__ import annotations

import ast
import re
import shlex
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


def _only_pytest(ctx: InstanceContext) -> bool:
    return ctx.runner == "pytest"


def _has_fix_site(ctx: InstanceContext) -> bool:
    return bool(_fixed_modules_at_base(ctx))


def _instrument(source: str, prelude: str, first_line: Callable[[str], str] | None = None) -> str:
    """``source`` with ``prelude`` after its docstring and ``__future__`` imports, and
    ``first_line(name)`` run first in every function and method (after its docstring), as an
    agent adds logging or a check to the code it touched (with no ``first_line``, the prelude alone:
    what a module does at import). One-line bodies are left as they are."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    inserts: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if first_line is None or not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
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


def _at_fix_site(prelude: str, first_line: Callable[[str], str] | None = None) -> Build:
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


# --- what real libraries do at import and in their functions ---------------------------------------

_ALIAS = "import sys as _sys\n\n_sys.modules.setdefault(__name__ + '_compat', _sys.modules[__name__])\n"
_fix_site_module_alias = _at_fix_site(_ALIAS)

_ATEXIT_TMP = (
    "import atexit as _atexit\nimport shutil as _shutil\nimport tempfile as _tempfile\n\n"
    "_SCRATCH = _tempfile.mkdtemp(prefix='scratch-')\n"
    "_atexit.register(_shutil.rmtree, _SCRATCH, True)\n"
)
_fix_site_atexit = _at_fix_site(_ATEXIT_TMP)

_THREAD = (
    "import threading as _threading\n\n"
    "_STOP = _threading.Event()\n\n\n"
    "def _sweeper():\n"
    "    while not _STOP.wait(0.05):\n"
    "        pass\n\n\n"
    "_threading.Thread(target=_sweeper, name='cache-sweeper', daemon=True).start()\n"
)
_fix_site_thread = _at_fix_site(_THREAD)

_MODULE_GETATTR = (
    "import warnings as _warnings\n\n\n"
    "def __getattr__(name):\n"
    "    if name == 'OLD_SPELLING':\n"
    "        _warnings.warn('OLD_SPELLING is deprecated', DeprecationWarning, stacklevel=2)\n"
    "        return 'old'\n"
    "    raise AttributeError('module %r has no attribute %r' % (__name__, name))\n\n\n"
    "def __dir__():\n"
    "    return sorted(list(globals()) + ['OLD_SPELLING'])\n"
)
_fix_site_module_getattr = _at_fix_site(_MODULE_GETATTR)

_RECURSION = "import sys as _sys\n\n_sys.setrecursionlimit(max(_sys.getrecursionlimit(), 4000))\n"
_fix_site_recursion_limit = _at_fix_site(_RECURSION)

_LRU = (
    "import functools as _functools\n\n\n"
    "@_functools.lru_cache(maxsize=None)\n"
    "def _normalized(name):\n"
    "    return name.strip().lower()\n"
)
_fix_site_lru_cache = _at_fix_site(_LRU, lambda name: f"_normalized({name!r})")

_WARNS = (
    "import warnings as _warnings\n\n"
    "_warnings.filterwarnings('default', category=DeprecationWarning, module=__name__)\n"
)
_fix_site_warns = _at_fix_site(
    _WARNS, lambda name: f"_warnings.warn('{name} will change', PendingDeprecationWarning, stacklevel=2)"
)

_GENERATED_TABLE = (
    "import os as _os\n\n"
    "_TABLE = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), '_generated_table.py')\n"
    "try:\n"
    "    if not _os.path.exists(_TABLE):\n"
    "        with open(_TABLE, 'w') as _fh:\n"
    "            _fh.write('# generated at first import\\nTABLE = {}\\n')\n"
    "except OSError:\n"
    "    pass\n"
)
_fix_site_generated_table = _at_fix_site(_GENERATED_TABLE)

_ENV_DEFAULT = "import os as _os\n\n_os.environ.setdefault('PKG_FEATURE_FLAGS', 'default')\n"
_fix_site_env_default = _at_fix_site(_ENV_DEFAULT)

_FAULTHANDLER = (
    "import faulthandler as _faulthandler\nimport signal as _signal\nimport sys as _sys\n\n"
    "if hasattr(_signal, 'SIGUSR1') and _sys.stderr is not None:\n"
    "    try:\n"
    "        _faulthandler.register(_signal.SIGUSR1, all_threads=True)\n"
    "    except (AttributeError, ValueError, RuntimeError, OSError):\n"
    "        pass\n"
)
_fix_site_faulthandler = _at_fix_site(_FAULTHANDLER)

_SUBPROCESS = (
    "import subprocess as _subprocess\nimport sys as _sys\n\n"
    "_VERSION = _subprocess.run(\n"
    "    [_sys.executable, '-c', 'import sys; print(sys.version_info[0])'],\n"
    "    stdout=_subprocess.PIPE, stderr=_subprocess.PIPE, universal_newlines=True,\n"
    ").stdout.strip()\n"
)
_fix_site_subprocess = _at_fix_site(_SUBPROCESS)

_VENDOR = (
    "import os as _os\nimport sys as _sys\n\n"
    "_VENDOR_DIR = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), '_vendor')\n"
    "if _os.path.isdir(_VENDOR_DIR) and _VENDOR_DIR not in _sys.path:\n"
    "    _sys.path.append(_VENDOR_DIR)\n"
)


def _fix_site_vendor(ctx: InstanceContext, work: Checkout) -> None:
    _at_fix_site(_VENDOR)(ctx, work)
    for path in _fixed_modules(ctx, work):
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        work.write(_join(folder, "_vendor/README.txt"), "Third-party code kept here.\n")


_CTYPES = (
    "import ctypes as _ctypes\nimport ctypes.util as _ctypes_util\n\n"
    "try:\n"
    "    _LIBC = _ctypes.CDLL(_ctypes_util.find_library('c') or None)\n"
    "    _PID = _LIBC.getpid()\n"
    "except (OSError, AttributeError):\n"
    "    _PID = None\n"
)
_fix_site_ctypes = _at_fix_site(_CTYPES)

_DEBUG_PRINT = "import sys as _sys\n"
_fix_site_debug_print = _at_fix_site(
    _DEBUG_PRINT, lambda name: f"print('DEBUG {name} called', file=_sys.stderr)"
)

_STR_ENUM = (
    "import enum as _enum\n\n\n"
    "class _Mode(str, _enum.Enum):\n"
    "    FAST = 'fast'\n"
    "    SAFE = 'safe'\n\n"
    "    def __str__(self):\n"
    "        return self.value\n"
)
_fix_site_str_enum = _at_fix_site(_STR_ENUM, lambda name: "_Mode('fast') == 'fast' and str(_Mode.SAFE)")


def _add_to_conftest(work: Checkout, path: str, text: str) -> None:
    """``text`` at the end of the conftest at ``path``, or a new one: an agent keeps what is there."""
    old = work.read(path) if (work.path / path).is_file() else ""
    work.write(path, old + ("\n\n" if old.strip() else "") + text)


def _runslow_conftest(ctx: InstanceContext, work: Checkout) -> None:
    _add_to_conftest(
        work,
        "conftest.py",
        "import pytest\n\n\n"
        "def pytest_addoption(parser):\n"
        "    parser.addoption('--runslow', action='store_true', default=False, help='run slow tests')\n\n\n"
        "def pytest_configure(config):\n"
        "    config.addinivalue_line('markers', 'slow: mark test as slow to run')\n\n\n"
        "def pytest_collection_modifyitems(config, items):\n"
        "    if config.getoption('--runslow'):\n"
        "        return\n"
        "    skip_slow = pytest.mark.skip(reason='need --runslow option to run')\n"
        "    for item in items:\n"
        "        if 'slow' in item.keywords:\n"
        "            item.add_marker(skip_slow)\n",
    )


def _autouse_reset(ctx: InstanceContext, work: Checkout) -> None:
    folder = _test_dir(ctx)
    _add_to_conftest(
        work,
        _join(folder, "conftest.py"),
        "import gc\n\nimport pytest\n\n\n"
        "@pytest.fixture(autouse=True)\n"
        "def _collect_between_tests():\n"
        f"    import {ctx.package}  # noqa: F401\n\n"
        "    yield\n"
        "    gc.collect()\n",
    )


def _tests_package(ctx: InstanceContext, work: Checkout) -> None:
    folder = _test_dir(ctx)
    work.write(_join(folder, "__init__.py"), "")


_PYTEST_SECTIONS = (
    ("pyproject.toml", "[tool.pytest.ini_options]\n", '"'),
    ("setup.cfg", "[tool:pytest]\n", ""),
    ("pytest.ini", "[pytest]\n", ""),
    ("tox.ini", "[pytest]\n", ""),
)


def _pytest_addopts(ctx: InstanceContext, work: Checkout) -> None:
    """``-ra --tb=short`` in the pytest section the repository has (before the options an
    ``addopts`` there already holds), or in a new ``pytest.ini``."""
    opts = "-ra --tb=short"
    for name, section, quote in _PYTEST_SECTIONS:
        if name not in ctx.files or section not in work.read(name):
            continue
        head, _, rest = work.read(name).partition(section)
        body, next_section, tail = rest.partition("\n[")
        existing = re.search(r"^addopts\s*=\s*" + quote, body, re.M)
        if existing:
            body = body[: existing.end()] + opts + " " + body[existing.end() :]
        else:
            body = f"addopts = {quote}{opts}{quote}\n" + body
        work.write(name, head + section + body + next_section + tail)
        return
    work.write("pytest.ini", f"[pytest]\naddopts = {opts}\n")


def _gitattributes(ctx: InstanceContext, work: Checkout) -> None:
    work.write(
        ".gitattributes", "* text=auto\n*.py text eol=lf\n*.png binary\ndocs/** linguist-documentation\n"
    )


def _makereport_wrapper(ctx: InstanceContext, work: Checkout) -> None:
    folder = _test_dir(ctx)
    _add_to_conftest(
        work,
        _join(folder, "conftest.py"),
        "import pytest\n\n\n"
        "@pytest.hookimpl(hookwrapper=True, tryfirst=True)\n"
        "def pytest_runtest_makereport(item, call):\n"
        "    outcome = yield\n"
        "    rep = outcome.get_result()\n"
        "    setattr(item, 'rep_' + rep.when, rep)\n\n\n"
        "@pytest.fixture(autouse=True)\n"
        "def _note_failures(request):\n"
        "    yield\n"
        "    rep = getattr(request.node, 'rep_call', None)\n"
        "    if rep is not None and rep.failed:\n"
        "        print('failed: ' + request.node.nodeid)\n",
    )


def _report_header(ctx: InstanceContext, work: Checkout) -> None:
    _add_to_conftest(
        work,
        "conftest.py",
        "import sys\n\n\n"
        "def pytest_report_header(config):\n"
        f"    return ['project: {ctx.package}', 'python: ' + sys.version.split()[0]]\n",
    )


def _root_pytester(ctx: InstanceContext, work: Checkout) -> None:
    _add_to_conftest(work, "conftest.py", 'pytest_plugins = ["pytester"]\n')


def _entry_point_file(ctx: InstanceContext) -> str | None:
    """The packaging file a console script is declared in: ``pyproject.toml`` with a ``[project]``
    table, ``setup.cfg`` with ``[metadata]``, or a ``setup.py`` that calls ``setup(``."""
    for name, mark in (("pyproject.toml", "[project]"), ("setup.cfg", "[metadata]"), ("setup.py", "setup(")):
        if name in ctx.files and mark in ctx.read(name):
            return name
    return None


def _console_script(ctx: InstanceContext, work: Checkout) -> None:
    target = f"{ctx.package}.__main__:main"
    script = f"{ctx.package}-cli"
    work.write(
        f"{ctx.package}/__main__.py",
        "import sys\n\n\ndef main():\n    return 0\n\n\nif __name__ == '__main__':\n    sys.exit(main())\n",
    )
    name = _entry_point_file(ctx)
    if name == "pyproject.toml":
        work.append(name, f'\n[project.scripts]\n{script} = "{target}"\n')
    elif name == "setup.cfg":
        work.append(name, f"\n[options.entry_points]\nconsole_scripts =\n    {script} = {target}\n")
    else:
        entry = f"entry_points={{'console_scripts': ['{script} = {target}']}}, "
        work.write("setup.py", work.read("setup.py").replace("setup(", "setup(" + entry, 1))


def _has_package_config(ctx: InstanceContext) -> bool:
    return ctx.reinstalls and f"{ctx.package}/__init__.py" in ctx.files and _entry_point_file(ctx) is not None


_GC_CALLBACK = (
    "import gc as _gc\n\n_COLLECTIONS = [0]\n\n\n"
    "def _count_collections(phase, info):\n"
    "    if phase == 'stop':\n"
    "        _COLLECTIONS[0] += 1\n\n\n"
    "_gc.callbacks.append(_count_collections)\n"
)
_fix_site_gc_callback = _at_fix_site(_GC_CALLBACK)

_META_FINDER = (
    "import importlib as _importlib\nimport importlib.abc as _importlib_abc\nimport importlib.util as _importlib_util\n"
    "import sys as _sys\n\n\n"
    "class _LegacyAlias(_importlib_abc.MetaPathFinder):\n"
    "    # The old top-level name still imports, as the package it became.\n"
    "    def find_spec(self, fullname, path=None, target=None):\n"
    "        if fullname != __name__.split('.')[0] + '_legacy':\n"
    "            return None\n"
    "        return _importlib_util.find_spec(__name__.split('.')[0])\n\n\n"
    "if not any(type(f).__name__ == '_LegacyAlias' for f in _sys.meta_path):\n"
    "    _sys.meta_path.append(_LegacyAlias())\n"
)
_fix_site_meta_finder = _at_fix_site(_META_FINDER)

_BASIC_CONFIG = "import logging as _logging\n\n_logging.basicConfig(level=_logging.DEBUG)\n_log = _logging.getLogger(__name__)\n"
_fix_site_basic_config = _at_fix_site(_BASIC_CONFIG, lambda name: f"_log.debug('calling {name}')")

_fix_site_stdout_print = _at_fix_site("", lambda name: f"print('DEBUG: {name} called')")


def _non_ascii(ctx: InstanceContext, work: Checkout) -> None:
    work.write("docs/café-notes.md", "# Notes\n\nThe naïve parser handled “quoted” text badly.\n")
    for path in _fixed_modules(ctx, work):
        work.write(
            path, "# -*- coding: utf-8 -*-\n# Résumé of the fix: naïve handling replaced.\n" + work.read(path)
        )


def _symlink(ctx: InstanceContext, work: Checkout) -> None:
    readme = _readme(ctx)
    assert readme is not None
    work.symlink("docs/README.md", f"../{readme}")


_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000005000157a4d4a20000000049454e44ae426082"
)


def _binary_file(ctx: InstanceContext, work: Checkout) -> None:
    work.write("docs/diagram.png", _PNG)


def _conftest_sys_path(ctx: InstanceContext, work: Checkout) -> None:
    _add_to_conftest(
        work,
        "conftest.py",
        "import os\nimport sys\n\nsys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\n",
    )


def _generate_tests(ctx: InstanceContext, work: Checkout) -> None:
    _add_to_conftest(
        work,
        "conftest.py",
        "def pytest_generate_tests(metafunc):\n"
        "    if 'backend' in metafunc.fixturenames:\n"
        "        metafunc.parametrize('backend', ['memory', 'disk'])\n",
    )
    work.write(
        _join(_test_dir(ctx), f"test_{ctx.package}_backends.py"),
        "def test_backend_name(backend):\n    assert backend in ('memory', 'disk')\n",
    )


def _items_sorted(ctx: InstanceContext, work: Checkout) -> None:
    _add_to_conftest(
        work,
        "conftest.py",
        "def pytest_collection_modifyitems(session, config, items):\n"
        "    # Run the tests in a stable order whatever the files' order.\n"
        "    items.sort(key=lambda item: item.nodeid, reverse=True)\n",
    )


# --- what an agent's session leaves behind, and more library idioms at the fix site -------------


def _reproduce_script(ctx: InstanceContext, work: Checkout) -> None:
    """The reproduction script agents write first, left at the repository's top with no main guard."""
    work.write(
        "reproduce_issue.py",
        f'"""Reproduce the reported issue: python reproduce_issue.py"""\n'
        f"import {ctx.package}\n\n"
        f"print('{ctx.package} imported from', {ctx.package}.__file__)\n"
        "print('Checking the reported behaviour...')\n"
        "print('Done: no error raised')\n",
    )


def _backup_files(ctx: InstanceContext, work: Checkout) -> None:
    """The fixed modules as they were, saved by an editor or ``patch`` as ``*.orig`` and ``*.bak``."""
    for path in _fixed_modules(ctx, work):
        if path not in ctx.files:
            continue  # new with the fix: nothing to save
        base = ctx.read(path)
        work.write(path + ".orig", base)
        work.write(path + ".bak", base)


def _stale_pyc(ctx: InstanceContext, work: Checkout) -> None:
    """A ``__pycache__`` file of each fixed module, as ``git add -A`` takes it where nothing ignores
    it: a timestamp pyc whose recorded source time (0) matches no checkout, so it is recompiled."""
    import importlib.util
    import marshal
    import sys

    for path in _fixed_modules(ctx, work):
        source = work.read(path)
        folder, _, name = path.rpartition("/")
        header = importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little") * 2
        header += (len(source.encode("utf-8")) & 0xFFFFFFFF).to_bytes(4, "little")
        code = compile(source, path, "exec", dont_inherit=True)
        pyc = _join(_join(folder, "__pycache__"), f"{name[:-3]}.{sys.implementation.cache_tag}.pyc")
        work.write(pyc, header + marshal.dumps(code))


def _patch_file(ctx: InstanceContext, work: Checkout) -> None:
    """The fix saved as a patch file at the top (its ``diff --git`` and ``+++ b/`` lines then sit
    inside a hunk of the patch that adds it)."""
    work.write("fix.patch", ctx.gold_patch)


def _inner_node_id(ctx: InstanceContext) -> str | None:
    """A required test as a pytest node id in a graded file (what an inner run can name)."""
    for test in ctx.fail_to_pass + ctx.pass_to_pass:
        if "::" in test and test.split("::", 1)[0] in ctx.test_files:
            return test
    return None


def _inner_pytest_run(ctx: InstanceContext, work: Checkout) -> None:
    """A new test that runs one required test in a child pytest and prints what it printed: the log
    then holds the child's status lines for a graded test, as repositories that test their pytest
    integration do."""
    node = _inner_node_id(ctx)
    assert node is not None
    work.write(
        _join(_test_dir(ctx), f"test_{ctx.package}_inner_run.py"),
        "import subprocess\nimport sys\n\n\n"
        "def test_required_test_passes_in_a_child_session(request):\n"
        "    proc = subprocess.run(\n"
        f"        [sys.executable, '-m', 'pytest', '-rA', '-p', 'no:cacheprovider', {node!r}],\n"
        "        cwd=str(request.config.rootdir), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,\n"
        "        universal_newlines=True,\n"
        "    )\n"
        "    print(proc.stdout)\n"
        "    assert proc.returncode == 0\n",
    )


def _toml_pytest_section(ctx: InstanceContext) -> bool:
    return (
        ctx.runner == "pytest"
        and "pyproject.toml" in ctx.files
        and "[tool.pytest.ini_options]" in ctx.read("pyproject.toml")
        and not any(name in ctx.files for name in ("pytest.ini", ".pytest.ini"))
    )


def _addopts_toml_array(ctx: InstanceContext, work: Checkout) -> None:
    """``addopts`` as a TOML array in the repository's ``[tool.pytest.ini_options]`` (kept after
    the options an ``addopts`` there already holds)."""
    text = work.read("pyproject.toml")
    head, section, rest = text.partition("[tool.pytest.ini_options]\n")
    body, next_section, tail = rest.partition("\n[")
    existing = re.search(r"^addopts\s*=\s*(.+)$", body, re.M)
    if existing is None:
        body = 'addopts = ["-ra", "--tb=short"]\n' + body
    else:
        value = existing.group(1).strip()
        quoted = value[:1] in "\"'"
        kept = (
            shlex.split(value.strip("\"'"))
            if quoted
            else [v.strip().strip("\"'") for v in value.strip("[]").split(",")]
        )
        items = ", ".join(f'"{o}"' for o in [*kept, "-ra", "--tb=short"] if o)
        body = body[: existing.start()] + f"addopts = [{items}]" + body[existing.end() :]
    work.write("pyproject.toml", head + section + body + next_section + tail)


_AUTO_DATACLASS = (
    "import dataclasses as _dataclasses\n\n\n"
    "@_dataclasses.dataclass(frozen=True)\n"
    "class _Key:\n"
    "    name: str\n"
    "    arity: int = 0\n"
)
_fix_site_dataclass_eq = _at_fix_site(
    _AUTO_DATACLASS, lambda name: f"_Key({name!r}) == _Key({name!r}) and _Key({name!r}, 1) != _Key({name!r})"
)

_TOTAL_ORDERING = (
    "import functools as _functools\n\n\n"
    "@_functools.total_ordering\n"
    "class _Version(object):\n"
    "    def __init__(self, *parts):\n"
    "        self.parts = parts\n\n"
    "    def __eq__(self, other):\n"
    "        return isinstance(other, _Version) and self.parts == other.parts\n\n"
    "    def __lt__(self, other):\n"
    "        return self.parts < other.parts\n\n"
    "    __hash__ = object.__hash__\n\n\n"
    "_MINIMUM = _Version(0, 1)\n"
)
_fix_site_total_ordering = _at_fix_site(
    _TOTAL_ORDERING, lambda name: "_Version(1, 0) >= _MINIMUM and _Version(0, 1) <= _MINIMUM"
)

_NAMEDTUPLE = "import collections as _collections\n\n_Span = _collections.namedtuple('_Span', 'start end')\n"
_fix_site_namedtuple = _at_fix_site(
    _NAMEDTUPLE, lambda name: "_Span(0, 1) == (0, 1) and _Span(0, 1)._replace(end=2)"
)

_THREAD_POOL = "import concurrent.futures as _futures\n\n_POOL = _futures.ThreadPoolExecutor(max_workers=2)\n"
_fix_site_thread_pool = _at_fix_site(_THREAD_POOL, lambda name: f"_POOL.submit(len, {name!r}).result()")

_DEEPCOPY = "import copy as _copy\n"
_fix_site_deepcopy = _at_fix_site(
    _DEEPCOPY,
    lambda name: f"_copy.deepcopy({{'name': {name!r}, 'args': []}}) == {{'name': {name!r}, 'args': []}}",
)


KINDS: tuple[Kind, ...] = (
    Kind(
        "conftest-fixture",
        "a new conftest.py fixture beside the tests, and a new test using it",
        _conftest_fixture,
        _only_pytest,
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
        _only_pytest,
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
        _has_fix_site,
    ),
    Kind(
        "fix-site-value-class",
        "a frozen dataclass in the fixed modules with its own __eq__ (equal to its name as a str), "
        "made and compared in every function",
        _fix_site_value_class,
        _has_fix_site,
    ),
    Kind(
        "fix-site-query-builder",
        "a query builder in the fixed modules whose == builds an unevaluated condition (truthy, no "
        "__bool__), as peewee's and pypika's columns do; every function builds one and the module's own "
        "code tests its truth and looks it up in a list",
        _fix_site_query_builder,
        _has_fix_site,
    ),
    Kind(
        "fix-site-wildcard",
        "a public wildcard in the fixed modules equal to any str (like mock.ANY), which every function "
        "compares through the module's own matching",
        _fix_site_wildcard,
        _has_fix_site,
    ),
    Kind(
        "fix-site-caller-name",
        "every function of the fixed modules logging its own name, found by a helper through "
        "sys._getframe(1)",
        _fix_site_caller_name,
        _has_fix_site,
    ),
    Kind(
        "fix-site-module-alias",
        "the fixed module registered under a second name in sys.modules",
        _fix_site_module_alias,
        _has_fix_site,
    ),
    Kind(
        "fix-site-atexit",
        "a scratch directory removed by an exit handler the fixed module registers",
        _fix_site_atexit,
        _has_fix_site,
    ),
    Kind(
        "fix-site-thread",
        "a daemon thread started when the fixed module is imported",
        _fix_site_thread,
        _has_fix_site,
    ),
    Kind(
        "fix-site-module-getattr",
        "a module __getattr__ and __dir__ for a deprecated name",
        _fix_site_module_getattr,
        _has_fix_site,
    ),
    Kind(
        "fix-site-recursion-limit",
        "the recursion limit raised at import",
        _fix_site_recursion_limit,
        _has_fix_site,
    ),
    Kind(
        "fix-site-lru-cache", "an lru_cache helper every function calls", _fix_site_lru_cache, _has_fix_site
    ),
    Kind(
        "fix-site-warns",
        "a warnings filter at import and a PendingDeprecationWarning from every function",
        _fix_site_warns,
        _has_fix_site,
    ),
    Kind(
        "fix-site-generated-table",
        "a generated table written into the package at first import",
        _fix_site_generated_table,
        _has_fix_site,
    ),
    Kind(
        "fix-site-env-default", "an environment default set at import", _fix_site_env_default, _has_fix_site
    ),
    Kind(
        "fix-site-faulthandler",
        "faulthandler registered on SIGUSR1 at import",
        _fix_site_faulthandler,
        _has_fix_site,
    ),
    Kind(
        "fix-site-subprocess",
        "a child Python asked for its version at import",
        _fix_site_subprocess,
        _has_fix_site,
    ),
    Kind("fix-site-vendor", "a _vendor directory put on sys.path at import", _fix_site_vendor, _has_fix_site),
    Kind("fix-site-ctypes", "libc loaded through ctypes at import", _fix_site_ctypes, _has_fix_site),
    Kind(
        "fix-site-debug-print",
        "a debug line printed to stderr by every function",
        _fix_site_debug_print,
        _has_fix_site,
    ),
    Kind(
        "fix-site-str-enum",
        "a str-mixin Enum compared with a str in every function",
        _fix_site_str_enum,
        _has_fix_site,
    ),
    Kind(
        "runslow-conftest",
        "a root conftest with --runslow, a slow marker and skips",
        _runslow_conftest,
        _only_pytest,
    ),
    Kind(
        "autouse-fixture", "an autouse fixture in a conftest beside the tests", _autouse_reset, _only_pytest
    ),
    Kind(
        "tests-package",
        "__init__.py added to the tests' directory",
        _tests_package,
        lambda ctx: bool(_test_dir(ctx)),
    ),
    Kind(
        "pytest-addopts",
        "addopts = -ra --tb=short in the pytest configuration",
        _pytest_addopts,
        _only_pytest,
    ),
    Kind(
        "gitattributes", "a .gitattributes with text=auto, eol=lf for Python, binary images", _gitattributes
    ),
    Kind(
        "makereport-wrapper",
        "a conftest hookwrapper on pytest_runtest_makereport keeping each report on the item",
        _makereport_wrapper,
        _only_pytest,
    ),
    Kind("report-header", "a root conftest with pytest_report_header", _report_header, _only_pytest),
    Kind("root-pytester", "pytest_plugins = ['pytester'] in a root conftest", _root_pytester, _only_pytest),
    Kind(
        "console-script",
        "a __main__ module and a console script entry point",
        _console_script,
        _has_package_config,
    ),
    Kind(
        "fix-site-gc-callback",
        "a garbage-collection callback that counts collections",
        _fix_site_gc_callback,
        _has_fix_site,
    ),
    Kind(
        "fix-site-meta-finder",
        "a meta path finder for the package's legacy name",
        _fix_site_meta_finder,
        _has_fix_site,
    ),
    Kind(
        "fix-site-basic-config",
        "logging.basicConfig(level=DEBUG) at import and a debug line per call",
        _fix_site_basic_config,
        _has_fix_site,
    ),
    Kind(
        "fix-site-stdout-print",
        "a debug print to stdout in every function",
        _fix_site_stdout_print,
        _has_fix_site,
    ),
    Kind(
        "non-ascii", "a docs page with a non-ASCII name, non-ASCII comments in the fixed modules", _non_ascii
    ),
    Kind("symlink", "docs/README.md a symlink to the README", _symlink, lambda ctx: _readme(ctx) is not None),
    Kind("binary-file", "a PNG added to the docs", _binary_file),
    Kind(
        "conftest-sys-path",
        "a root conftest putting the repository first on sys.path",
        _conftest_sys_path,
        _only_pytest,
    ),
    Kind(
        "generate-tests",
        "a root conftest parametrizing a backend argument, and a test using it",
        _generate_tests,
        _only_pytest,
    ),
    Kind(
        "items-sorted",
        "a root conftest running the tests in reverse node-id order",
        _items_sorted,
        _only_pytest,
    ),
    Kind("reproduce-script", "reproduce_issue.py at the top, with no main guard", _reproduce_script),
    Kind("backup-files", "*.orig and *.bak copies of the fixed modules", _backup_files, _has_fix_site),
    Kind("stale-pyc", "a __pycache__ pyc of each fixed module, out of date", _stale_pyc, _has_fix_site),
    Kind("patch-file", "the fix saved as fix.patch at the top", _patch_file),
    Kind(
        "inner-pytest-run",
        "a new test running a required test in a child pytest and printing its output",
        _inner_pytest_run,
        lambda ctx: ctx.runner == "pytest" and _inner_node_id(ctx) is not None,
    ),
    Kind(
        "addopts-toml-array",
        "addopts as a TOML array in [tool.pytest.ini_options]",
        _addopts_toml_array,
        _toml_pytest_section,
    ),
    Kind(
        "fix-site-dataclass-eq",
        "a frozen dataclass with the generated __eq__, compared in every function",
        _fix_site_dataclass_eq,
        _has_fix_site,
    ),
    Kind(
        "fix-site-total-ordering",
        "a functools.total_ordering class compared in every function",
        _fix_site_total_ordering,
        _has_fix_site,
    ),
    Kind(
        "fix-site-namedtuple",
        "a namedtuple compared with a tuple in every function",
        _fix_site_namedtuple,
        _has_fix_site,
    ),
    Kind(
        "fix-site-thread-pool",
        "a module thread pool every function submits work to",
        _fix_site_thread_pool,
        _has_fix_site,
    ),
    Kind(
        "fix-site-deepcopy",
        "a deep copy compared with its original in every function",
        _fix_site_deepcopy,
        _has_fix_site,
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
