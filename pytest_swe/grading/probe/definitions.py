# Where a test file defines each of its test functions, read from its source: what the function a
# runner calls must be, unless something replaced it in memory after the file ran (the file on disk
# then still looks right); and the code objects one execution of a file made. Shared by the
# shipped channel and watch: in them, the line importing it is replaced by this file's text.
#
# Python 3.5 and newer, standard library only, no f-strings.
import os


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


def definitions(path):
    """``{qualified name: lines its code may start at}`` for the plain defs of a Python file."""
    key = str(path)
    if key not in _DEFINITIONS:
        found = {}
        try:
            import ast

            with open(key, "rb") as fh:
                _scope(ast.parse(fh.read()).body, "", found)
        except Exception:
            found = {}
        _DEFINITIONS[key] = found
    return _DEFINITIONS[key]


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
