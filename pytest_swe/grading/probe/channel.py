# The harness's result channel: a pytest plugin the eval loads from site-packages under a name
# chosen per evaluation, writing what really happened to a file the code under test is not told
# about. It observes the test function's own call (below report construction) and writes one
# JSON line per event, so a run cut short still leaves what it saw.
#
# It runs in every pytest the task's image has (3.x to 9.x) on Python 3.5 and newer: standard
# library only, no f-strings, no pytest API newer than pytest 3.
import functools
import hashlib
import inspect
import json
import os
import sys

import pytest

from pytest_swe.grading.probe.compiled import GradedAudit  # replaced by compiled.py when shipped
from pytest_swe.grading.probe.compiled import code_key  # replaced by compiled.py when shipped
from pytest_swe.grading.probe.compiled import reference_code  # replaced by compiled.py when shipped
from pytest_swe.grading.probe.compiled import repository_relpath  # replaced by compiled.py when shipped
from pytest_swe.grading.probe.definitions import RUNNER_HELPERS  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.definitions import changed_inputs  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.definitions import code_tree  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.definitions import codeless_source  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.definitions import definitions  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.definitions import is_defined_there  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.definitions import keep_texts  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.definitions import parametrize_rows  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.definitions import read_together  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.definitions import runner_imports  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.definitions import source_of  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.definitions import tree_read  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.rebound import rebound_builtins  # replaced by rebound.py when shipped
from pytest_swe.grading.probe.record import write_record  # replaced by record.py when shipped
from pytest_swe.grading.probe.watchcall import ask_watch  # replaced by watchcall.py when shipped

OUT = "@OUT@"
GRADED = json.loads("""@GRADED@""")
MARK = "@MARK@"
REPO = "@REPO@"
WATCH = "@WATCH@"
SEAL_ENV = "PYTEST_SWE_SEAL"
# The three readings of a graded file the checks of each test call make, from one parse of its
# text as it was when this channel loaded: the parse its compiled code's check makes as the file
# first runs, where the file is still that text, else the first reading's own.
read_together(definitions, parametrize_rows, runner_imports)
_depth = [0]


def _seal_fd():
    """A descriptor of the eval's log, opened by the eval script's shell before the tests and
    named (number, device, inode) in the environment; None where this process does not write its
    own output straight to it. A runner started by a test (its output is the test's to read) never
    gets a line from here, nor one whose output goes through a pipe (``| tee``), where the seal
    could land inside a line the log's reader needs whole."""
    try:
        number, dev, ino = os.environ.get(SEAL_ENV, "").split(":")
        want = (int(dev), int(ino))
        for fd in (int(number), 1):
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) != want:
                return None
        return os.dup(int(number))
    except Exception:
        return None


# Everything this process wrote, as a running digest: printed into the log when pytest ends, so a
# record changed in the file afterwards no longer matches a line the log already carries.
_seal = [_seal_fd(), hashlib.sha256(), 0]


def _write(record):
    line = write_record(OUT, record)
    if line is not None:
        _seal[1].update(line)
        _seal[2] += 1


def _print_seal():
    if _seal[0] is None:
        return
    # What pytest printed is still in Python's buffers: out first, so the seal follows it whole.
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except Exception:
            pass
    text = "\n%s channel %d %d %d %s\n" % (MARK, os.getpid(), _depth[0], _seal[2], _seal[1].hexdigest())
    try:
        os.write(_seal[0], text.encode("ascii"))
    except Exception:
        pass


def _ancestors():
    chain = []
    pid = os.getppid()
    for _ in range(64):
        if pid <= 1:
            break
        chain.append(pid)
        try:
            with open("/proc/%d/stat" % pid) as fh:
                pid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except Exception:
            break
    return chain


def _sha(path):
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except Exception:
        return None


_rel = repository_relpath(REPO)
keep_texts(os.path.join(REPO, rel) for rel in GRADED)


def pytest_configure(config):
    if _CONFIG[0] is None:
        _CONFIG[0] = config
    _depth[0] += 1
    _write({"ev": "start", "depth": _depth[0], "ancestors": _ancestors(), "exe": sys.executable})


def _watch_final_look():
    """The equality watch's last look, taken here, before any ``atexit`` handler: it looks at
    garbage collections and at exit, and code under test can turn collections off and leave
    through ``os._exit`` from a handler of its own, registered after the watch's."""
    ask_watch(WATCH, "_scan", True, True)


