# Where a test file defines each of its test functions, read from its source: what the function a
# runner calls must be, unless something replaced it in memory after the file ran (the file on disk
# then still looks right); and the code objects one execution of a file made. Shared by the
# shipped channel and watch: in them, the line importing it is replaced by this file's text.
#
# Python 3.5 and newer, standard library only, no f-strings.
import os
import sys


def _is_mark(node):
    """Whether a decorator is a pytest mark (``@pytest.mark.x``, ``@mark.x(...)``): marks do not wrap."""
    import ast

    if isinstance(node, ast.Call):
        node = node.func
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    parts.reverse()
    return parts[:2] == ["pytest", "mark"] or (len(parts) >= 2 and parts[0] == "mark")


def _scope(body, prefix, found):
    """Map each name bound exactly once in ``body``, by a plain ``def`` (marks allowed), to the lines
    its code may start at; recurse into classes bound once, undecorated and without keywords."""
    import ast

    async_def = getattr(ast, "AsyncFunctionDef", ast.FunctionDef)
    bound = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.setdefault(node.name, []).append(node)
            continue
        for sub in ast.walk(node):
            name = None
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                name = sub.id
            elif isinstance(sub, ast.alias):
                name = (sub.asname or sub.name).split(".")[0]
            elif isinstance(sub, (ast.FunctionDef, ast.ClassDef, async_def)):
                name = sub.name
            if name:
                bound.setdefault(name, []).append(None)
    for name, nodes in bound.items():
        node = nodes[0]
        if len(nodes) != 1 or node is None:
            continue
        if isinstance(node, ast.ClassDef):
            if not node.decorator_list and not getattr(node, "keywords", None):
                _scope(node.body, prefix + name + ".", found)
        elif all(_is_mark(d) for d in node.decorator_list):
            found[prefix + name] = set([node.lineno] + [d.lineno for d in node.decorator_list])


_DEFINITIONS = {}


_TOGETHER = []
"""The ``(cache, reader)`` pairs :func:`read_together` named: each file one of them reads is read
by all of them, from the same parse."""


_TEXTS = {}
"""Files' texts kept by :func:`keep_texts` (by real path), read in their place once each."""


def keep_texts(paths):
    """Keep the text of each file as it is now: the readers of this module read that in its place
    when first asked (a process keeps the graded files' texts from its start, before any code
    under test ran in it, and parses them only once it needs what they define)."""
    for path in paths:
        try:
            with open(path, "rb") as fh:
                _TEXTS[_realpath(path)] = fh.read()
        except Exception:
            pass


def kept_text(path):
    """The text :func:`keep_texts` kept of ``path`` (None: none kept, or read already)."""
    return _TEXTS.get(_realpath(str(path)))


def _per_file(cache, path, read):
    """``read(tree)`` of a Python file's syntax tree, once per file; ``{}`` where it cannot be read."""
    key = str(path)
    if key not in cache:
        try:
            import ast

            source = _TEXTS.pop(_realpath(key), None)
            if source is None:
                with open(key, "rb") as fh:
                    source = fh.read()
            tree = ast.parse(source)
        except Exception:
            tree = None
        _fill(key, tree, [(cache, read)] + _TOGETHER)
    return cache[key]


def _fill(key, tree, readers):
    for cache, read in readers:
        if key not in cache:
            try:
                cache[key] = read(tree) if tree is not None else {}
            except Exception:
                cache[key] = {}


def tree_read(path, source, tree):
    """What the readers of :func:`read_together` make of ``path``, taken from ``tree``, a parse of
    ``source`` made elsewhere (and not changed yet), where that is the text they would read: the
    file is not parsed again for them."""
    kept = _TEXTS.get(_realpath(str(path)))
    if kept is None or kept == source:
        # The text stays kept: a reader asked under another name of the file reads it still.
        _fill(str(path), tree, _TOGETHER)


def _scoped(tree):
    found = {}
    _scope(tree.body, "", found)
    return found


def definitions(path):
    """``{qualified name: lines its code may start at}`` for the plain defs of a Python file."""
    return _per_file(_DEFINITIONS, path, _scoped)


def _codeless(body, prefix, found):
    """Add each class of ``body`` (nested ones by qualified name) that binds ``__eq__`` by an
    assignment and holds no function of its own: a class its source writes with no code."""
    import ast

    for node in body:
        if not isinstance(node, ast.ClassDef):
            continue
        name = prefix + node.name
        coded = any(
            isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) for n in ast.walk(node)
        )
        binds_eq = any(
            isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__eq__" for t in n.targets)
            for n in node.body
        )
        if binds_eq and not coded:
            found.add(name)
        _codeless(node.body, name + ".", found)


