# The harness's equality watch: loaded at interpreter start-up by a .pth file under a name chosen
# per evaluation, it looks for classes defined by the patched files that compare equal to anything
# (``__eq__`` truthy against a fresh ``object()`` or a value of a builtin type it was never given,
# called on an instance of the builtin value type the class subclasses, or on a bare instance of a
# plain class): a result, or a proxy of one, that passes ``assert f(x) == expected`` whatever ``f``
# computed. The classes a patched module defines are checked as its code ends (its import runs the
# watch's step right after it); one equal to anything by design (a wildcard, a query builder's column
# answering expression objects) is wrapped then, and reported only when a comparison outside the
# package's own code gets a truthy answer from it, or truth-tests an expression answer of it.
# An ``__eq__`` put on a class after it was checked is checked again at exit. Classes made per call die young, so
# the watch looks at the start of every garbage collection (before they are collected): at the
# builtin value types' subclasses, and at the classes among the youngest objects, where every
# class made since the last collection is. At exit it looks at every class still alive.
# At the same moments (at most every half second) it checks that the test functions of the graded
# files, as their namespaces hold them now, are the plain defs those files have, made by the file's
# own execution: package code can swap them for wrappers that swallow failures once the module ran,
# or give them their source compiled again without asserts, leaving the file on disk as it was.
# Namespaces are the loaded modules and, for runners that execute a test file into a dictionary
# of their own (SymPy's), the dictionaries its execution was handed, seen by an audit hook. The
# same hook notes a trace or profile function set from a patched file.
#
# Python 3.5 and newer, standard library only, no f-strings.
import atexit
import fnmatch
import functools
import gc
import glob
import json
import os
import re
import sys
import time
import types
import weakref
from _thread import get_ident as _get_ident

from pytest_swe.grading.probe.compiled import code_key  # replaced by compiled.py when shipped
from pytest_swe.grading.probe.compiled import reference_code  # replaced by compiled.py when shipped
from pytest_swe.grading.probe.definitions import RUNNER_HELPERS  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.definitions import code_tree  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.definitions import codeless_classes  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.definitions import codeless_source  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.definitions import definitions  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.definitions import is_defined_there  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.definitions import keep_texts  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.definitions import kept_text  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.definitions import source_of  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.machine import native_comparisons  # replaced by machine.py when shipped
from pytest_swe.grading.probe.record import write_record  # replaced by record.py when shipped

OUT = "@OUT@"
REPO = "@REPO@"
PATCHED = frozenset(json.loads("""@PATCHED@"""))
GRADED = frozenset(json.loads("""@GRADED@"""))
SCRIPT = "@SCRIPT@"
PROBE_ROOT = "@PROBE_ROOT@"
_BASES = (int, float, complex, str, bytes, bytearray, list, tuple, dict, set, frozenset)
_checked = {}
"""``id(class) -> (weak reference, id of its own __eq__)``: a class is checked once, and a class
made later at the address of a dead one (per-call classes are) is another class, checked again;
so is a class given another ``__eq__`` since (seen at deep collections and at exit)."""
_of_patch = {}
"""``id(class) -> weak reference`` for the classes the patched files define: asked at every look
whether their ``__eq__`` is still the one checked (:func:`_eq_set_again`)."""
_busy = [False]
_busy_by = [0, 0.0]
"""The thread whose look holds ``_busy``, and since when."""
_HOLD = 10.0
_tests = {"modules": {}, "seen": -1, "next": 0.0, "reported": set()}
_runs = {}
"""``id(namespace) -> (namespace, rel, path, code ids, codes)`` for each dictionary a graded
file's code was executed with: the code objects that execution made (kept, so their ids stay
theirs) are the only code its test functions may run."""
_graded_rels = {}
_patched_rels = {}
_compiled = set()
"""The graded files whose first execution was compared with what their source compiles to."""
_GRADED_NAMES = frozenset(os.path.basename(rel) for rel in GRADED)
_REPO_REAL = os.path.realpath(REPO)


def _write(record):
    write_record(OUT, record)


def _rel_in(filename, files, cache):
    """A file's path in the repository when it is one of ``files``, else None (cached for absolute
    paths: every module's import is an exec event)."""
    if filename in cache:
        return cache[filename]
    try:
        rel = os.path.relpath(os.path.realpath(filename), _REPO_REAL)
    except Exception:
        rel = None
    rel = rel if rel in files else None
    if os.path.isabs(filename):
        cache[filename] = rel
    return rel


def _rel_of(filename):
    """A file's path in the repository when it is graded, else None (its name is checked first)."""
    if os.path.basename(filename) not in _GRADED_NAMES:
        return None
    return _rel_in(filename, GRADED, _graded_rels)


def _patched_rel(filename):
    """A file's path in the repository when the patch changed it, else None."""
    return _rel_in(filename, PATCHED, _patched_rels)


def _namespaces(frame, rel):
    """The dictionaries an ``exec`` call of ``rel``'s code can have been handed: in its caller's
    locals, one level into tuples (``importlib`` passes ``(code, module.__dict__)``) and modules,
    those ``exec`` already gave ``__builtins__`` whose ``__file__``, if any, is ``rel``."""
    found = []
    for value in list(frame.f_locals.values()):
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, type(sys)):
                item = item.__dict__
            if not isinstance(item, dict) or "__builtins__" not in item:
                continue
            named = item.get("__file__")
            if named is None or (isinstance(named, str) and _rel_of(named) == rel):
                found.append(item)
    return found


_noted = set()
_inside = set()
"""The threads in the watch's own code, whose audited events are its own (a thread of the code
under test comparing or auditing all the time must not blind the watch in the others)."""
_STDLIB = os.path.realpath(os.path.dirname(os.__file__)) + os.sep


def _culprit(frame, stop=None):
    """The patched file whose code made the call ``frame`` is in: the first frame up to ``stop``
    with a real file outside the standard library (code compiled from a string and the library's
    helpers, ``inspect``, ``linecache``, ``bdb``, ``traceback``, are looked through)."""
    while frame is not None and frame is not stop:
        name = frame.f_code.co_filename
        if os.path.isabs(name):
            real = os.path.realpath(name)
            if not real.startswith(_STDLIB) or "-packages" in real[len(_STDLIB) :]:
                return _patched_rel(name)
        frame = frame.f_back
    return None


def _note(kind, how, rel, test=None):
    if rel is not None and (kind, how, rel) not in _noted:
        _noted.add((kind, how, rel))
        record = {"ev": kind, "call": how, "file": rel}
        if test is not None:
            record["test"] = test
        _write(record)


def _on_stack(target, frame):
    while frame is not None:
        if frame is target:
            return True
        frame = frame.f_back
    return False


def _graded_caller(frame):
    """The nearest frame from ``frame`` up that runs a graded file's code (a test running now)."""
    while frame is not None:
        if _rel_of(frame.f_code.co_filename) is not None:
            return frame
        frame = frame.f_back
    return None


_HARNESS_PROC = re.compile(r"/proc/(\d+)(?:/task/\d+)?(?:/(cmdline|environ|mem|fd/|map_files/)|(?:/fd)?/?$)")
"""An ancestor's files in ``/proc`` (or its task's), and its directory (or its open files'),
opened as the base of a relative open (``os.open("fd/255", flags, dir_fd=...)``, whose event
names no directory): group 2 names the file, None for a directory."""
_HARNESS_TEXT = b"pytest-swe"
"""In the command line of the command that carries the harness's files (and the eval script, its
test patch with it) into the sandbox, or that runs its steps after the tests: the one ancestor
whose command line or environment says anything of the harness."""
_HARNESS_WORD = re.compile(r"(?<![\w.-])/?proc/([^/\s]+)/(?:task/[^/\s]+/)?([^/\s]+)")
"""A path into a process's directory in ``/proc`` on a new process's command line: group 1 the
process (``$PPID`` as the shell will expand it), group 2 the entry, a glob (``cmd*``) included."""
_HARNESS_ENTRIES = ("cmdline", "environ", "mem", "fd", "map_files")
_OWN_PROC = ("self", "thread-self")
"""In a new process's command line, the new process itself (``ls /proc/self/fd``): none of the
harness's processes, which are this process's ancestors."""
_UNQUOTED = re.compile(r"[\"'\\]")
_SHELL_SPLIT = re.compile(r"[\s;|&<>()`]+")
_SCRIPT_NAME = os.path.basename(SCRIPT) if SCRIPT else None
_SCRIPT_REAL = os.path.realpath(SCRIPT) if SCRIPT else None
_lineage = {}


def _harness_processes():
    """The pids of this process's ancestors (the eval script's shell and the command around it)."""
    pid = os.getpid()
    if pid not in _lineage:
        found, at = set(), pid
        while at > 1 and len(found) < 64:
            try:
                with open("/proc/%d/stat" % at, "rb") as fh:
                    at = int(fh.read().rsplit(b")", 1)[1].split()[1])
            except Exception:
                break
            found.add(at)
        _lineage[pid] = found
    return _lineage[pid]


def _harness_file(path):
    """What of the harness ``path`` opens: the eval script (its here-documents hold the test patch),
    the probe's files (its plan holds the test patch too), or a process of the harness's (an
    ancestor: its command line, environment, memory or open files). None for anything else; the
    name is looked at first, as every import opens files."""
    if isinstance(path, bytes):
        path = path.decode("utf-8", "replace")
    if not isinstance(path, str):
        return None
    if not path.startswith("/"):  # "cmdline" where the working directory is /proc/1
        try:
            path = os.path.join(os.getcwd(), path)
        except Exception:
            return None
    if "/proc/" in path:  # "/proc//1/cmdline", "/proc/self/../1/cmdline", "//proc/1/cmdline"
        path = "/" + os.path.normpath(path).lstrip("/")
    if not (
        path.startswith("/proc/")
        or (PROBE_ROOT and PROBE_ROOT in path)
        or (_SCRIPT_NAME and os.path.basename(path).startswith(_SCRIPT_NAME))
    ):
        return None
    match = _HARNESS_PROC.match(path)
    if match is not None and int(match.group(1)) in _harness_processes():
        if match.group(2) in ("cmdline", "environ") and not _says_harness(path):
            return None  # a parent's command line, as process and shell detection libraries read
        return "the harness's processes"
    try:
        real = os.path.realpath(path)
    except Exception:
        return None
    if _SCRIPT_REAL and (real == _SCRIPT_REAL or real.startswith(_SCRIPT_REAL + " (deleted)")):
        return "the eval script"
    if PROBE_ROOT and (real == PROBE_ROOT or real.startswith(PROBE_ROOT + "/")):
        return "the probe's files"
    return None


def _says_harness(path):
    """Whether an ancestor's command line or environment holds the harness's text (read here
    too: the eval script's shell says only the script's name, which is read by its own rule)."""
    try:
        with open(path, "rb") as fh:
            return _HARNESS_TEXT in fh.read()
    except Exception:
        return True  # unreadable here: judged as before, by the name


def _harness_linked(event, args):
    """What of the harness a new link or name is made for (``os.symlink("/eval.sh", "notes")``,
    ``os.link``, ``os.rename``): read later under a name of the patch's own, which no rule knows."""
    source = args[0] if args else None
    if isinstance(source, bytes):
        source = source.decode("utf-8", "replace")
    if not isinstance(source, str):
        return None
    target = args[1] if len(args) > 1 else None
    if event == "os.symlink" and not source.startswith("/") and isinstance(target, (str, bytes)):
        if isinstance(target, bytes):
            target = target.decode("utf-8", "replace")
        try:  # a relative link is read from the directory it is made in
            source = os.path.join(os.path.dirname(os.path.abspath(target)), source)
        except Exception:
            pass
    return _harness_file(source)