@pytest.hookimpl(tryfirst=True)
def pytest_unconfigure(config):
    # First of every plugin's: one that raises stops the hooks after it, and this must run.
    if _depth[0] == 1:
        _watch_final_look()
    _write({"ev": "end", "depth": _depth[0]})
    _print_seal()
    _depth[0] -= 1


def pytest_collectstart(collector):
    path = getattr(collector, "path", None)
    if path is None and "fspath" in getattr(collector, "__dict__", {}):
        path = collector.__dict__["fspath"]
    if path is None:
        return
    rel = _rel(path)
    if rel in GRADED:
        _write({"ev": "collect", "file": rel, "sha": _sha(str(path))})


_FIRST_RUN = {}
"""Each graded file's first execution in this process: its code object and every one nested in it
(kept, so their ids stay theirs), and those ids."""
_AS_SOURCE = {}
"""Each graded file: whether its first execution was the code its source compiles to (None when
that could not be said), and the names its source binds in its globals."""
_CONFIG = [None]


def _functions_of(modules):
    """{name: (function, code)} of the modules' functions and their classes' methods: the parts
    of the runner's rewriting of asserts a plugin or package could patch after this loaded."""
    found = {}
    for module in modules:
        if module is None:
            continue
        for name, value in list(vars(module).items()):
            members = [(name, value)]
            if isinstance(value, type) and getattr(value, "__module__", None) == module.__name__:
                members.extend((name + "." + k, v) for k, v in list(vars(value).items()))
            for key, member in members:
                code = getattr(member, "__code__", None)
                if code is not None:
                    found[module.__name__ + "." + key] = (member, code)
    return found


def _rewriter():
    """pytest's ``rewrite_asserts`` as ``rewrite(tree, source, path)``, taken when the channel loads
    (pytest imports its rewriting before the plugins named with ``-p``, this one), and what it is
    made of then."""
    module = sys.modules.get("_pytest.assertion.rewrite")
    rewrite = getattr(module, "rewrite_asserts", None)
    if rewrite is None:
        return None, {}
    try:
        takes_source = "source" in inspect.signature(rewrite).parameters
    except (TypeError, ValueError):
        takes_source = False

    def apply(tree, source, path):
        if takes_source:
            rewrite(tree, source, path, _CONFIG[0])
        else:
            rewrite(tree, path, _CONFIG[0])

    return apply, _functions_of([module, sys.modules.get("ast")])


_REWRITE, _REWRITE_PARTS = _rewriter()


def _compiled_as_source(code):
    """Whether a graded file's first execution runs the code its source compiles to, with the
    runner's rewriting of asserts as it was when the channel loaded (None when unknown)."""
    rewritten = "@pytest_ar" in code.co_names
    if not rewritten:  # plain code: the equality watch compares it, for every runner
        return None, None
    if _REWRITE is None or _CONFIG[0] is None:
        return None, None
    if (
        _functions_of([sys.modules.get("_pytest.assertion.rewrite"), sys.modules.get("ast")])
        != _REWRITE_PARTS
    ):
        return False, None
    reference, names = reference_code(code.co_filename, _REWRITE, tree_read)
    return code_key(reference) == code_key(code), names


def _first_run(rel, code, codes):
    """The code a graded file first runs as (and every one nested in it, kept so their ids stay
    theirs), and whether it is what its source compiles to."""
    _FIRST_RUN[rel] = (codes, set(id(c) for c in codes))
    try:
        _AS_SOURCE[rel] = _compiled_as_source(code)
    except Exception:
        _AS_SOURCE[rel] = (None, None)


_AUDIT = GradedAudit(GRADED, _rel, code_tree, _first_run)
if hasattr(sys, "addaudithook"):
    sys.addaudithook(_AUDIT)


def _first_run_code(func, rel):
    """Whether ``func`` runs code its file's first execution made (None when that was not seen)."""
    seen = _FIRST_RUN.get(rel)
    code = getattr(getattr(func, "__func__", func), "__code__", None)
    if seen is None or code is None:
        return None
    return id(code) in seen[1]


_BUILTINS = [
    (name, value)
    for name, value in sorted(vars(sys.modules["builtins"]).items())
    if isinstance(name, str) and not name.startswith("__")
]
"""The builtins as the channel loaded, by name (``__`` names left out)."""