def _codeless_classes(tree):
    found = set()
    _codeless(tree.body, "", found)
    return found


_CODELESS_CLASSES = {}


def codeless_classes(path):
    """The qualified names of the classes a Python file writes with an ``__eq__`` and no code."""
    return _per_file(_CODELESS_CLASSES, path, _codeless_classes)


_ROWS = {}
_UNREAD = object()


def _literal(node):
    import ast

    try:
        return ast.literal_eval(node)
    except Exception:
        return _UNREAD


def _rows_of(decorator):
    """``(argument names, rows)`` of a ``parametrize`` mark written with literals, each row a list
    of values (``_UNREAD`` where a value is not a literal); None for any other decorator, and for
    one whose values a fixture makes (``indirect``)."""
    import ast

    if not (isinstance(decorator, ast.Call) and getattr(decorator.func, "attr", "") == "parametrize"):
        return None
    if len(decorator.args) < 2 or any(
        k.arg in ("indirect", "argvalues", "argnames") for k in decorator.keywords
    ):
        return None
    names = _literal(decorator.args[0])
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()]
    if (
        not isinstance(names, (list, tuple))
        or not names
        or not isinstance(decorator.args[1], (ast.List, ast.Tuple))
    ):
        return None
    rows = []
    for row in decorator.args[1].elts:
        if isinstance(row, ast.Call) and getattr(row.func, "attr", "") == "param":
            row = row.args if len(names) > 1 else (row.args[0] if row.args else None)
        elif len(names) > 1:
            row = row.elts if isinstance(row, (ast.List, ast.Tuple)) else None
        if row is None:
            rows.append(None)
        elif len(names) == 1:
            rows.append([_literal(row)])
        else:
            rows.append([_literal(v) for v in row] if len(row) == len(names) else None)
    return list(names), rows


def parametrize_rows(path):
    """``{qualified name: [(argument names, rows)]}``: the literal rows of the ``parametrize`` marks
    of a test file's functions (top level and in classes), as its source writes them."""
    return _per_file(_ROWS, path, _marked_rows)


def _marked_rows(tree):
    import ast

    found = {}
    scopes = [("", tree.body)]
    while scopes:
        prefix, body = scopes.pop()
        for node in body:
            if isinstance(node, ast.ClassDef):
                scopes.append((prefix + node.name + ".", node.body))
            elif isinstance(node, ast.FunctionDef):
                marks = [r for r in (_rows_of(d) for d in node.decorator_list) if r is not None]
                if marks:
                    found[prefix + node.name] = marks
    return found


def changed_inputs(marks, indices, funcargs):
    """The arguments a parametrized test receives that are not what its source's row gives it
    (``indices``: the row of each argument name, as pytest's ``callspec.indices`` holds them)."""
    changed = []
    for names, rows in marks:
        at = indices.get(names[0])
        if not isinstance(at, int) or not 0 <= at < len(rows) or rows[at] is None:
            continue
        for name, written in zip(names, rows[at]):
            if written is _UNREAD or name not in funcargs:
                continue
            value = funcargs[name]
            if type(value) is not type(written) or not _equal(value, written):
                changed.append(name)
    return changed


def _equal(a, b):
    try:
        return bool(a == b) or (a != a and b != b)  # nan is what the source wrote too
    except Exception:
        return False


_RUNNER_ROOTS = ("pytest", "_pytest", "unittest")
_IMPORTS = {}


def runner_imports(path):
    """``{name: (module, attribute or None)}``: the names a Python file binds by importing the test
    runner (``import pytest``, ``from pytest import raises as r``, ``from unittest import mock``),
    each bound by that one import and nothing else in the file (``import unittest2 as unittest``
    in a ``try`` beside it, or a name assigned again, leaves the name out)."""
    return _per_file(_IMPORTS, path, _runner_bindings)


def _runner_bindings(tree):
    import ast

    found = {}
    bindings = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.asname or alias.name.split(".", 1)[0]
                target = (alias.name if alias.asname else name, None)
                bindings.setdefault(name, []).append(target)
        elif isinstance(node, ast.ImportFrom):
            module = node.module if not node.level else None
            for alias in node.names:
                if alias.name != "*":
                    target = (module, alias.name) if module else None
                    bindings.setdefault(alias.asname or alias.name, []).append(target)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bindings.setdefault(node.id, []).append(None)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bindings.setdefault(node.name, []).append(None)
    for name, targets in bindings.items():
        target = targets[0]
        if target is None or any(t != target for t in targets):
            continue
        if target[0].split(".", 1)[0] in _RUNNER_ROOTS:
            found[name] = target
    return found