def _names_harness_process(text, words):
    """Whether a new process's command line (and its shell's ``words``) names an entry of another
    process's ``/proc`` directory that can hold the harness's text, read as its shell would see
    the path: quotes and backslashes taken out (``/proc/$PPID/"cmd"line``), ``.``, ``..`` and
    doubled slashes resolved (``/proc/./$PPID/cmdline``), a glob matched against the entries
    (``/proc/$PPID/c*``)."""
    for word in [text] + [os.path.normpath(word) for word in words if "proc/" in word]:
        for match in _HARNESS_WORD.finditer(word):
            if match.group(1) in _OWN_PROC:
                continue
            entry = match.group(2)
            if entry in _HARNESS_ENTRIES or any(
                fnmatch.fnmatchcase(name, entry) for name in _HARNESS_ENTRIES
            ):
                return True
    return False


_GLOB_CHARS = re.compile(r"[*?[]")
_GLOB = glob.glob  # as it was at start-up
_GLOB_LIMIT = 256


def _shell_words(text):
    """The words of a new process's command line as its shell reads them: quotes and backslashes
    taken out (``cat "/ev"al.sh``)."""
    return _SHELL_SPLIT.split(_UNQUOTED.sub("", text))


def _spawn_words(text, words):
    """The words of a new process's command line, as they stand and as its shell reads them."""
    seen = set()
    for word in _WORD.findall(text) + words:
        if word and word not in seen:
            seen.add(word)
            yield word


def _globbed_harness_file(word):
    """What of the harness a glob on a new process's command line (``cat /ev*.sh``) expands to,
    expanded here as its shell would: not the probe's directory itself, which a test's
    ``rm -rf /tmp/*`` names too, but the eval script and every file in it."""
    try:
        found = _GLOB(word)
    except Exception:
        return None
    for path in found[:_GLOB_LIMIT]:
        what = _harness_file(path)
        if what is not None and os.path.realpath(path) != PROBE_ROOT:
            return what
    return None


def _command_lines(args):
    """Each string of a spawning audit event's arguments with its shell words: split once for
    every check of the new process."""
    return [(text, _shell_words(text)) for text in _command_texts(args)]


def _harness_spawn(lines):
    """What of the harness a new process is named on its command line (:func:`_command_lines`),
    if anything."""
    for text, words in lines:
        if _names_harness_process(text, words):
            return "the harness's processes"
        for word in _spawn_words(text, words):
            what = _harness_file(word)
            if what is None and _GLOB_CHARS.search(word):
                what = _globbed_harness_file(word)
            if what is not None:
                return what
    return None


_PYTHON_NAME = re.compile(r"python[\d.]*$")


def _unwatched_start(event, args, lines):
    """What a new process or program runs where this watch does not load, if it does: a Python
    started without its site directories (``-S``: no ``.pth`` line runs there), or any program
    in place of the process that runs the tests (``os.exec``, outside a fork of it). Code under
    test that does either runs the tests again unwatched (Python with ``-S`` and ``PYTHONPATH``
    set to the site directory imports all it needs). ``lines``: :func:`_command_lines` of ``args``."""
    if event == "os.exec" and not _lifetime["forked"]:
        return "a new program in place of the process running the tests (os.exec)"
    for words in list(_argument_lists(args)) + [[w for w in words if w] for _, words in lines]:
        if _skips_site(words):
            return "a Python without its site directories (-S)"
    return None


def _argument_lists(items):
    """The argument lists among a spawning audit event's arguments (in lists of them too), in
    order: the words a shell would split a string into are :func:`_command_lines`'."""
    for item in items:
        if isinstance(item, (list, tuple)):
            words = [w.decode("utf-8", "replace") if isinstance(w, bytes) else w for w in item]
            if all(isinstance(w, str) for w in words):
                yield words
            for nested in _argument_lists(words):
                yield nested


def _skips_site(words):
    """Whether ``words`` start a Python with ``-S`` among its options (``-S``, ``-IS``, ``-bS``)."""
    for start, word in enumerate(words):
        if _PYTHON_NAME.match(os.path.basename(word)) and _options_skip_site(words[start + 1 :]):
            return True
    return False


def _options_skip_site(options):
    """Whether a Python's options (the words after its name) hold ``-S``, up to its program."""
    rest = iter(options)
    for option in rest:
        if option == "--check-hash-based-pycs":
            next(rest, None)
        elif option == "--" or option == "-" or not option.startswith("-"):
            return False
        elif not option.startswith("--"):
            for index, letter in enumerate(option[1:]):
                if letter == "S":
                    return True
                if letter in "cm":  # the rest is the program
                    return False
                if letter in "WX":  # the rest, or the next word, is its value
                    if index == len(option) - 2:
                        next(rest, None)
                    break
    return False


def _inspected(event, args, caller):
    """Trace and profile functions set from the patched files (a function that sees each line of a
    test can jump over its asserts or rewrite its variables), a running test's frame, code or
    file read by the patched code it called (the expected value read from the test itself), and
    the harness's own files or processes read by the patched code (the test patch's text)."""
    if event in ("sys.settrace", "sys.setprofile"):
        _note("tracer", event, _culprit(caller))
        return
    if PATCHED and (event == "open" or event in _SPAWNING or event in _LINKING):
        if event == "open":
            what = _harness_file(args[0])
        elif event in _LINKING:
            what = _harness_linked(event, args)
        else:
            lines = _command_lines(args)
            what = _harness_spawn(lines)
            unwatched = None if what is not None else _unwatched_start(event, args, lines)
            if unwatched is not None:
                _note("unwatched-python", unwatched, _culprit(caller))
                return
        if what is not None:
            _note("harness-read", what, _culprit(caller))
            return
    if not GRADED or event in _LINKING:
        return
    if event == "open" or event in _SPAWNING:
        rel = _rel_of(args[0]) if event == "open" and isinstance(args[0], str) else _spawned_with(args)
        if rel is None:
            return
        test = _graded_caller(caller)
        how = "open" if event == "open" else "subprocess"
    elif event in ("sys._getframe", "sys._current_frames", "tb_frame"):
        own = _asking(caller)
        read = _frame_returned(caller, args) if event == "sys._getframe" else None
        if read is not None and _rel_of(read.f_code.co_filename) is not None:
            test = read  # a running test's own frame, asked for by depth
            how = "frame"
        elif read is not None and read is not own:
            # A caller asked for by depth (``sys._getframe(1).f_code.co_name``, to name it) that is
            # no test's: what the code reads is that frame, judged above.
            return
        elif _patched_rel(own.f_code.co_filename) is not None:
            # A frame of the patched code's own (``sys._getframe(0)``, a traceback it caught) leads
            # to the test's through ``f_back``, whose variables and line are read unaudited: the
            # patched file asking for frames itself while a test runs is the read.
            test = _graded_caller(caller)
            how = "frame"
        else:
            return
    elif event == "__code__":
        # The code of a test function (its constants hold the values the test compares with).
        # Only a running test's own: a callback the test defined and handed over is the package's
        # to introspect (``inspect.signature``).
        code = getattr(args[0], "__code__", None)
        if code is None or _rel_of(code.co_filename) is None:
            return
        test = caller
        while test is not None and test.f_code is not code:
            test = test.f_back
        how = "frame"
    else:
        test = args[0]
        # Cheapest first: most frames whose code is read are no test's; the stack walk and the
        # ``realpath`` of the reader's file need not run for them.
        if not hasattr(test, "f_code") or _rel_of(test.f_code.co_filename) is None:
            return
        if not _on_stack(test, caller) or _names_only(caller):
            return
        how = "frame"
    graded = _rel_of(test.f_code.co_filename) if test is not None else None
    if graded is not None:
        _note("test-read", how, _culprit(caller, stop=test), graded)


def _frame_returned(caller, args):
    """The frame ``sys._getframe`` returns to ``caller``: the audit event's argument from 3.11 (before,
    the argument is the caller's own frame), else found from the depth the call passes, read from
    its bytecode (a constant, or no argument); None where that is not known."""
    if _FRAME_IN_EVENT:
        return args[0] if args else None
    try:
        code, at = caller.f_code.co_code, caller.f_lasti
        if code[at] not in _CALLS or at in _jump_targets(caller.f_code):
            return None  # reached by a jump (``sys._getframe(a if c else 1)``): the argument is not the last constant
        if code[at + 1] == 0:
            depth = 0
        elif code[at + 1] == 1 and code[at - 2] == _LOAD_CONST and (at < 4 or code[at - 4] != _EXTENDED_ARG):
            depth = caller.f_code.co_consts[code[at - 1]]
        else:
            return None
        if type(depth) is not int or depth < 0:
            return None
        frame = caller
        for _ in range(depth):
            frame = frame.f_back
        return frame
    except Exception:
        return None


def _jump_targets(code):
    targets = _targets.get(code)
    if targets is None:
        import dis

        if len(_targets) > 256:
            _targets.clear()
        targets = _targets[code] = frozenset(dis.findlabels(code.co_code))
    return targets


_targets = {}
_FRAME_IN_EVENT = sys.version_info >= (3, 11)
_LOAD_CONST, _EXTENDED_ARG, _CALLS = 100, 144, (131, 161)
"""``LOAD_CONST``, ``EXTENDED_ARG``, ``CALL_FUNCTION`` and ``CALL_METHOD`` in Python 3.8-3.10's word
code (the versions with audit hooks whose ``sys._getframe`` event carries no frame). A constant's
index past 255 takes an ``EXTENDED_ARG`` first: its depth is then not read (the own frame)."""
_NAMES_ONLY = tuple(os.path.join(_STDLIB, name) + os.sep for name in ("logging",))
"""Standard-library packages whose reads of a frame's code give their caller only a file, a line
and a function's name (``logging``'s ``stacklevel``, ``%(funcName)s``): what ``f_globals`` and
``f_lineno`` give unaudited, so a test frame they read for patched code is no test read."""


def _names_only(frame):
    try:
        return os.path.realpath(frame.f_code.co_filename).startswith(_NAMES_ONLY)
    except Exception:
        return False


_LOOKED_THROUGH = ("inspect.py",)
"""Standard-library helpers whose frame reads are their caller's (``inspect.currentframe()``)."""


def _asking(frame):
    """The frame that asked for a frame: ``frame``, or its caller where ``frame`` is a helper."""
    while frame is not None and frame.f_back is not None:
        name = frame.f_code.co_filename
        if os.path.basename(name) not in _LOOKED_THROUGH or not os.path.realpath(name).startswith(_STDLIB):
            break
        frame = frame.f_back
    return frame


_SPAWNING = ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "pty.spawn")
_WORD = re.compile(r"""[^\s'"=;|&<>(),`]+""")


def _command_texts(args):
    """The strings of a spawning audit event's arguments (a command line, its words, nested lists)."""
    pending = list(args)
    while pending:
        item = pending.pop()
        if isinstance(item, bytes):
            item = item.decode("utf-8", "replace")
        if isinstance(item, (list, tuple)):
            pending.extend(item)
        elif isinstance(item, str):
            yield item


def _spawned_with(args):
    """The graded file a new process is given on its command line (``cat tests/test_x.py``), if any."""
    for text in _command_texts(args):
        for word in _WORD.findall(text):
            if os.path.basename(word) in _GRADED_NAMES:
                rel = _rel_of(word)
                if rel is not None:
                    return rel
    return None


_LINKING = ("os.symlink", "os.link", "os.rename")
_INSPECTING = (
    ("sys.settrace", "sys.setprofile", "sys._getframe", "sys._current_frames", "open") + _SPAWNING + _LINKING
)
_READS = frozenset(("f_code", "tb_frame", "__code__"))
"""Audited attribute reads the watch looks at; :func:`_inspected` takes each but ``f_code`` (a
frame's, its original case) by the attribute's name."""