def _shadowed_builtins(func, rel):
    """Builtins' names the test's module globals bind to something else although its source never
    binds them (nor imports them with ``*``): code outside the file put them there, where the
    file's code finds them first (``AssertionError``, which rewritten asserts raise by name)."""
    module_globals = getattr(getattr(func, "__func__", func), "__globals__", None)
    if not isinstance(module_globals, dict):
        return []
    # The builtins' names looked up in the globals (read as a dict, whatever its class), not the
    # globals walked: this runs twice per test call, and a test module of thousands of tests and
    # helpers made it a walk of thousands of names per call.
    found = [name for name, value in _BUILTINS if dict.get(module_globals, name, value) is not value]
    if not found:
        return []
    known = (_AS_SOURCE.get(rel) or (None, None))[1]
    if known is None:
        return []  # what the source binds is not known: nothing to judge by
    names, star = known
    missing = object()
    package = module_globals.get("__package__") or ""
    modules = [sys.modules.get(_absolute(m, package)) for m in star]
    return [
        name
        for name in found
        if name not in names
        and not any(getattr(m, name, missing) is module_globals.get(name) for m in modules)
    ]


def _absolute(name, package):
    """A module name of an import, relative ones (``..helpers``) resolved from ``package``."""
    level = len(name) - len(name.lstrip("."))
    if not level:
        return name
    base = package.rsplit(".", level - 1)[0] if level > 1 else package
    rest = name[level:]
    return base + "." + rest if rest and base else rest or base


def _graded_file(pyfuncitem):
    """``(path, path in the repository)`` of a test's file; the second None unless it is graded."""
    path = getattr(pyfuncitem, "path", None) or getattr(pyfuncitem, "fspath", None)
    rel = _rel(path) if path is not None else None
    return path, rel if rel in GRADED else None


def _test_qualname(pyfuncitem):
    """A test function's qualified name in its file (``Class.test_x``), without its parameters' id."""
    name = getattr(pyfuncitem, "originalname", None) or pyfuncitem.name.split("[", 1)[0]
    cls = getattr(pyfuncitem, "cls", None)
    return (getattr(cls, "__qualname__", "?") + "." if cls is not None else "") + name


def _defined(pyfuncitem, graded):
    """Whether the function pytest calls for a test of a graded file is the plain ``def`` the file
    has for it (None when that cannot be said: decorated, bound twice, inherited, not graded).
    Package code can swap a test module's functions for wrappers after the module ran and before
    pytest collects them; the file on disk stays as it was. ``graded``: :func:`_graded_file`."""
    path, rel = graded
    if rel is None:
        return None
    qualname = _test_qualname(pyfuncitem)
    lines = definitions(path).get(qualname)
    if lines is None:
        return None
    func = getattr(pyfuncitem, "obj", None)
    if not is_defined_there(func, path, qualname, lines):
        return False
    # The same file, name and line can be given to other code: the source compiled again without
    # its asserts, bound to the function (``__code__``) or to a new one. Only the code the file's
    # own execution made is the one it defines.
    return _first_run_code(func, rel) is not False


def _inputs_changed(pyfuncitem, graded):
    """The arguments a parametrized test of a graded file is about to be called with that are not
    the literals its source's ``parametrize`` row gives it: code under test that rewrites a
    collected item's ``callspec`` runs the test on inputs the bug does not touch, under the test's
    own id."""
    path, rel = graded
    callspec = getattr(pyfuncitem, "callspec", None)
    if rel is None or callspec is None:
        return []
    qualname = _test_qualname(pyfuncitem)
    marks = parametrize_rows(path).get(qualname)
    if not marks:
        return []
    return changed_inputs(marks, dict(getattr(callspec, "indices", {}) or {}), dict(pyfuncitem.funcargs))


def _runner_modules():
    found = {}
    for name, module in list(sys.modules.items()):
        if module is not None and name.split(".", 1)[0] in ("pytest", "_pytest", "unittest"):
            try:
                found[name] = (module, dict(vars(module)))
            except Exception:
                pass
    return found


_RUNNER = _runner_modules()
"""The runner's modules and what they held when this channel loaded, before any code under test
ran: what a test file's ``import pytest`` or ``from pytest import raises`` must still name."""


def _rebound_runner_names(func, path):
    """The names a graded test file binds by importing the runner that, in the namespace its test
    function runs in, name something else now (a copy of ``pytest`` whose ``raises`` swallows)."""
    space = getattr(getattr(func, "__func__", func), "__globals__", None)
    if not isinstance(space, dict):
        return []
    rebound = []
    for name, (module, attribute) in sorted(runner_imports(path).items()):
        if name not in space or module not in _RUNNER:
            continue
        genuine, held = _RUNNER[module]
        if attribute is None:
            want = genuine
        elif attribute in held:
            want = held[attribute]
        elif module + "." + attribute in _RUNNER:
            want = _RUNNER[module + "." + attribute][0]
        else:
            continue
        if space[name] is not want:
            rebound.append(name)
    return rebound