def read_together(*readers):
    """Have every file one of ``readers`` (these functions of this module) reads be read by all of
    them, from one parse: the readers a module asks of each file it reads. A graded test file has
    thousands of lines in real repositories, and each parse of it costs every test run."""
    pairs = {
        definitions: (_DEFINITIONS, _scoped),
        codeless_classes: (_CODELESS_CLASSES, _codeless_classes),
        parametrize_rows: (_ROWS, _marked_rows),
        runner_imports: (_IMPORTS, _runner_bindings),
    }
    _TOGETHER[:] = [pairs[reader] for reader in readers]


_REAL = {}


def _realpath(path):
    """``os.path.realpath``, remembered: a check runs for every test call and every half second."""
    if path not in _REAL:
        _REAL[path] = os.path.realpath(path)
    return _REAL[path]


def is_defined_there(func, path, name, lines):
    """Whether ``func`` is the function the ``def`` of ``name`` at ``lines`` of ``path`` makes."""
    func = getattr(func, "__func__", func)
    code = getattr(func, "__code__", None)
    if code is None:
        return False
    return (
        code.co_name == name.rsplit(".", 1)[-1]
        and code.co_firstlineno in lines
        and _realpath(code.co_filename) == _realpath(str(path))
    )


def code_tree(code):
    """``code`` and every code object nested in its constants: what one execution of a file makes
    (its functions, classes, lambdas and comprehensions)."""
    codes = []
    pending = [code]
    while pending:
        current = pending.pop()
        codes.append(current)
        pending.extend(c for c in current.co_consts if isinstance(c, type(code)))
    return codes


RUNNER_HELPERS = (
    ("pytest", ("raises", "approx", "warns", "deprecated_call", "fail", "skip", "xfail", "importorskip")),
    (
        "_pytest.python_api",
        (
            "raises",
            "approx",
            "RaisesContext",
            "ApproxBase",
            "ApproxScalar",
            "ApproxDecimal",
            "ApproxMapping",
            "ApproxSequenceLike",
            "ApproxSequencelike",
            "ApproxNumpy",
        ),
    ),
    (
        "_pytest.approx",
        (
            "approx",
            "Approx",
            "ApproxBase",
            "ApproxScalar",
            "ApproxDecimal",
            "ApproxMapping",
            "ApproxSequenceLike",
            "ApproxNumpy",
            "ApproxTimedelta",
        ),
    ),
    ("_pytest.raises", ("raises", "RaisesExc", "RaisesGroup", "AbstractRaises")),
    ("_pytest.recwarn", ("warns", "deprecated_call", "WarningsChecker", "WarningsRecorder")),
    ("_pytest.outcomes", ("fail", "skip", "xfail", "importorskip", "exit", "Failed", "Skipped", "XFailed")),
    ("_pytest.pytester", ("RunResult", "LineMatcher")),
)
"""The test runner's helpers a test asserts with, and the classes they look up by name as they
run (``raises`` makes a ``RaisesContext`` from its module's globals): replaced, ``with
pytest.raises(E)`` or ``self.assertEqual`` pass whatever the code under test does."""

_class_dict = type.__dict__["__dict__"].__get__


CODELESS_SOURCE = "code with no source"
"""How the probe names where a replaced helper's code comes from when it has none: never the
runner's own, whose helpers are Python code (the host's reader, ``evidence.CODELESS_SOURCE``,
holds the same text: the probe's modules are not imported there)."""


def codeless_source(value):
    """``"code with no source (TYPE)"`` for a callable with no code of its own anywhere (a
    builtin's function or bound method: ``"ok".format`` takes any arguments and returns; a
    ``partial`` of one or of a class; a static or class method of one), else None. A class
    (``failureException``'s ``AssertionError``) is a setting, not a call, and data are no calls."""
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, type) or not callable(value) or source_of(value) is not None:
        return None
    return "%s (%s)" % (CODELESS_SOURCE, type(value).__name__)


def source_of(value):
    """The file the code of a helper's replacement comes from (a function, method, partial,
    callable object or class), or None."""
    for candidate in (value, getattr(value, "__func__", None), getattr(value, "func", None)):
        code = getattr(candidate, "__code__", None)
        if code is not None:
            return code.co_filename
    if isinstance(value, type):
        try:
            space = _class_dict(value)
        except Exception:
            return None
        for name in ("__exit__", "__init__", "__new__", "__call__"):
            code = getattr(space.get(name), "__code__", None)
            if code is not None:
                return code.co_filename
        return getattr(sys.modules.get(getattr(value, "__module__", "") or ""), "__file__", None)
    call = getattr(type(value), "__call__", None)
    return getattr(getattr(call, "__code__", None), "co_filename", None)