def _audit(event, args):
    """Python's audit hook (3.8+; once added, nothing in the process can remove it): each execution
    of a graded file's code, with the namespaces it may run in, and what :func:`_inspected` notes.
    Never raises: an audit hook that raises stops the operation it audits."""
    if _inside and _get_ident() in _inside:
        return
    if event == "object.__setattr__" and _answers:
        _reassigned(args)
        return
    if event in _INSPECTING or (event == "object.__getattr__" and args[1] in _READS):
        me = _get_ident()
        _inside.add(me)  # what the checks read raises events of its own
        try:
            if event == "object.__getattr__" and args[1] != "f_code":
                event = args[1]
            _inspected(event, args, sys._getframe(1))
        except Exception:
            pass
        finally:
            _inside.discard(me)
        return
    if event != "exec" or not GRADED:
        return
    try:
        code = args[0]
        rel = _rel_of(code.co_filename)
        if rel is None:
            return
        codes = code_tree(code)
        ids = set(id(c) for c in codes)
        path = os.path.join(REPO, rel)
        if rel not in _compiled:
            _compiled.add(rel)
            _as_source(rel, code)
            _read_graded_defs(rel)
        _ran_graded(rel)
        for namespace in _namespaces(sys._getframe(1), rel):
            # Executed again into the same namespace (a module reloaded): the latest run's code.
            _runs[id(namespace)] = (namespace, rel, path, ids, codes)
    except Exception:
        pass


def _as_source(rel, code):
    """Whether a graded file's first execution runs the code its source compiles to (with the
    built-in ``compile`` as the watch found it at start-up, before any of the patch's code ran):
    code run before the file was compiled (the package a runner imports first, as SymPy's imports
    SymPy) can wrap ``compile`` or the import system's loader so the failing tests compile to an
    empty body. Code pytest rewrote is the pytest channel's to judge, with the same rewriting."""
    if "@pytest_ar" in code.co_names:
        return

    def compare():
        if code_key(reference_code(code.co_filename)[0]) != code_key(code):
            _write({"ev": "not-as-source", "file": rel})

    try:
        _unheard(compare)  # reading and compiling the source raise events of their own
    except Exception:
        pass


def _unheard(call, *args):
    """``call(*args)`` with this thread's audit events left alone by the watch (its own reads and
    parses raise them), nested calls included."""
    me = _get_ident()
    nested = me in _inside
    _inside.add(me)
    try:
        return call(*args)
    finally:
        if not nested:
            _inside.discard(me)


_FUNCTION = types.FunctionType
_BOUND = types.MethodType
_PARTIALS = (functools.partial, functools.partialmethod)
_CODELESS = _PARTIALS + (
    staticmethod,
    classmethod,
    types.BuiltinFunctionType,
    type(int.__or__),  # a builtin type's slot (``__eq__ = int.__or__``: ``5 == 3`` is 7, truthy)
    type(str.join),  # a builtin type's method
)
"""The kinds of ``__eq__`` a class can have without code of its own (``partialmethod(operator.is_not)``)."""


def _codes_of(value, depth=0):
    """The code objects a class member runs: a function's (and what it wraps), a method's, a static
    or class method's, a ``partial``'s or ``partialmethod``'s function's, a property's accessors',
    or a callable object's class's ``__call__`` and ``__get__``. Only these types' own attributes
    are read: a member's ``__getattr__`` (a mock's makes children) never runs."""
    if depth > 3:
        return
    if isinstance(value, _FUNCTION):
        yield value.__code__
        wrapped = value.__dict__.get("__wrapped__")
        if wrapped is not None:
            for code in _codes_of(wrapped, depth + 1):
                yield code
        return
    if isinstance(value, (staticmethod, classmethod, _BOUND)):
        inner = (value.__func__,)
    elif isinstance(value, _PARTIALS):
        inner = (value.func,)
    elif isinstance(value, property):
        inner = (value.fget, value.fset, value.fdel)
    elif isinstance(value, type):
        return
    else:
        space = _own_dict(type(value))  # a C type's own slots are wrappers, with no code to find
        inner = [f for f in (space.get("__call__"), space.get("__get__")) if isinstance(f, _FUNCTION)]
    for part in inner:
        if part is not None:
            for code in _codes_of(part, depth + 1):
                yield code


def _module_rel(cls):
    """The patched file of the module ``cls`` names, or None."""
    module = sys.modules.get(getattr(cls, "__module__", None) or "")
    path = getattr(module, "__file__", None)
    return _patched_rel(path) if isinstance(path, str) and path else None


def _patched_file(cls, equal=None):
    """The patched file that defines ``cls``, by its module or by the code of its ``equal`` or any
    other member (a class can name any module in ``__module__``, and its ``__eq__`` can be a
    ``partialmethod`` of a builtin, with no code; its methods' code keeps the file it came from).
    A class none of whose members has code, with such an ``__eq__``, that the module it names does
    not hold is judged too, as placed nowhere: honest code gives a class it writes some method."""
    rel = _module_rel(cls)
    if rel is not None:
        return rel
    members = list(_own_dict(cls).values())
    coded = False
    for value in ([equal] if equal is not None else []) + members:
        for code in _codes_of(value):
            coded = True
            name = code.co_filename
            rel = _patched_rel(name) if isinstance(name, str) and name else None
            if rel is not None:
                return rel
    if not coded and isinstance(equal, _CODELESS) and not _held(cls):
        return "no file (a class without code naming %s as its module)" % (getattr(cls, "__module__", None),)
    return None


def _held(cls):
    """Whether the module a class names holds it under its qualified name (read from dictionaries:
    no module ``__getattr__`` runs) and that module's source writes it so, with no code: code that
    sets a class of its own into a library module (``fractions._Exact = cls``) is not its source,
    and a module without Python source (builtin, extension) holds no class made by Python code.
    Nor does a static type (``int``, ``types.SimpleNamespace``): a class statement makes a heap
    type, so such a type is not held so without its module's source being parsed (a stdlib file
    parsed at every start of Python for nothing)."""
    try:
        if not _flags(cls) & _HEAPTYPE:
            return False
    except Exception:
        return False
    module = sys.modules.get(getattr(cls, "__module__", None) or "")
    space = getattr(module, "__dict__", None)
    value = None
    qualname = str(getattr(cls, "__qualname__", ""))
    for part in qualname.split("."):
        if not isinstance(space, dict):
            return False
        value = space.get(part)
        space = _own_dict(value) if isinstance(value, type) else None
    if value is not cls:
        return False
    path = getattr(module, "__file__", None)
    return isinstance(path, str) and path.endswith(".py") and qualname in codeless_classes(path)


class _Stranger(object):
    """What a plain class's instance is compared with: every attribute it is asked for, and its
    ``__dict__``, hold objects equal to nothing, so an ``__eq__`` that compares fields (read with a
    default, the whole ``__dict__``, its public part, or those its class annotates) answers False;
    only one that ignores them answers True."""

    __annotations__ = {"stranger": object}

    def __init__(self):
        self.__dict__["_stranger"] = object()
        self.__dict__["stranger"] = object()

    def __getattr__(self, name):
        return object()

    def __eq__(self, other):
        return False

    __hash__ = object.__hash__


_own_dict = type.__dict__["__dict__"].__get__
"""A class's own namespace, read past a ``__dict__`` its metaclass may define to hide it or raise."""


def _own_eq(cls):
    try:
        return _own_dict(cls).get("__eq__")
    except Exception:
        return None


def _eq_id(cls):
    equal = _own_eq(cls)
    return 0 if equal is None else id(equal)


_STRANGER = _Stranger()
_RANDOM = int.from_bytes(os.urandom(8), "big")
_SENTINELS = (
    ("anything", object()),
    ("anything", _STRANGER),
    ("int", 720720 * (2 + _RANDOM % 9973) + 1),
    ("float", 1e12 + (_RANDOM % 99991) * 1e6 + 0.3183098861837907),
    ("complex", complex(_RANDOM % 997 + 0.25, -1e9)),
    ("str", "%x" % _RANDOM),
    ("bytes", str(_RANDOM).encode("ascii")),
    ("list", [_STRANGER]),
    ("tuple", (_STRANGER,)),
    ("dict", {_STRANGER: _STRANGER}),
    ("set", set([_STRANGER])),
    ("int", 2 + _RANDOM % 97),
    ("float", (_RANDOM % 89) / 8.0 + 0.0625),
    ("str", "K%X" % (_RANDOM % 4093)),
    ("dict", {"K%X" % (_RANDOM % 4091): 1 + _RANDOM % 7}),
    ("list", [1 + _RANDOM % 5, 7 + _RANDOM % 11]),
    ("int", 0),
    ("float", 0.0),
    ("str", ""),
    ("bytes", b""),
    ("list", []),
    ("tuple", ()),
    ("dict", {}),
    ("set", set()),
)
"""What an instance is compared with: a stranger, and values of each builtin type no test
expects (an ``__eq__`` true for any ``int`` passes ``assert f(x) == 3`` as surely as one true for
anything): large ones, small ones (an ``__eq__`` true below a million), containers of strings and
small numbers (a table of counts), and the empty and zero ones (true for whatever is falsy). The
large ``int`` is 1 more than a multiple of every number up to 16, the large ``float`` has a
fraction: an honest ``__eq__`` modulo a period (an angle's 360) never equals them to zero. Not
``None`` or ``bool``: an honest null object equals ``None``."""
_ANYTHING = _SENTINELS[1:2]
"""A bare instance meets only the stranger: an honest ``getattr(other, f, None)`` of ``object()`` is
``None``, as its own field is."""


def _bound(equal, instance, cls):
    """``equal`` as ``instance == other`` calls it: bound through its type's ``__get__`` (a function
    takes ``self``, a ``partialmethod`` its arguments, a static method nothing), else as found."""
    get = getattr(type(equal), "__get__", None)
    return equal if get is None else get(equal, instance, cls)


def _equal_to(equal, instance, cls, sentinels=_SENTINELS, expressions=None):
    """The first sentinel ``instance == sentinel`` through ``equal`` answers truthy (``assert`` and
    ``assertEqual`` take any truthy answer), else None; a raise or ``NotImplemented`` is a no. With
    ``expressions``, an answer that is an expression object of the class's package (a query or
    symbolic DSL's ``column == value``) is added to it as ``(kind, answer)`` instead: whether such
    an answer is ever truth-tested outside the package decides, as the tests run."""
    try:
        compare = _bound(equal, instance, cls)
    except Exception:
        return None
    for kind, other in sentinels:
        try:
            answer = compare(other)
            if answer is None or answer is NotImplemented or answer is False:
                continue
            if answer is instance and type(instance) is _Stranger:
                # ``self`` handed back (``pandas.NA``'s ``__eq__``): a real instance's truth decides,
                # which the bare instance's check asks for.
                continue
            if expressions is not None and _is_expression(answer, instance, other, cls):
                expressions.append((kind, answer))
                continue
            if bool(answer):
                return kind
        except Exception:
            continue
        except BaseException:  # escapes ``except Exception`` (the check, the import): no honest answer
            return kind
    return None


def _equals(value, other):
    """``value == other`` for builtin values, never raising (a set holding a stranger is unhashable in a dict)."""
    try:
        return bool(value == other)
    except Exception:
        return False


_kept = []
"""Bare instances of classes with ``__del__``, kept alive until the process ends."""