def _test_case_methods():
    case = getattr(sys.modules.get("unittest.case"), "TestCase", None)
    if not isinstance(case, type):
        return None, {}
    held = dict(
        (k, v)
        for k, v in vars(case).items()
        if k.startswith(("assert", "fail")) or k in ("run", "_callTestMethod", "_callSetUp", "_callTearDown")
    )
    held["__init_subclass__"] = vars(case).get("__init_subclass__")
    return case, held


_TEST_CASE = _test_case_methods()


def _where(path):
    """A file as the reader of these records names it: its path in the repository, else whole."""
    rel = _rel(path)
    return path if rel.startswith("..") else rel


def _source_of_replacement(value):
    """Where a replaced helper's code comes from, or that it has none (:func:`codeless_source`)."""
    source = source_of(value)
    return _where(source) if source else codeless_source(value) or "?"


def _replaced_helpers():
    """``{helper: the file its replacement's code comes from}`` for the runner's assertion helpers
    that are not what they were when this channel loaded, looked at as each test runs (a watch that
    looks now and then misses a helper swapped in for the tests and put back before the end)."""
    found = {}
    for module, names in RUNNER_HELPERS:
        if module not in _RUNNER:
            continue
        genuine, held = _RUNNER[module]
        space = getattr(genuine, "__dict__", {})
        for name in names:
            now = space.get(name)
            if name in held and now is not held[name] and id(now) not in _GENUINE_HELPERS:
                found[module + "." + name] = _source_of_replacement(now)
    case, held = _TEST_CASE
    if case is not None:
        space = vars(case)
        for name, value in held.items():
            now = space.get(name)
            # One of unittest's own methods under another of its names (a test suite's
            # ``assertEquals = assertEqual``, quieting a deprecation) is unittest's still.
            if now is not value and id(now) not in _GENUINE_HELPERS:
                found["unittest.TestCase." + name] = _source_of_replacement(now)
    return found


def _genuine_helpers():
    found = {}
    for module, names in RUNNER_HELPERS:
        held = _RUNNER.get(module, (None, {}))[1]
        for name in names:
            if name in held:
                found[id(held[name])] = held[name]
    for value in _TEST_CASE[1].values():
        found[id(value)] = value
    return found


_GENUINE_HELPERS = _genuine_helpers()
"""The runner's own helpers by identity (kept, so the ids stay theirs)."""


def _runner_file(filename):
    """Whether a code file is pytest's or pluggy's own."""
    norm = filename.replace("\\", "/")
    return "/_pytest/" in norm or "/pytest/" in norm or "/pluggy/" in norm


def _caller_of_outcome(tb):
    """The file that called pytest.xfail()/skip(): the last frame outside pytest's own code."""
    site = None
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not _runner_file(filename):
            site = filename
        tb = tb.tb_next
    return _rel(site) if site else None


_XFAIL_ADDED = {}
"""Per node id, the files whose code added an ``xfail`` mark to that item (``add_marker``): pytest
honours a mark added while the test runs, and code under test can find its item."""


def _outside_runner(frame):
    """The file of the first frame from ``frame`` up that is not pytest's or pluggy's own."""
    while frame is not None:
        if not _runner_file(frame.f_code.co_filename):
            return frame.f_code.co_filename
        frame = frame.f_back
    return None


def _watch_add_marker():
    # The class that defines add_marker, found through pytest's public Item (pytest's Node).
    owner = next((c for c in getattr(pytest, "Item", object).__mro__ if "add_marker" in c.__dict__), None)
    if owner is None:
        return
    original = owner.__dict__["add_marker"]

    def add_marker(self, marker, *args, **kwargs):
        try:
            name = marker if isinstance(marker, str) else getattr(marker, "name", None)
            if name is None:
                name = getattr(getattr(marker, "mark", None), "name", None)
            if name == "xfail":
                site = _outside_runner(sys._getframe(1))
                _XFAIL_ADDED.setdefault(getattr(self, "nodeid", None), []).append(
                    _rel(site) if site else None
                )
        except Exception:
            pass
        return original(self, marker, *args, **kwargs)

    try:
        functools.update_wrapper(add_marker, original)
        owner.add_marker = add_marker
    except Exception:
        pass


