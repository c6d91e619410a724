# Whether a graded test file ran as the code its source compiles to (shipped inside the result
# channels; Python 3.5 and newer, standard library only, no f-strings).
#
# Code that runs before a test file is compiled (a package's __init__ the tests' package import
# runs first, a plugin, a module imported at start-up) can change how it compiles: wrap the
# parser or the loader so the failing tests get an empty body, the file on disk untouched. The
# channel compiles the file's source again with what it took at its own start (the built-in
# compile, the runner's rewriting of asserts) and compares the two. Its audit hook also notes
# ctypes reaching into the memory of a built-in type or of a graded file's code, which changes
# no name or identity any other check compares (bytecode rewritten in place, a type's slots).
import builtins
import contextlib
import os

_COMPILE = builtins.compile
_ONLY_AST = 0x400  # ast.PyCF_ONLY_AST
_CODE = type((lambda: 0).__code__)
_FIELDS = (
    "co_argcount",
    "co_posonlyargcount",
    "co_kwonlyargcount",
    "co_flags",
    "co_code",
    "co_names",
    "co_varnames",
    "co_freevars",
    "co_cellvars",
    "co_name",
    "co_firstlineno",
    "co_exceptiontable",
)


def code_key(code):
    """What a code object does, comparable between two compiles of one source in one process
    (its line table and file name left out)."""
    return (
        tuple(getattr(code, name, None) for name in _FIELDS),
        tuple(_const_key(c) for c in code.co_consts),
    )


def _const_key(value):
    if isinstance(value, _CODE):
        return ("code", code_key(value))
    if type(value) is tuple:
        return ("tuple", tuple(_const_key(v) for v in value))
    if type(value) is frozenset:
        return ("frozenset", tuple(sorted(repr(_const_key(v)) for v in value)))
    return (type(value).__name__, repr(value))


def reference_code(path, rewrite=None, parsed=None):
    """``(code, names)``: the code ``path``'s source compiles to, with ``rewrite(tree, source,
    path)`` (the runner's rewriting of asserts) applied to its tree first when given, and
    :func:`module_bindings` of the source. ``parsed(path, source, tree)`` is shown the source's
    tree before anything changes it."""
    with open(path, "rb") as fh:
        source = fh.read()
    tree = _COMPILE(source, path, "exec", _ONLY_AST, True)
    names = module_bindings(tree)
    if parsed is not None:
        parsed(path, source, tree)
    if rewrite is not None:
        rewrite(tree, source, path)
    return _COMPILE(tree, path, "exec", 0, True), names


def module_bindings(tree):
    """``(names, star)``: the names a module's own code can bind in its globals (assignments,
    imports, definitions at module level, ``global`` names anywhere), and the modules it imports
    ``*`` from (relative ones with their leading dots)."""
    import ast

    names, star = set(), set()
    pending = list(tree.body)
    scopes = (ast.FunctionDef, ast.ClassDef, ast.Lambda) + (
        (ast.AsyncFunctionDef,) if hasattr(ast, "AsyncFunctionDef") else ()
    )
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            names.update(node.names)
    while pending:
        node = pending.pop()
        if isinstance(node, scopes):
            if not isinstance(node, ast.Lambda):
                names.add(node.name)
            pending.extend(getattr(node, "decorator_list", []))
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    star.add("." * (getattr(node, "level", 0) or 0) + (getattr(node, "module", None) or ""))
                else:
                    names.add(alias.asname or alias.name.split(".", 1)[0])
        elif type(node).__name__ == "ExceptHandler" and getattr(node, "name", None):
            names.add(node.name)
        pending.extend(ast.iter_child_nodes(node))
    return names, star


RAW_EVENTS = frozenset(
    ("ctypes.cdata", "ctypes.cdata/buffer", "ctypes.string_at", "ctypes.wstring_at", "ctypes.call_function")
)
"""ctypes' audit events that take an address: reading or writing memory Python gave no handle to."""