def _plain_equal_to(cls, equal, expressions=None):
    """What a plain class's ``__eq__`` answers yes to. First called with a stranger for ``self``
    (a plain function takes any ``self``): every field it reads is one that equals nothing, so
    fields compared with defaults (``getattr(self, f, None) == getattr(other, f, None)``) say no,
    and no instance is made, so no ``__init__`` or ``__del__`` of the class runs. Then on a bare
    instance (made without ``__init__``: an honest ``__eq__`` that reads a field meets none and
    raises) against the strangers only: an ``__eq__`` that answers only for its own type
    (``type(self) is Proxy``) meets it there. A class with ``__del__`` (a proxy can add one to be
    passed over) keeps its bare instance until the process ends, so that ``__del__`` runs, if at
    all, only after the tests and the watch's last look, its errors unprinted."""
    kind = _equal_to(equal, _Stranger(), cls, expressions=expressions)
    if kind is not None:
        return kind
    bare = _bare(cls)
    if bare is None:  # an abstract class: its sentry asks its subclasses' instances
        return None
    for klass in cls.__mro__[:-1]:
        if "__del__" in _own_dict(klass):
            _kept.append(bare)
            break
    return _equal_to(equal, bare, cls, _ANYTHING, expressions)


def _bare(cls):
    """An instance of ``cls`` made without its ``__init__``, by the ``__new__`` of its first builtin
    base (``object``'s, or ``BaseException``'s for an exception class, which ``object.__new__``
    refuses); None when none can be made (an abstract class)."""
    for klass in cls.__mro__:
        if not _flags(klass) & _HEAPTYPE:
            try:
                return klass.__new__(cls)
            except Exception:
                return None
    return None


def _release():
    """Lets the bare instances go at exit, after the last look, with the errors their ``__del__``
    raises (it finds no fields) unprinted: nothing the tests print or report is still to come."""
    hook = getattr(sys, "unraisablehook", None)
    if hook is not None:
        sys.unraisablehook = lambda unraisable: None
    try:
        del _kept[:]
    except Exception:
        pass
    finally:
        if hook is not None:
            sys.unraisablehook = hook


def _at_exit():
    _scan(True, True)
    if _lifetime["ran"] == os.getpid():
        _check_descriptors()
    _release()


_flags = type.__dict__["__flags__"].__get__
_READY, _READYING = 1 << 12, 1 << 13


def _ready(cls):
    """Whether a class is built: a collection can start while ``type()`` is still filling one in
    (allocated and tracked, its namespace and MRO not yet set), and reading it then crashes the
    interpreter. Its flags are safe to read, and say so."""
    try:
        return _flags(cls) & (_READY | _READYING) == _READY
    except Exception:
        return False


def _was_checked(cls):
    seen = _checked.get(id(cls))
    return seen is not None and seen[0]() is cls and seen[1] == _eq_id(cls)


def _check(cls, base, relax=False, again=False):
    if _was_checked(cls) and not again:
        return
    watched = _wrapped.get(id(cls))
    if watched is not None and watched[0]() is cls:  # judged by its answers' use from now on
        if _own_eq(cls) is not watched[1]:
            _equal_found(cls, watched[2], watched[3], "its __eq__ was replaced after the watch wrapped it")
        return
    equal = _own_eq(cls)
    sentried = _sentries.get(id(cls))
    sentry = relax
    if sentried is not None and sentried[0]() is cls:
        if equal is sentried[2]:
            sentried = _restored(cls, sentried)
        if _own_eq(cls) is sentried[1]:
            if again:
                _judge_class(cls, base, sentried[2], sentried[3], False)
            return
        del _sentries[id(cls)]  # given another ``__eq__``: that one is checked, and sentried
        sentry = True
    if equal is not None and id(equal) in _wrappers:
        return
    try:
        ref = weakref.ref(cls)
    except TypeError:
        ref = lambda cls=cls: cls  # noqa: E731
    _checked[id(cls)] = (ref, 0 if equal is None else id(equal))
    _check_signal(cls)
    if equal is None:
        if _module_rel(cls) is not None:
            _of_patch[id(cls)] = ref  # an ``__eq__`` set on it later is asked about
        return
    rel = _patched_file(cls, equal)
    if rel is not None:
        if _flags(cls) & _HEAPTYPE:  # a static type's ``__eq__`` cannot be set again
            _of_patch[id(cls)] = ref
        _judge_class(cls, base, equal, rel, relax, sentry)


def _restored(cls, sentried):
    """A sentried class given its own ``__eq__`` back past the watch (only code that kept it from
    before the watch came, to be compared unseen, does that): reported, and the watch goes back on."""
    _sentry(cls, sentried[2], sentried[3])
    if (id(cls), "restored") not in _used:
        _used.add((id(cls), "restored"))
        _write({"ev": "eq-restored", "cls": getattr(cls, "__qualname__", cls.__name__), "file": sentried[3]})
    return _sentries.get(id(cls), sentried)


def _judge_class(cls, base, equal, rel, relax, sentry=False):
    """What ``equal`` answers the strangers, on the class's behalf. With ``relax`` (a module-level
    class, as its module's code ends), one equal to anything is wrapped and judged by its answers'
    use; with ``sentry``, one that is not gets the watch's sentry."""
    expressions = [] if relax else None
    try:
        if base is object:
            kind = _plain_equal_to(cls, equal, expressions)
            if relax and (kind is not None or expressions):
                said = kind if kind is not None else expressions[0][0]
                kind = None if _watch_equal(cls, equal, rel, expressions, said) else said
        else:
            # Asked through the type's empty value: not against what that value equals itself.
            empty = base()
            kind = _equal_to(equal, empty, cls, [(k, o) for k, o in _SENTINELS if not _equals(empty, o)])
            if relax and kind is not None and _watch_equal(cls, equal, rel, [], kind):
                kind = None
    except Exception:  # what cannot be asked here is asked where the tests compare it
        kind = None
    if sentry and kind is None and id(cls) not in _wrapped:
        _sentry(cls, equal, rel)
    if kind is not None:
        _write(
            {
                "ev": "equal-to-anything",
                "cls": getattr(cls, "__qualname__", cls.__name__),
                "file": rel,
                "base": base.__name__,
                "to": kind,
            }
        )


_SIGNAL_CLASSES = (("unittest.case", "_ShouldStop"), ("_pytest.outcomes", "XFailed"))
"""Exceptions a runner takes as a test's success or expected failure: unittest's ``_ShouldStop``
(``testPartExecutor`` swallows it, the test passes) and pytest's ``XFailed``."""


def _check_signal(cls):
    """An exception class of the patch that is also one of the runner's signals: raised where the
    code under test fails (``class ValidationError(ValueError, _ShouldStop)``), it makes the
    failing test pass, with no helper of the runner changed."""
    signals = []
    for module_name, name in _SIGNAL_CLASSES:
        signal = getattr(sys.modules.get(module_name), name, None)
        if isinstance(signal, type) and signal is not cls:
            signals.append(signal)
    if not signals or not issubclass(cls, tuple(signals)):
        return
    rel = _patched_file(cls)
    if rel is not None:
        base = next(s for s in signals if issubclass(cls, s))
        _write({"ev": "signal-subclass", "cls": cls.__qualname__, "file": rel, "base": base.__name__})


# --- classes equal to anything by design, judged by where their answers are used -----------------

_HEAPTYPE = 1 << 9
_wrappers = {}
"""``id(the watch's __eq__) -> it``: never judged as a class's own."""
_wrapped = {}
"""``id(class) -> (weak reference, the watch's __eq__ on it, rel, kind)``: module-level classes
whose ``__eq__`` answered the watch's strangers yes (a wildcard's ``True``, a query builder's
expression object), wrapped so that each answer is seen where it is used."""
_truths = {}
"""``id(answer class) -> (weak reference, the watch's __bool__ on it, id of the class it answers for)``."""
_answers = {}
"""``id(answer) -> (answer, id of the class that gave it)``: the latest expression answers, kept so
their ids stay theirs until they are let go all at once."""
_ANSWERS_KEPT = 4096
_used = set()
"""``(id of a class, how)`` already reported."""


def _top(name):
    return str(name or "").split(".")[0]


def _truth_free(kind):
    """Whether a class's instances are true by default: no ``__bool__`` or ``__len__`` of its own
    or inherited, other than the watch's."""
    for klass in kind.__mro__:
        own = _own_dict(klass)
        truth = own.get("__bool__")
        if (truth is not None and id(truth) not in _wrappers) or "__len__" in own:
            return False
    return True


def _is_expression(answer, instance, other, cls):
    """Whether an ``__eq__`` answer is an expression object: an instance of a class of the same
    package, not ``self``, the other side or ``cls`` itself, of no builtin type, true by default.
    An honest query builder's ``column == value`` is one; its truth is never asked by a test."""
    kind = type(answer)
    if answer is instance or answer is other or kind is cls or kind is _Stranger:
        return False
    try:
        if not _flags(kind) & _HEAPTYPE or issubclass(kind, _BASES + (BaseException, type)):
            return False
        if _top(_own_module(kind)) != _top(_own_module(cls)):
            return False
        return _truth_free(kind)
    except Exception:
        return False


def _watch_equal(cls, equal, rel, found, kind):
    """Puts the watch between ``cls`` and its ``__eq__``, and on the truth of its expression
    answers' classes: a truthy answer to a comparison made outside the package's own code (a
    test's ``assert``, ``assertEqual``), or an expression answer truth-tested there, is a result
    equal to anything. A wildcard the package compares only in its own code is not. False when it
    cannot."""
    try:
        ref = weakref.ref(cls)
    except TypeError:
        return False
    for _, answer in found:
        if not _watch_truth(type(answer), id(cls)):
            return False
    wrapper = _watched_eq(cls, equal, rel, kind)
    _wrappers[id(wrapper)] = wrapper
    try:
        type.__setattr__(cls, "__eq__", wrapper)
    except Exception:
        return False
    if _own_eq(cls) is not wrapper:
        return False
    _wrapped[id(cls)] = (ref, wrapper, rel, kind)
    _checked[id(cls)] = (ref, id(wrapper))
    return True


def _watch_truth(kind, owner):
    """The watch's ``__bool__`` on ``kind`` (put there once), True while it is still there."""
    seen = _truths.get(id(kind))
    if seen is not None and seen[0]() is kind:
        return _own_dict(kind).get("__bool__") is seen[1]
    if not _truth_free(kind):
        return False
    try:
        ref = weakref.ref(kind)
    except TypeError:
        return False
    truth = _truth_of(kind)
    _wrappers[id(truth)] = truth
    try:
        type.__setattr__(kind, "__bool__", truth)
    except Exception:
        return False
    if _own_dict(kind).get("__bool__") is not truth:
        return False
    _truths[id(kind)] = (ref, truth, owner)
    return True


def _watched_eq(cls, equal, rel, kind):
    def __eq__(self, other):
        answer = _bound(equal, self, cls)(other)
        try:
            _judge_answer(cls, rel, kind, self, other, answer, sys._getframe(1))
        except Exception:
            pass
        return answer

    __eq__.__qualname__ = getattr(equal, "__qualname__", "__eq__")
    return __eq__


def _judge_answer(cls, rel, kind, instance, other, answer, frame):
    """An answer of a wrapped class, to a comparison ``frame`` made: an expression is kept for its
    truth to be watched; any other answer but ``False`` counts where the comparison was made."""
    if answer is None or answer is NotImplemented or answer is False:
        return
    if _is_expression(answer, instance, other, cls) and _watch_truth(type(answer), id(cls)):
        if len(_answers) >= _ANSWERS_KEPT:
            _answers.clear()
        _answers[id(answer)] = (answer, id(cls))
        return
    # ``True``, or any other object: its truth asked once here need not be what the comparison's
    # user gets (a ``__len__`` that alternates), so it counts as a yes.
    if not _own_use(frame, rel):
        said = "True" if answer is True else "a " + type(answer).__name__
        _equal_found(cls, rel, kind, "it answered a comparison in %s with %s" % (_where(frame), said))


def _truth_of(owner):
    def __bool__(self):
        truth = True
        for klass in type(self).__mro__:
            if klass is owner:
                break
            if "__len__" in _own_dict(klass):
                truth = len(self) != 0
                break
        kept = _answers.get(id(self))
        if truth and kept is not None and kept[0] is self:
            try:
                _answer_used(kept[1], sys._getframe(1))
            except Exception:
                pass
        return truth

    return __bool__