_watch_add_marker()


def _has_xfail_marker(item):
    getter = getattr(item, "get_closest_marker", None)
    if getter is not None:
        return getter("xfail") is not None
    getter = getattr(item, "get_marker", None)
    return bool(getter and getter("xfail"))


def _watch(pyfuncitem, state, graded_file):
    """Wrap the test function so the channel knows it really ran (not only that a hook said so)."""
    original = getattr(pyfuncitem, "obj", None)
    if original is None or not callable(original) or inspect.iscoroutinefunction(original):
        return None
    if inspect.isasyncgenfunction(original) if hasattr(inspect, "isasyncgenfunction") else False:
        return None

    path, rel = graded_file
    graded = rel is not None

    def looked():
        # Nothing here may fail the test: what it reads can be any object the tests made.
        try:
            state.setdefault("helpers", {}).update(_replaced_helpers())
            if graded:
                state["rebound"] = sorted(
                    set(state.get("rebound", [])) | set(_rebound_runner_names(original, path))
                )
                shadowed = _shadowed_builtins(original, rel)
                if shadowed:
                    state["shadowed"] = sorted(set(state.get("shadowed", [])) | set(shadowed))
        except Exception:
            pass

    def watched(*args, **kwargs):
        state["entered"] = True
        looked()
        try:
            return original(*args, **kwargs)
        except BaseException as exc:
            # Kept: code between this call and the hook's outcome (a ``pytest_pyfunc_call`` that
            # calls ``item.function`` itself) can catch it, and the outcome then says no error.
            state["raised"] = type(exc).__name__
            state["tb"] = exc.__traceback__
            raise
        finally:
            replaced = rebound_builtins()
            if replaced:
                state["replaced"] = replaced
            looked()

    try:
        functools.update_wrapper(watched, original)
        pyfuncitem.obj = watched
    except Exception:
        return None
    return original


_XFAIL_COLLECTED = {}
"""Per node id, the files whose code added an ``xfail`` mark to the item while pytest collected
(a conftest's ``pytest_collection_modifyitems``, or code under test that found the session)."""


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    # Marks added while collecting are kept apart: a conftest adds them as a decorator would, and
    # the grader judges them by who added them.
    added = _XFAIL_ADDED.pop(item.nodeid, None)
    if added:
        _XFAIL_COLLECTED[item.nodeid] = added


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_pyfunc_call(pyfuncitem):
    state = {"entered": False}
    graded = _graded_file(pyfuncitem)
    try:
        defined = _defined(pyfuncitem, graded)
    except Exception:
        defined = None
    try:
        inputs = _inputs_changed(pyfuncitem, graded)
    except Exception:
        inputs = []
    original = _watch(pyfuncitem, state, graded)
    try:
        outcome = yield
    finally:
        if original is not None:
            try:
                pyfuncitem.obj = original
            except Exception:
                pass
        ask_watch(WATCH, "_between_tests")  # PYTEST_CURRENT_TEST still set
    excinfo = outcome.excinfo
    record = {"ev": "call", "nodeid": pyfuncitem.nodeid, "raised": None}
    record["entered"] = state["entered"] if original is not None else None
    record["defined"] = defined
    if inputs:
        record["inputs_changed"] = inputs
    if excinfo is not None:
        record["raised"] = excinfo[0].__name__
        tb = excinfo[2]
    elif "raised" in state:
        record["raised"] = state["raised"]
        record["swallowed"] = True
        tb = state["tb"]
    if record["raised"] in ("XFailed", "Skipped"):
        record["site"] = _caller_of_outcome(tb)
    state.pop("tb", None)
    replaced = sorted(set(state.get("replaced", [])) | set(rebound_builtins()))
    if replaced:
        record["builtins_replaced"] = replaced
    if state.get("rebound"):
        record["runner_names_rebound"] = state["rebound"]
    if state.get("shadowed"):
        record["builtins_shadowed"] = state["shadowed"]
    if _AUDIT.raw:
        record["raw_memory"] = list(_AUDIT.raw)
    if _AS_SOURCE.get(graded[1] or "", (None, None))[0] is False:
        record["as_source"] = False
    if state.get("helpers"):
        record["helpers_replaced"] = state["helpers"]
    record["xfail_marker"] = _has_xfail_marker(pyfuncitem)
    added = _XFAIL_ADDED.pop(pyfuncitem.nodeid, None)
    if added:
        record["xfail_added"] = added
    _write(record)