class Ranges(object):
    """Where objects lie in memory, each with a label, found by address in logarithmic time: a
    test suite that calls a C library through ctypes asks for every call."""

    def __init__(self):
        self.starts = []
        self.spans = []

    def add(self, objects):
        import bisect
        import sys

        for obj, label in objects:
            with contextlib.suppress(Exception):
                start = id(obj)
                at = bisect.bisect_left(self.starts, start)
                if at < len(self.starts) and self.starts[at] == start:
                    continue
                self.starts.insert(at, start)
                self.spans.insert(at, (start + max(sys.getsizeof(obj), 1), label))

    def find(self, address):
        import bisect

        at = bisect.bisect_right(self.starts, address) - 1
        if at >= 0 and address < self.spans[at][0]:
            return self.spans[at][1]
        return None


def _addresses(args, simple, depth=0):
    for arg in args:
        if type(arg) is int:
            yield arg
        elif isinstance(arg, (tuple, list)) and depth < 2:
            yield from _addresses(arg, simple, depth + 1)
        elif simple is not None and isinstance(arg, simple) and type(arg.value) is int:
            yield arg.value  # c_void_p, c_size_t, ...


def raw_access(event, args, ranges):
    """The label of what the ctypes event ``event`` reaches into among ``ranges``, if anything:
    code rewritten in place (a test's bytecode) or a built-in type's slots (``list.__eq__``) leave
    no other trace, and no test needs to touch their memory."""
    import sys

    if event == "ctypes.PyObj_FromPtr":
        addresses = [id(a) for a in args]
    elif event in RAW_EVENTS:
        simple = getattr(sys.modules.get("ctypes"), "_SimpleCData", None)
        addresses = list(_addresses(args, simple))
    else:
        return None
    for address in addresses:
        label = ranges.find(address)
        if label is not None:
            return label
    return None


def repository_relpath(repo):
    """``rel(path)``: a path as plans name graded files, from the repository (``repo``, else the
    working directory now), whatever directory a test changes to later (pytester's own)."""
    base = repo if os.path.isabs(repo) else os.getcwd()

    def rel(path):
        try:
            return os.path.relpath(os.path.abspath(str(path)), base)
        except Exception:
            return str(path)

    return rel


def builtin_types():
    import sys

    return [
        (t, "the built-in type " + t.__name__)
        for t in list(vars(sys.modules["builtins"]).values())
        if isinstance(t, type)
    ]


class GradedAudit:
    """A Python audit hook (3.8+; once added, nothing in the process can remove it) for a result
    channel: ``first_run(rel, code, codes)``, when given, is called with the code each graded file
    first runs as (as the import system, or pytest's rewriting of asserts, runs it) and
    ``tree(code)``, every code object nested in it; ``raw`` lists what ctypes reached into among
    the built-in types and those files' code objects."""

    def __init__(self, graded, rel, tree, first_run=None):
        self.graded = graded
        self.rel = rel
        self.first_run = first_run
        self.tree = tree
        self.seen = set()
        self.ranges = Ranges()
        self.ranges.add(builtin_types())
        self.raw = []

    def __call__(self, event, args):
        if event.startswith("ctypes."):
            try:
                label = raw_access(event, args, self.ranges)
                if label is not None and label not in self.raw and len(self.raw) < 5:
                    self.raw.append(label)
            except Exception:
                pass
            return
        if event != "exec":
            return
        try:
            code = args[0]
            rel = self.rel(code.co_filename)
            if rel not in self.graded or rel in self.seen:
                return
            self.seen.add(rel)
            codes = self.tree(code)
            label = " in " + rel
            for c in codes:
                # The code object; its tuples of constants and names and the constants in them (an
                # expected value a test compares with); before 3.11 its bytecode, a bytes object.
                what = "the code of " + c.co_name + label
                parts = [c, c.co_consts, c.co_names] + [k for k in c.co_consts if not isinstance(k, _CODE)]
                if not hasattr(c, "co_qualname"):
                    parts.append(c.co_code)
                self.ranges.add((part, what) for part in parts)
            if self.first_run is not None:
                self.first_run(rel, code, codes)
        except Exception:
            pass