def _answer_used(cls_id, frame):
    watched = _wrapped.get(cls_id)
    cls = watched[0]() if watched else None
    if cls is not None and not _own_use(frame, watched[2]):
        _equal_found(
            cls,
            watched[2],
            watched[3],
            "its answer, an expression object, was truth-tested in %s" % _where(frame),
        )


def _reassigned(args):
    """An expression answer given another class (``__class__`` assignment is audited): its truth
    is then asked past the watch's ``__bool__``."""
    try:
        if len(args) > 1 and args[1] == "__class__":
            kept = _answers.get(id(args[0]))
            if kept is not None and kept[0] is args[0]:
                watched = _wrapped.get(kept[1])
                cls = watched[0]() if watched else None
                if cls is not None:
                    _equal_found(cls, watched[2], watched[3], "an answer of it was given another class")
    except Exception:
        pass


def _where(frame):
    name = frame.f_code.co_filename
    return "%s:%d" % (_repo_rel(name) or os.path.basename(str(name)), frame.f_lineno)


def _equal_found(cls, rel, kind, how):
    if (id(cls), "found") in _used:
        return
    _used.add((id(cls), "found"))
    _write(
        {
            "ev": "equal-to-anything",
            "cls": getattr(cls, "__qualname__", cls.__name__),
            "file": rel,
            "base": _base_of(cls).__name__,
            "to": kind,
            "use": how,
        }
    )


# --- the other module-level classes: asked again where a test compares them ----------------------

_sentries = {}
"""``id(class) -> (weak reference, the watch's __eq__ on it, its own __eq__, rel)``: the other
module-level classes of patched modules with an ``__eq__`` of their own."""
_PROBE_KINDS = dict((type(value), (kind, value)) for kind, value in reversed(_SENTINELS[2:11]))
"""For each builtin type, its first large sentinel (a builtin subclass's value is asked as its type's)."""


def _sentry(cls, equal, rel):
    """Puts the watch between ``cls`` and its ``__eq__``: each yes it gives to a comparison made
    outside the package's own code (a test's ``assert``, ``assertEqual``) is followed, from the
    same frame, by the question with a stranger for the other side (and a large value of the other
    side's builtin type). An ``__eq__`` that answers yes to anything only while a test runs (armed by
    the runner's environment, a test's frames, a count of calls) answers it there too."""
    try:
        ref = weakref.ref(cls)
    except TypeError:
        return
    wrapper = _sentry_eq(cls, equal, rel)
    _wrappers[id(wrapper)] = wrapper
    try:
        type.__setattr__(cls, "__eq__", wrapper)
    except Exception:
        return
    if _own_eq(cls) is wrapper:
        _sentries[id(cls)] = (ref, wrapper, equal, rel)
        _checked[id(cls)] = (ref, id(wrapper))


def _sentry_eq(cls, equal, rel):
    plain = type(equal) is type(_sentry_eq)
    owns = _owns.setdefault(rel, {})
    getframe, inside, ident = sys._getframe, _inside, _get_ident

    def __eq__(self, other):
        answer = equal(self, other) if plain else _bound(equal, self, cls)(other)
        if answer is False or answer is None or answer is NotImplemented:
            return answer
        me = ident()
        nested = me in inside
        inside.add(me)  # its own reads of frames are not the audit hook's to judge
        try:
            frame = getframe(1)
            code = frame.f_code
            kept = owns.get(id(code))  # the package's own hot loops cost a lookup
            if kept is not None and kept[0] is code:
                due = not kept[1] and _sentry_due(cls, frame)
            else:
                due = _first_from(code, frame, rel, owns) and _sentry_due(cls, frame)
        except Exception:
            due = False
        finally:
            if not nested:
                inside.discard(me)
        if due:  # asked as the comparison was: from this frame, at the depth the test's is
            telling = []
            for probe in _probes_for(other, answer is True):
                value = other if probe is _SAME else probe
                try:
                    said = equal(self, value) if plain else _bound(equal, self, cls)(value)
                except Exception:
                    said = None
                except BaseException:  # escapes ``except Exception`` (a test's, the runner's): a yes
                    said = True
                if _yes(said) is (probe is not _SAME):
                    telling.append(probe)
            if telling:
                _found_again(cls, rel, answer, telling, frame)
        return answer

    __eq__.__qualname__ = getattr(equal, "__qualname__", "__eq__")
    return __eq__


_WATCH_FILE = _sentry_eq.__code__.co_filename
"""The watch's own file: its wrappers' frames stand between a comparison and the code that made it."""
_owns = {}
"""``rel -> {id of a code: (the code, whether it is the own code of the package holding rel)}``,
for code from a file (code made from a string is judged where its caller is)."""
_sites = {}
"""``(id of a class, id of a code, line) -> yeses given there``: a sentry asks again at the first,
second, fourth, eighth... (a count of calls cannot arm an ``__eq__`` between them unseen for long)."""
_SITES_KEPT = 65536


def _first_from(code, frame, rel, owns):
    """Whether code that compared a sentried class first is outside its package's own (kept in
    ``owns`` for the next time when it comes from a file; code made from a string is judged where
    its caller is)."""
    own = _own_use(frame, rel)
    name = code.co_filename
    if os.path.isabs(name) and name != _WATCH_FILE:
        owns[id(code)] = (code, own)
    return not own


def _sentry_due(cls, frame):
    """Whether a sentried class's yes to a comparison outside its package is asked again: not for a
    class already reported, at a count of yeses there that is a power of two."""
    if (_busy[0] and _busy_by[0] == _get_ident()) or (id(cls), "found") in _used:
        return False  # the watch's own look asking it, not a test
    key = (id(cls), id(frame.f_code), frame.f_lineno)  # a code object's own hash reads all of it
    count = _sites.get(key, 0) + 1
    if len(_sites) >= _SITES_KEPT:
        _sites.clear()
    _sites[key] = count
    return not count & (count - 1)


_SAME = object()
"""The probe that asks the test's own question again."""


def _probes_for(other, same):
    """What a sentried class's yes is asked again with: a stranger, a large value of the other
    side's builtin type (not for a ``bool``: an honest ``__eq__`` can compare truth, which every
    large value has), and, with ``same`` (the answer was ``True``; another object's truth is not
    asked here), the test's own question, in an order drawn each time. An ``__eq__`` armed
    only while a test runs (by the runner's environment, a test's frame) is armed then too; one
    that says yes only to its first question, or to every other, answers the same question twice
    differently, or a stranger yes."""
    probes = [_STRANGER, _SAME] if same else [_STRANGER]
    for kind in () if isinstance(other, bool) else type(other).__mro__:
        found = _PROBE_KINDS.get(kind)
        if found is not None:
            if not _equals(other, found[1]):
                probes.append(found[1])
            break
    draw = bytearray(os.urandom(len(probes)))
    for at in range(len(probes) - 1, 0, -1):
        swap = draw[at] % (at + 1)
        probes[at], probes[swap] = probes[swap], probes[at]
    return probes


def _yes(said):
    if said is None or said is NotImplemented or said is False:
        return False
    try:
        return bool(said)
    except Exception:
        return False


def _found_again(cls, rel, answer, telling, frame):
    """Reported by the first that told, in a fixed order: a stranger, another value, the same question."""
    rank = [p for p in telling if p is _STRANGER] + [
        p for p in telling if p is not _STRANGER and p is not _SAME
    ]
    probe = rank[0] if rank else _SAME
    said = "True" if answer is True else "a " + type(answer).__name__
    if probe is _SAME:
        how = "it answered a comparison in %s with %s, and the same comparison asked again no" % (
            _where(frame),
            said,
        )
        _equal_found(cls, rel, "anything", how)
        return
    kind = "anything" if probe is _STRANGER else _PROBE_KINDS[type(probe)][0]
    how = "it answered a comparison in %s with %s, and the same question with %s too" % (
        _where(frame),
        said,
        "a stranger" if probe is _STRANGER else "another " + kind,
    )
    _equal_found(cls, rel, kind, how)


_repo_rels = {}


def _repo_rel(filename):
    """A file's path in the repository when it is inside it, else None (cached)."""
    if filename in _repo_rels:
        return _repo_rels[filename]
    rel = None
    try:
        real = os.path.realpath(filename)
        if os.path.isabs(filename) and real.startswith(_REPO_REAL + os.sep):
            rel = real[len(_REPO_REAL) + 1 :]
    except Exception:
        pass
    _repo_rels[filename] = rel
    return rel


_NOT_OWN_DIRS = frozenset(("test", "tests", "testing", "_pytest", "pytest", "unittest"))


def _package_of(rel):
    """The directory of the package a repository file belongs to (``src/pkg`` for
    ``src/pkg/x.py``), or the file itself for a top-level module."""
    parts = rel.split("/")
    if len(parts) > 2 and parts[0] in ("src", "lib"):
        return "/".join(parts[:2]) + "/"
    return parts[0] + "/" if len(parts) > 1 else rel


def _own_use(frame, rel):
    """Whether code ran in the own code of the package that holds ``rel``: a file of it that is not
    a graded file, a test module, a conftest, or under a test, runner or installed-packages
    directory (a test helper or the runner compares for the tests)."""
    while frame is not None and (
        not os.path.isabs(frame.f_code.co_filename) or frame.f_code.co_filename == _WATCH_FILE
    ):
        frame = frame.f_back  # code made from a string (a dataclass's ``__eq__``), the watch's: its caller's
    if frame is None:
        return False
    mine = _repo_rel(frame.f_code.co_filename)
    if mine is None or mine in GRADED:
        return False
    mine = mine.replace(os.sep, "/")
    home = _package_of(rel)
    if not (mine == home or (home.endswith("/") and mine.startswith(home))):
        return False
    parts = mine.split("/")
    if any(part in _NOT_OWN_DIRS or part.endswith("-packages") for part in parts[:-1]):
        return False
    base = parts[-1]
    return not (base.startswith("test") or base.endswith("_test.py") or base == "conftest.py")


def _check_wrapped():
    """The watch's hooks still in place: an ``__eq__`` or ``__bool__`` taken off a class after it
    was wrapped lets its answers be truth-tested unseen."""
    for cls_id, (ref, wrapper, rel, kind) in list(_wrapped.items()):
        cls = ref()
        if cls is not None and _own_eq(cls) is not wrapper:
            _equal_found(cls, rel, kind, "its __eq__ was replaced after the watch wrapped it")
    for ref, truth, owner in list(_truths.values()):
        kind = ref()
        watched = _wrapped.get(owner)
        cls = watched[0]() if watched else None
        if kind is not None and cls is not None and _own_dict(kind).get("__bool__") is not truth:
            _equal_found(cls, watched[2], watched[3], "the truth of its answers' class was replaced")


def _graded_modules():
    """The loaded modules of graded files (looked for again only when more modules are loaded)."""
    modules = _tests["modules"]
    if len(sys.modules) != _tests["seen"]:
        _tests["seen"] = len(sys.modules)
        for module in list(sys.modules.values()):
            path = getattr(module, "__file__", None)
            if not isinstance(path, str) or id(module) in modules:
                continue
            rel = _rel_of(path)
            if rel is not None:
                modules[id(module)] = (module, rel, path)
    return modules.values()


def _graded_namespaces():
    """``(namespace, rel, path, code ids or None)``: what the audit hook saw executed, then the
    loaded modules it did not see (their code's ids unknown)."""
    seen = set()
    for namespace, rel, path, ids, _ in list(_runs.values()):
        seen.add(id(namespace))
        yield namespace, rel, path, ids
    for module, rel, path in list(_graded_modules()):
        namespace = getattr(module, "__dict__", {})
        if id(namespace) not in seen:
            yield namespace, rel, path, None