def _unittest_item():
    """unittest's ``TestCaseFunction`` and its ``runtest`` as pytest defines them, and unittest's
    ``TestCase``, taken before any code under test runs: the one kind of ``Function`` whose call
    does not go through ``pytest_pyfunc_call``."""
    try:
        # pytest loads its unittest support before the plugins named with ``-p``, this one.
        item = sys.modules["_pytest.unittest"].TestCaseFunction
        return item, item.__dict__.get("runtest"), sys.modules["unittest"].TestCase
    except Exception:
        return None, None, None


_UNITTEST = _unittest_item()


def _runs_through_pyfunc_call(item):
    """Whether the item's call should reach ``pytest_pyfunc_call``, where this channel watches it:
    a ``Function`` whose ``runtest`` (found as Python finds it, however its class was swapped) is
    ``Function``'s own or a replacement of it, not unittest's on a unittest test case."""
    function = getattr(pytest, "Function", None)
    if function is None or not isinstance(item, function):
        return False
    case_item, case_runtest, case = _UNITTEST
    for cls in type(item).__mro__:
        if "runtest" in cls.__dict__:
            runtest = cls.__dict__["runtest"]
            if case_runtest is None:
                return cls is function
            unittest_case = (
                runtest is case_runtest
                and isinstance(item, case_item)
                and isinstance(getattr(item, "_testcase", None), case)
            )
            return not unittest_case
    return False


_TREES_KEPT = 4
"""Trees of whole files kept for tracebacks (one of a 20,000-line test file holds about 15 MB)."""
_TREE_WORTH_KEEPING = 100
"""Lines a source needs for its tree to be kept: a failing statement's own text, which pytest also
parses for each failure, is parsed again at no cost worth a place."""


def _one_parse_per_source():
    """pytest parses a file's whole source again for each failure it draws a traceback of
    (``getstatementrange_ast``, with a tree cache that lives for one failure), and the echo copies
    and the must-fail canary fail by design: up to eleven parses of each graded test file, seconds
    for a file of thousands of lines. A tree parsed from the same text is handed back instead, so
    the traceback drawn is the same and the file is parsed once. pytest 3 imports the function in
    the method that uses it, later ones at the top of ``_pytest._code.code``: both names are set."""
    source_module = sys.modules.get("_pytest._code.source")  # pytest imports it before any plugin
    original = getattr(source_module, "getstatementrange_ast", None)
    if not callable(original) or getattr(original, "_swe_one_parse", False):
        return
    trees = []  # (text, tree) of whole files, the latest used last

    def getstatementrange_ast(lineno, source, assertion=False, astnode=None):
        if astnode is not None:
            return original(lineno, source, assertion, astnode)
        try:
            text = str(source)
        except Exception:
            return original(lineno, source, assertion, astnode)
        if text.count("\n") < _TREE_WORTH_KEEPING:
            return original(lineno, source, assertion, astnode)
        for entry in list(trees):
            if entry[0] == text:
                trees.remove(entry)  # the latest used last
                trees.append(entry)
                return original(lineno, source, assertion, entry[1])
        found = original(lineno, source, assertion, None)
        trees.append((text, found[0]))
        del trees[:-_TREES_KEPT]
        return found

    getstatementrange_ast._swe_one_parse = True
    code_module = sys.modules.get("_pytest._code.code")
    if getattr(code_module, "getstatementrange_ast", None) is original:
        code_module.getstatementrange_ast = getstatementrange_ast
    source_module.getstatementrange_ast = getstatementrange_ast


_one_parse_per_source()


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    record = {"ev": "phase", "nodeid": item.nodeid, "when": call.when, "raised": None}
    if call.excinfo is not None:
        record["raised"] = call.excinfo.typename
    if call.when == "call":
        try:
            record["function_item"] = _runs_through_pyfunc_call(item)
        except Exception:
            pass
    elif call.when == "setup" and item.nodeid in _XFAIL_COLLECTED:
        record["xfail_collected"] = _XFAIL_COLLECTED.pop(item.nodeid)
    try:
        report = outcome.get_result()
        record["outcome"] = report.outcome
        record["wasxfail"] = hasattr(report, "wasxfail")
    except Exception:
        pass
    _write(record)


def pytest_sessionfinish(session, exitstatus):
    _write(
        {"ev": "finish", "exitstatus": int(exitstatus), "collected": getattr(session, "testscollected", None)}
    )