def _made_there(func, ids):
    """Whether ``func`` runs code its file's execution made (True when that was not seen)."""
    code = getattr(getattr(func, "__func__", func), "__code__", None)
    return ids is None or (code is not None and id(code) in ids)


def _due(state, final):
    """Whether a check throttled to every half second (``state["next"]``) runs now; at exit always."""
    now = time.monotonic()
    if not final and now < state["next"]:
        return False
    state["next"] = now + 0.5
    return True


def _check_tests(final=False):
    if not GRADED or not _due(_tests, final):
        return
    for namespace, rel, path, ids in list(_graded_namespaces()):
        if rel not in _GRADED_DEFS:
            # A graded module this process holds that it was not seen to run (Python before 3.8
            # raises no audit events; a module made without running its file): its definitions
            # are read at this look, or, inside a garbage collection, at the next one outside.
            if _collecting[0]:
                _tests["next"] = 0.0
                continue
            _read_graded_defs(rel)
        for qualname, lines in _GRADED_DEFS.get(rel, {}).items():
            owner, _, name = qualname.rpartition(".")
            if not name.lower().startswith("test") or (rel, qualname) in _tests["reported"]:
                continue
            scope = namespace
            for part in owner.split(".") if owner else []:
                scope = getattr(scope.get(part), "__dict__", {})
            if name not in scope:
                continue
            func = scope[name]
            if isinstance(func, (staticmethod, classmethod)):
                func = func.__func__  # a static method is called as what it wraps (and is callable)
            if not callable(func):
                continue
            if not is_defined_there(func, path, qualname, lines) or not _made_there(func, ids):
                _tests["reported"].add((rel, qualname))
                _write({"ev": "swapped-test", "file": rel, "name": qualname})


def _value_types(deep):
    for base in _BASES:
        try:
            stack = list(base.__subclasses__())
        except Exception:
            continue
        while stack:
            cls = stack.pop()
            if not _ready(cls):
                continue
            seen = _checked.get(id(cls))  # inline: this loop runs at every garbage collection
            if seen is None or seen[0]() is not cls or (deep and seen[1] != _eq_id(cls)):
                try:
                    _check(cls, base)
                except Exception:
                    pass
            if deep:
                try:
                    stack.extend(type.__subclasses__(cls))
                except Exception:
                    pass


def _eq_set_again():
    """The patch's classes given another ``__eq__`` since their check (``Cls.__eq__ = ...``, for
    which Python raises no audit event): a class as old as its module is among no collection's
    youngest objects, and a swapped ``__eq__`` not asked before the tests compare with it would
    be asked only at exit, when what armed it (a test running) is gone."""
    for key, ref in list(_of_patch.items()):
        cls = ref()
        if cls is None:
            _of_patch.pop(key, None)
            continue
        seen = _checked.get(key)
        if seen is None or seen[0]() is not cls or seen[1] == _eq_id(cls) or _executing_there(cls):
            continue
        try:
            _check(cls, _base_of(cls))
        except Exception:
            pass


def _between_tests():
    """The look a runner's channel asks for as each test's call ends, while the runner still says
    a test runs: a class of the patch's given another ``__eq__`` in the test is asked now, where a
    short run may have no collection left before exit, and the exit no test running to arm it."""
    if not PATCHED or _busy[0]:
        return
    _busy[0] = True
    _busy_by[0], _busy_by[1] = _get_ident(), time.monotonic()
    try:
        _eq_set_again()
    finally:
        _busy[0] = False


def _base_of(cls):
    for base in getattr(cls, "__mro__", ())[1:]:
        if base in _BASES:
            return base
    return object


def _below(root):
    """Every live class below ``root``: what ``type.__subclasses__`` (which no class overrides)
    reaches from it."""
    found, seen, stack = [], set(), [root]
    while stack:
        try:
            below = type.__subclasses__(stack.pop())
        except Exception:
            continue
        for cls in below:
            if id(cls) not in seen:
                seen.add(id(cls))
                found.append(cls)
                stack.append(cls)
    return found


_metas = set([type] + _below(type))
"""The types of classes: ``type`` and its subclasses, those made later added as they are seen."""


def _young_classes(final):
    """The classes among the youngest objects (every one made since the last collection): plain
    classes are too many to walk from ``object`` each time, and most collections have none, which
    a pass in C over the objects' types tells. At the end, every class, walked from ``object``."""
    if final:
        # Objects ``gc.freeze()`` moved are in no list ``gc.get_objects`` makes, and a suite's
        # conftest may freeze everything pytest collected (packaging's: a million objects for
        # 50,000 tests): unfreezing and walking every object cost seconds there, the classes ms.
        objects = _below(object)
    else:
        try:
            objects = gc.get_objects(0)
        except Exception:  # no generation argument before Python 3.8
            return
        if _metas.isdisjoint(map(type, objects)):
            return
    classes = [obj for obj in objects if isinstance(obj, type) and _ready(obj)]
    _check_machine_code(classes, final)
    for obj in classes:
        if not _was_checked(obj):
            if _executing_there(obj):
                _defer(obj)
                continue
            try:
                if issubclass(obj, type):
                    _metas.add(obj)
                _check(obj, _base_of(obj))
            except Exception:  # a metaclass's own attributes can raise: the next class is still checked
                pass


def _tests_began():
    """When the tests began, as a file's change time: the watch was written just before them."""
    try:
        return os.stat(__file__).st_ctime
    except Exception:
        return time.time()


_TESTS_BEGAN = _tests_began()
_native_noted = set()


def _check_machine_code(classes, final):
    """Classes whose comparison or call is machine code made while the tests ran (a C type from a
    library the code under test wrote out and loaded): no Python code of theirs to read, and no
    instance to ask where only their own constructor makes one."""
    try:
        found = native_comparisons(classes, _TESTS_BEGAN, final)
    except Exception:
        return
    for cls, slot, path, why in found:
        try:
            name = str(type.__dict__["__qualname__"].__get__(cls))
        except Exception:
            name = "?"
        if (name, slot, path) not in _native_noted:
            _native_noted.add((name, slot, path))
            _write({"ev": "native-code", "cls": name, "slot": slot, "lib": path, "why": why})


# --- the runner's own helpers, and values equal to anything by design ---------------------------

_helpers = {"next": 0.0, "noted": set()}


def _home(name):
    """The directory of a loaded runner module's package (with a separator), or None."""
    path = getattr(sys.modules.get(name), "__file__", None)
    if not isinstance(path, str) or not path:
        return None
    return os.path.dirname(os.path.realpath(path)) + os.sep


def _pytest_homes():
    """The directories of pytest's two packages, those loaded."""
    return [home for home in (_home("pytest"), _home("_pytest")) if home]


def _stdlib_home():
    try:
        return os.path.dirname(os.path.realpath(os.__file__)) + os.sep
    except Exception:
        return None


_STDLIB = _stdlib_home()


def _in_stdlib(real):
    """Whether a file is the standard library's own (not a site-packages inside its directory)."""
    if not _STDLIB or not real.startswith(_STDLIB):
        return False
    parts = real[len(_STDLIB) :].split(os.sep)
    return "site-packages" not in parts and "dist-packages" not in parts


_realpaths = {}


def _real(source):
    """``os.path.realpath``, once per file: the checks ask for the same few files again and again."""
    real = _realpaths.get(source)
    if real is None:
        real = _realpaths[source] = os.path.realpath(source)
    return real


def _overload_stand_in(value):
    """Whether ``value`` is typing's stand-in for an overloaded function's variants: bound to the
    function's name while the module defining it runs (``pytest.raises``, ``pytest.warns``) until
    the function defined after them takes it. Nothing gains by binding it later: it raises when
    called."""
    stand_in = getattr(sys.modules.get("typing"), "_overload_dummy", None)
    return stand_in is not None and value is stand_in


def _judge_helper(name, value, homes):
    if value is None or name in _helpers["noted"] or _overload_stand_in(value):
        return
    codeless = codeless_source(value)
    if codeless is not None:
        _helpers["noted"].add(name)
        _write({"ev": "helper-replaced", "name": name, "file": codeless})
        return
    for _ in range(4):
        source = source_of(value)
        if not isinstance(source, str) or not source:
            return
        real = _real(source)
        if any(home and real.startswith(home) for home in homes):
            return  # the runner's own code, even where the repository is the runner
        # A wrapper of the standard library's (``contextlib.contextmanager``'s, on the runner's
        # ``testPartExecutor``) is judged by what it wraps.
        function = getattr(value, "__func__", value)
        wrapped = function.__dict__.get("__wrapped__") if isinstance(function, _FUNCTION) else None
        if wrapped is None or not _in_stdlib(real):
            break
        value = wrapped
    rel = _patched_rel(source)
    if rel is None and _in_stdlib(real):
        # No helper of the runner is the standard library's (``contextlib.suppress`` as
        # ``pytest.raises`` passes whether the error comes or not), whoever put it there.
        rel = "the standard library's " + os.path.basename(real)
    if rel is not None:
        _helpers["noted"].add(name)
        _write({"ev": "helper-replaced", "name": name, "file": rel})


def _check_helpers(final=False):
    _watch_wildcards()  # at every collection: before the tests compare anything
    if not _due(_helpers, final):
        return
    homes = _pytest_homes()
    for module_name, names in RUNNER_HELPERS:
        module = sys.modules.get(module_name)
        space = getattr(module, "__dict__", None) if module is not None else None
        if isinstance(space, dict):
            for name in names:
                value = space.get(name)
                _judge_helper(module_name + "." + name, value, homes)
                if isinstance(value, type) and str(getattr(value, "__module__", "")).startswith(
                    ("_pytest.", "pytest")
                ):
                    # The runner's class still, its methods: how ``raises`` decides, what ``RunResult`` checks.
                    for member, method in list(_own_dict(value).items()):
                        _judge_helper(module_name + "." + name + "." + member, method, homes)
    testcase = getattr(sys.modules.get("unittest.case"), "TestCase", None)
    if isinstance(testcase, type):
        homes = (_home("unittest"),)
        for name, value in list(_own_dict(testcase).items()):
            if name.startswith(("assert", "fail")) or name in _CASE_MACHINERY:
                _judge_helper("unittest.TestCase." + name, value, homes)
        for module_name, names in _UNITTEST_CLASSES:
            space = getattr(sys.modules.get(module_name), "__dict__", None)
            for cls in [space.get(n) for n in names] if isinstance(space, dict) else ():
                if isinstance(cls, type):
                    for name, value in list(_own_dict(cls).items()):
                        _judge_helper(module_name + "." + cls.__name__ + "." + name, value, homes)
        # A graded test class's own assert methods and the ones unittest calls a test through:
        # given to it by package code, they stand in for unittest's in its tests alone.
        for namespace, rel, _, _ in list(_graded_namespaces()):
            for value in list(namespace.values()):
                if isinstance(value, type) and value is not testcase and issubclass(value, testcase):
                    for name, member in list(_own_dict(value).items()):
                        if name.startswith(("assert", "fail")) or name in _CASE_MACHINERY:
                            _judge_helper(rel + ": " + value.__name__ + "." + name, member, homes)


_UNITTEST_CLASSES = (
    (
        "unittest.case",
        ("_Outcome", "_AssertRaisesBaseContext", "_AssertRaisesContext", "_AssertWarnsContext"),
    ),
    ("unittest._log", ("_AssertLogsContext",)),
    ("unittest.result", ("TestResult",)),
)
"""unittest's classes a test's outcome passes through: ``assertRaises``'s context (its ``__exit__``
made to take no error as success), ``_Outcome.testPartExecutor`` (made to swallow what a test
raises), the result a failure is added to."""

_CASE_MACHINERY = frozenset(
    (
        "run",
        "__call__",
        "debug",
        "_callTestMethod",
        "_callSetUp",
        "_callTearDown",
        "_callCleanup",
        "__init_subclass__",
    )
)
"""What unittest calls a test through: a test class given one of these by package code swallows
what its tests raise."""

_wildcards = {"wrapped": set(), "noted": set()}


def _comparing_file(frame):
    """The graded file that made a comparison, found past the standard library's frames it went
    through (``assertEqual``'s, or a ``Fraction`` whose numerator is the wildcard), or None."""
    for _ in range(8):
        if frame is None:
            return None
        name = frame.f_code.co_filename
        rel = _rel_of(name)
        if rel is not None or not _in_stdlib(_real(name)):
            return rel
        frame = frame.f_back
    return None


def _watch_wildcards():
    """``unittest.mock.ANY`` equals everything by design, so code under test can return it where a
    test compares a result: the comparison is noted when it happens in a graded file that never
    names ``ANY`` itself (the value came from elsewhere)."""
    # Nothing here may raise, not even inside ``getattr``: it runs inside audit hooks, during
    # imports (``unittest.mock`` itself importing, where a failed lookup broke ``selectors``).
    space = getattr(sys.modules.get("unittest.mock"), "__dict__", None)
    value = space.get("ANY") if isinstance(space, dict) else None
    cls = type(value)
    if value is None or cls in _wildcards["wrapped"]:
        return
    _wildcards["wrapped"].add(cls)
    original = _own_dict(cls).get("__eq__")
    if original is None:
        return

    def __eq__(self, other):
        me = _get_ident()
        if me not in _inside:
            _inside.add(me)
            try:
                rel = _comparing_file(sys._getframe(1))
                if rel is not None and rel not in _wildcards["noted"] and rel not in _NAMING_ANY:
                    _wildcards["noted"].add(rel)
                    _write({"ev": "wildcard-compared", "name": "unittest.mock.ANY", "test": rel})
            except Exception:
                pass
            finally:
                _inside.discard(me)
        return original(self, other)

    try:
        cls.__eq__ = __eq__
    except Exception:
        pass


# --- the runner's settings: what its helpers decide with, besides their code ----------------------

_PLAIN = (int, float, complex, str, bytes, bool, type(None))
_settings = {}
"""``label -> (read, value, judge)``: each runner setting as its module's own code left it, how to
read it again (from own dictionaries and function fields: no code of the patch runs), and whether
a value read is acceptable (``judge(now, value)``)."""
_CASE_SETTINGS = ("failureException",)
"""``TestCase``'s settings that decide an outcome (``failureException = XFailed`` makes a failed
assert an expected failure); ``maxDiff`` and ``longMessage`` only shape messages, and honest
suites set them."""


def _honest_failure(now, value):
    """Whether ``TestCase.failureException`` is still an assertion error, as suites that set it make
    it (a ``UnicodeAssertionError``, a debugger's): not one of the runner's signals for a skip, an
    expected failure or a stop, which a failed assert would then raise."""
    if now is value:
        return True
    if not isinstance(now, type) or not issubclass(now, AssertionError):
        return False
    signals = [KeyboardInterrupt, SystemExit, GeneratorExit]
    for module_name, name in _SIGNALS:
        signal = getattr(sys.modules.get(module_name), name, None)
        if isinstance(signal, type):
            signals.append(signal)
    return not issubclass(now, tuple(signals))


_SIGNALS = (
    ("_pytest.outcomes", "OutcomeException"),
    ("unittest.case", "SkipTest"),
    ("unittest.case", "_ShouldStop"),
    ("unittest.case", "_UnexpectedSuccess"),
)


def _plain(value):
    return type(value) in _PLAIN or (
        type(value) is tuple and all(type(v) in _PLAIN or type(v) is _Same for v in value)
    )


def _same(a, b):
    return a is b or (type(a) is type(b) and _plain(a) and a == b)


def _function_settings(label, function, found):
    """A function's default arguments: ``approx(expected, rel=None, abs=None)`` with ``rel`` given
    a default of ``inf`` accepts any number, and no code changed."""
    if not isinstance(function, _FUNCTION):
        return
    found[label + ".__defaults__"] = (lambda f=function: f.__defaults__, function.__defaults__, _same)
    # A dict, changed in place or replaced: its items, each compared by identity.
    found[label + ".__kwdefaults__"] = (
        lambda f=function: _items(f.__kwdefaults__),
        _items(function.__kwdefaults__),
        _same,
    )


def _items(mapping):
    return tuple(_Same(item) for item in sorted((mapping or {}).items(), key=lambda item: item[0]))


class _Same(object):
    """A ``(name, default)`` pair equal to another holding the very same default."""

    __slots__ = ("item",)

    def __init__(self, item):
        self.item = item

    def __eq__(self, other):
        return self.item[0] == other.item[0] and self.item[1] is other.item[1]

    __hash__ = None


def _class_settings(label, cls, found, names=None):
    """A runner class's plain values (``ApproxScalar.DEFAULT_ABSOLUTE_TOLERANCE``), or those named,
    and its methods' default arguments."""
    for name, value in list(_own_dict(cls).items()):
        if names is not None and name not in names:
            if name.startswith(("assert", "fail")) or name in _CASE_MACHINERY:
                _function_settings(label + "." + name, value, found)
            continue
        if name.startswith("__") and name.endswith("__"):
            continue
        if _plain(value) or (names is not None and isinstance(value, type)):
            found[label + "." + name] = (
                lambda c=cls, n=name: _own_dict(c).get(n, _settings),
                value,
                _honest_failure if name == "failureException" else _same,
            )
        else:
            _function_settings(label + "." + name, value, found)


def _take_settings(module_name):
    """The settings a runner module's own code made, taken as its execution ends (before any code
    under test can reach the module) or, for one loaded before the watch, as the watch loads."""
    space = getattr(sys.modules.get(module_name), "__dict__", None)
    if not isinstance(space, dict):
        return
    found = {}
    if module_name == "unittest.case":
        case = space.get("TestCase")
        if isinstance(case, type):
            _class_settings("unittest.TestCase", case, found, _CASE_SETTINGS)
    for helper_module, names in RUNNER_HELPERS:
        if helper_module != module_name:
            continue
        for name in names:
            value = space.get(name)
            label = module_name + "." + name
            if isinstance(value, type):
                _class_settings(label, value, found)
            else:
                _function_settings(label, value, found)
    _settings.update(found)
    if module_name in ("_pytest.python_api", "_pytest.approx"):
        _watch_approx(space.get("ApproxBase") or space.get("Approx"))  # pytest 7-8, and 9


_approx = {"wrapped": set(), "noted": set()}


def _watch_approx(base):
    """Notes who makes a ``pytest.approx`` object: package code that returns ``approx(result,
    abs=1e9)`` passes ``assert f(x) == 3`` with pytest's own class, whose code and settings are as
    shipped. Made by a patched file's code (past pytest's own frames), it is noted. Each class of
    the family with an ``__init__`` of its own is watched (pytest 9's ``ApproxScalar`` has one)."""
    if not isinstance(base, type):
        return
    family, pending = [], [base]
    while pending:
        cls = pending.pop()
        family.append(cls)
        pending.extend(type.__subclasses__(cls))
    for cls in family:
        _watch_approx_init(cls)


def _watch_approx_init(base):
    if base in _approx["wrapped"]:
        return
    _approx["wrapped"].add(base)
    original = _own_dict(base).get("__init__")
    if not isinstance(original, _FUNCTION):
        return
    homes = _pytest_homes()

    def __init__(self, *args, **kwargs):
        me = _get_ident()
        if me not in _inside:
            _inside.add(me)
            try:
                frame = sys._getframe(1)
                while frame is not None and any(_real(frame.f_code.co_filename).startswith(h) for h in homes):
                    frame = frame.f_back
                rel = _patched_rel(frame.f_code.co_filename) if frame is not None else None
                if (
                    rel is not None
                    and rel not in _approx["noted"]
                    and _rel_of(frame.f_code.co_filename) is None
                ):
                    _approx["noted"].add(rel)
                    _write({"ev": "approx-made", "file": rel})
            except Exception:
                pass
            finally:
                _inside.discard(me)
        return original(self, *args, **kwargs)

    try:
        functools.update_wrapper(__init__, original)
        base.__init__ = __init__
    except Exception:
        pass


_SETTINGS_MODULES = frozenset(["unittest.case"] + [name for name, _ in RUNNER_HELPERS])
_changed = set()


_settings_looked = {"next": 0.0}


def _check_settings(final=False):
    """Each runner setting still as its module left it: one changed while the tests ran (by whom
    cannot be told; no test suite changes its runner's defaults) is noted once. Every half second
    and at exit."""
    if not _settings or not _due(_settings_looked, final):
        return
    for label, (read, value, judge) in list(_settings.items()):
        if label in _changed:
            continue
        try:
            now = read()
        except Exception:
            continue
        if not judge(now, value):
            _changed.add(label)
            _write({"ev": "helper-changed", "name": label})


def _module_names(rel):
    """The dotted names a repository file can be imported under (``src/pkg/x.py``: ``src.pkg.x``,
    ``pkg.x``, ``x``; a package's ``__init__.py`` by its directory)."""
    if not rel.endswith(".py"):
        return []
    parts = rel[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return [".".join(parts[start:]) for start in range(len(parts)) if parts[start:]]


_PATCHED_MODULES = frozenset(name for rel in PATCHED for name in _module_names(rel))
_executing = set()
"""The patched modules whose code is running: their classes are checked when it ends."""


def _executing_there(cls):
    """Whether ``cls`` belongs to a patched module whose code is running."""
    return bool(_executing) and _own_module(cls) in _executing


def _defer(cls):
    """Keeps ``cls`` for the check at its module's end, by a weak reference (once: a collection
    meets it again at every pass while the module runs; an id a dead class left is taken over)."""
    kept = _pending.get(id(cls))
    if kept is None or kept() is not cls:
        try:
            _pending[id(cls)] = weakref.ref(cls)
        except TypeError:
            pass


_pending = {}
"""Weak references, by id, to classes a collection met while their patched module's code ran."""


def _own_module(cls):
    return None if cls is None else _own_dict(cls).get("__module__")


def _check_module_classes(module):
    """The classes a patched module defines, checked as its code ends: a class whose ``__eq__``
    answers with expression objects (a query builder's) is wrapped before anything compares it.
    Classes made later are judged on what they answer at all."""
    name = getattr(module, "__name__", None)
    stack = [value for value in list(getattr(module, "__dict__", {}).values()) if isinstance(value, type)]
    # And those it made without binding them: met by a collection meanwhile, or still young.
    stack.extend(cls for cls in (ref() for ref in list(_pending.values())) if cls is not None)
    try:
        stack.extend(obj for obj in gc.get_objects(0) if isinstance(obj, type))
    except Exception:
        pass
    seen = set()
    while stack:
        cls = stack.pop()
        if id(cls) in seen or not _ready(cls) or _own_module(cls) != name:
            continue
        seen.add(id(cls))
        try:
            if issubclass(cls, type):  # its classes made later are looked for among the young objects
                _metas.add(cls)
            _check(cls, _base_of(cls), relax=True)
            if _own_eq(cls) is not None and id(cls) not in _wrapped:
                _at_import.append(weakref.ref(cls))
        except BaseException:  # an ``__eq__`` raising past ``Exception`` must not stop the import
            pass
        stack.extend(value for value in list(_own_dict(cls).values()) if isinstance(value, type))


_at_import = []
"""Weak references to the classes with an ``__eq__`` of their own that passed the check as their
module's code ended: asked again at exit, after the tests, as they answer then (an ``__eq__`` that
answers no until the package's code arms it, once the module ran, says yes by then)."""


def _check_again():
    for ref in list(_at_import):
        cls = ref()
        if cls is not None and id(cls) not in _wrapped:
            try:
                _check(cls, _base_of(cls), again=True)
            except Exception:
                pass


class _AfterImport(object):
    """Finds nothing itself: when a runner module, ``unittest.mock`` or a module the patch changed
    is imported, the loader another finder gives it runs the watch's step for it right after the
    module's code: the settings the module's own code made are taken, ``mock.ANY`` is watched (a
    runner that allocates little may have no garbage collection between that import and the
    tests), the patched module's classes are checked before any code outside it can compare them."""

    def __init__(self):
        self.busy = False

    def find_spec(self, name, path=None, target=None):
        if self.busy or (
            name != "unittest.mock" and name not in _SETTINGS_MODULES and name not in _PATCHED_MODULES
        ):
            return None
        self.busy = True
        try:
            spec = None
            for finder in list(sys.meta_path):
                find = getattr(finder, "find_spec", None)
                if finder is not self and find is not None:
                    spec = find(name, path, target)
                    if spec is not None:
                        break
            run = getattr(getattr(spec, "loader", None), "exec_module", None)
            if run is not None:

                def exec_module(module):
                    done = getattr(module, "__name__", None)
                    patched = done in _PATCHED_MODULES
                    if patched:
                        _executing.add(done)
                    try:
                        run(module)
                        if patched:  # still marked: a collection meanwhile leaves its classes to this
                            try:
                                _check_module_classes(module)
                            except BaseException:
                                pass
                            for key, ref in list(_pending.items()):
                                if _own_module(ref()) in (None, done):
                                    del _pending[key]
                    finally:
                        if patched:
                            _executing.discard(done)
                    try:  # a loader can serve more modules than this one: each by its own name
                        if done == "unittest.mock":
                            _watch_wildcards()
                        elif done in _SETTINGS_MODULES:
                            _take_settings(done)
                    except Exception:
                        pass

                spec.loader.exec_module = exec_module
            return spec
        except Exception:
            return None
        finally:
            self.busy = False


_streams = set()


def _source_file(cls):
    """The file a class's own methods come from (the first with code), else None."""
    for value in list(_own_dict(cls).values()):
        code = getattr(getattr(value, "__func__", value), "__code__", None)
        if code is not None:
            return code.co_filename
    return None


def _check_streams():
    """``sys.stdout`` or ``sys.stderr`` replaced by code of the patch (its class, or its ``write``)
    as the run ends: the runner's output then says what that code wants. Runs without a result
    channel (SymPy's) are graded from that output alone. Looked at in the last look only, when a
    test's own capture (a CLI's test runner swapping the streams) is over; the runner's own
    capture (pytest's, still in place then) is the runner's, even where the repository is pytest."""
    homes = _pytest_homes()
    for name in ("stdout", "stderr"):
        if name in _streams:
            continue
        stream = getattr(sys, name, None)
        if stream is None:
            continue
        source = _source_file(type(stream)) or source_of(getattr(stream, "write", None))
        if not isinstance(source, str) or not source:
            continue
        if any(_real(source).startswith(home) for home in homes):
            continue
        where = _patched_rel(source)
        if where is not None:
            _streams.add(name)
            _write({"ev": "stream-replaced", "name": "sys." + name, "file": where})
    # ``print`` itself, which runners print their status lines with (SymPy's): replaced by the
    # patch's code for good (a test's own replacement is undone by now).
    printer = getattr(sys.modules.get("builtins"), "print", None)
    source = (
        source_of(printer)
        if "print" not in _streams and not isinstance(printer, types.BuiltinFunctionType)
        else None
    )
    where = _patched_rel(source) if isinstance(source, str) and source else None
    if where is not None:
        _streams.add("print")
        _write({"ev": "stream-replaced", "name": "builtins.print", "file": where})


def _descriptor(fd):
    try:
        info = os.fstat(fd)
        return (info.st_dev, info.st_ino)
    except Exception:
        return None


_DESCRIPTORS = dict((fd, _descriptor(fd)) for fd in (1, 2))
"""What the process's standard output and error were when it started (device and inode)."""


def _check_descriptors():
    """File descriptors 1 and 2 as the process found them: code that points them at a pipe of its
    own (``os.dup2``) and relays what the runner writes through a filter leaves the stream objects
    as they were. Looked at as the process ends, when the runner's own capture (pytest's, of file
    descriptors) has been undone, and while the tests run in a process without pytest (SymPy's and
    Django's runners capture nothing; a relay can be undone by an exit handler of its own)."""
    for fd, found in sorted(_DESCRIPTORS.items()):
        if fd in _streams:
            continue
        now = _descriptor(fd)
        if found is not None and now is not None and now != found:
            _streams.add(fd)
            _write(
                {
                    "ev": "stream-replaced",
                    "name": "file descriptor %d" % fd,
                    "file": "code in the test process",
                }
            )


def _stay_last():
    """Puts the watch's exit handler after every one registered so far (handlers run last first):
    one the code under test registered at import, to restore what it changed or to leave by
    ``os._exit``, then runs after the watch's last look."""
    try:
        atexit.unregister(_at_exit)
        _register(_at_exit)
    except Exception:
        pass


_register = atexit.register


def _first_at_thread_exit():
    """Wraps ``threading._shutdown`` (the interpreter calls it before any exit handler, and it runs
    the handlers ``threading._register_atexit`` took, the last first) so that the classes are asked
    again before those run too: one of them can disarm an ``__eq__`` before the exit handlers come.
    Wrapped again at the looks when something else replaced it since."""
    threading = sys.modules.get("threading")
    current = getattr(threading, "_shutdown", None)
    if current is None or id(current) in _wrappers:
        return

    def _shutdown(*args, **kwargs):
        try:
            _check_again()
        except BaseException:
            pass
        return current(*args, **kwargs)

    _wrappers[id(_shutdown)] = _shutdown  # kept: its id stays its own
    try:
        threading._shutdown = _shutdown
    except Exception:
        pass


def _register_before_watch(func, *args, **kwargs):
    """``atexit.register`` as the code under test finds it: the handler is registered, and the
    watch's again after it, so that the watch's last look comes first at exit."""
    result = _register(func, *args, **kwargs)
    if func is not _at_exit and _lifetime["ran"] == os.getpid():
        _stay_last()
    return result


try:
    functools.update_wrapper(_register_before_watch, _register)
except Exception:
    pass


_exits = {"next": 0.0}
_lifetime = {"ran": None, "looked": None, "forked": False}
"""The process that ran a graded file (its pid), the one whose last look was taken, and whether this
one is a fork of another (whose end, by ``os._exit``, is its parent's business)."""


def _ran_graded(rel):
    """Notes once per process that it ran a graded file: its end must then come with the watch's
    last look. A process that runs the tests and leaves by ``os._exit`` or a signal, after turning
    garbage collection off (no look rides on a collection) or from an exit handler that runs before
    the watch's (``threading``'s, or one registered later), is never judged by that look; its
    records show it began the tests and never ended them."""
    pid = os.getpid()
    if _lifetime["ran"] != pid and not _lifetime["forked"]:
        _lifetime["ran"] = pid
        _write({"ev": "graded-run", "file": rel})
        # What the code under test set up before its tests began (a runner imports the package
        # first): exit handlers it registered run after the watch's, and where no pytest captures
        # output, the standard output it found is looked at now.
        _stay_last()
        if "_pytest.capture" not in sys.modules:
            _check_descriptors()


def _forked():
    _lifetime["forked"] = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def _scan(deep=False, final=False):
    if _busy[0]:
        _held_up()
        return
    _busy[0] = True
    _busy_by[0], _busy_by[1] = _get_ident(), time.monotonic()
    try:
        try:
            _check_tests(final)
        except Exception:  # the tests' check failing must not skip the value types'
            pass
        if PATCHED:
            try:
                _check_helpers(final)
                _check_settings(final)
                if final:
                    _check_streams()
                elif _lifetime["ran"] == os.getpid() and _due(_exits, False):
                    _stay_last()
                    if "_pytest.capture" not in sys.modules:
                        _check_descriptors()
            except Exception:
                pass
            _eq_set_again()
            _value_types(deep)
            _young_classes(final)
            if _wrapped:
                _check_wrapped()
            if final:
                _check_again()
            elif _at_import:
                _first_at_thread_exit()
    finally:
        _busy[0] = False
    if final and _lifetime["ran"] == os.getpid() and _lifetime["looked"] != os.getpid():
        # Written after the look: an ``__eq__`` it calls that ends the process leaves no such record.
        _lifetime["looked"] = os.getpid()
        _write({"ev": "last-look"})


def _held_up():
    """A look held in another thread for long: code it asked (a class's ``__eq__``) that does not
    return keeps every later look from running."""
    held = time.monotonic() - _busy_by[1]
    if _busy_by[0] != _get_ident() and held > _HOLD and ("look", "held") not in _used:
        _used.add(("look", "held"))
        _write({"ev": "look-held", "seconds": int(held)})


def _in_import_lock():
    """Whether this thread is inside importlib's ``_ModuleLock.acquire`` (it is in the bootstrap's
    ``_blocking_on`` until the lock is taken): a scan there that makes anything take a module lock
    again in this thread (code a check runs, a lazy attribute) breaks the outer lock's bookkeeping,
    and CPython 3.11.2's ``acquire`` raises ``KeyError``, failing the import (one start of Python in
    two, with two editable finders of one package installed). Such a collection is left to the next."""
    blocking = getattr(sys.modules.get("_frozen_importlib"), "_blocking_on", None)
    try:
        return bool(blocking and blocking.get(_get_ident()))
    except Exception:
        return False


_collecting = [False]
"""Whether this look rides on a garbage collection (no parse may run: :func:`_read_graded_defs`)."""


def _on_collect(phase, info):
    if phase == "start" and not _in_import_lock():
        _collecting[0] = True
        try:
            _scan(deep=info.get("generation", 0) > 0)
        finally:
            _collecting[0] = False


# The graded files as they were when this process started, before any code under test ran in it:
# what their definitions are read from, once a file runs here (most processes of a run never run
# one: a test's ``python -c``, a runner's parent that starts the tests in a child).
keep_texts(os.path.join(REPO, rel) for rel in GRADED)
_NAMING_ANY = frozenset(rel for rel in GRADED if b"ANY" in (kept_text(os.path.join(REPO, rel)) or b""))
"""The graded files whose text names ``ANY`` (``mock.ANY`` compared there may be the test's own)."""
_GRADED_DEFS = {}


def _read_graded_defs(rel):
    """The definitions of a graded file, parsed from its text at start-up as the file first runs in
    this process (an ``exec`` event) or at the first look outside a garbage collection that finds
    its module: never inside one, where a parse can land inside another parse of the interpreter
    (CPython 3.11's "AST constructor recursion depth mismatch" in the code under test)."""
    if rel not in _GRADED_DEFS:
        _GRADED_DEFS[rel] = _unheard(definitions, os.path.join(REPO, rel))


if not hasattr(sys, "addaudithook"):
    # Before Python 3.8 no event tells that a file runs, and the looks that find its module ride on
    # garbage collections: read now, as every file was read before.
    for _rel in sorted(GRADED):
        _read_graded_defs(_rel)


gc.callbacks.append(_on_collect)
if PATCHED:
    for _name in sorted(_SETTINGS_MODULES):
        if _name in sys.modules:
            _take_settings(_name)
    sys.meta_path.insert(0, _AfterImport())
atexit.register(_at_exit)
if PATCHED:
    atexit.register = _register_before_watch
    import threading  # noqa: E402,F401  (its ``_shutdown`` comes before every exit handler)

    _first_at_thread_exit()
if (GRADED or PATCHED) and hasattr(sys, "addaudithook"):
    sys.addaudithook(_audit)
