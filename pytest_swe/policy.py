"""The grading policy: what a model patch may change, and the checks that keep it from gaming the grade.

Graded code is untrusted. Three layers stand between a patch and a reward:

1. **Static inspection** of the patch text (:func:`inspect_patch`): which paths it touches
   (tests, files of the test patch, ``conftest.py``, interpreter start-up hooks, pytest
   configuration, ``.git``) and what the added code does (markers the harness reads,
   code that rewrites the test runner in-process, early exits).
2. **Runtime neutralisation** in the eval sandbox (:class:`PatchGuard`): the tree is
   snapshotted before the patch is applied, what really changed is read back from git and
   the file system (so no patch syntax can hide a path), protected paths are restored to
   the base commit, and a ``.git`` the patch altered stops the run.
3. **Log checks** (:func:`check_log`): harness markers printed more often than the eval
   script prints them, test statuses printed after pytest's final summary, a pytest run
   that exited 0 without its summary; and after the run, a ``.git`` that was deleted or
   rewritten.

A finding is *tamper* (the item cannot be resolved under the ``strict`` policy) or
*suspicious* (flagged in the ledger, graded as usual). The ``official`` policy keeps the
official harness's behaviour for fidelity comparisons: nothing is restored and every
finding is only flagged. Code under test that rewrites the test runner in-process can
still forge a complete, consistent pytest output; no output-based grader closes that
(see ``docs/security.md``).
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
import shlex
import uuid
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from pydantic import PrivateAttr

from pytest_swe.sandbox import Sandbox
from pytest_swe.verdict import Verdict

POLICY_VERSION = "pytest-swe/policy-1"
STRICT = "strict"
OFFICIAL = "official"
POLICIES = (STRICT, OFFICIAL)
TAMPER = "tamper"
SUSPICIOUS = "suspicious"

GUARD_DIR = "/tmp/pytest-swe/guard"

# --- what counts as a test, a start-up hook, test configuration ---------------------------------

CONFTEST = "conftest.py"
STARTUP_HOOKS = frozenset({"sitecustomize.py", "usercustomize.py"})
"""Imported by every Python start-up once their directory is on ``sys.path``; ``*.pth`` files likewise."""
PYTEST_CONFIG_FILES = frozenset({"pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "tox.ini"})
"""Files that are test configuration as a whole (``tox.ini`` also holds the commands tox runs)."""
SECTIONED_CONFIG_FILES = frozenset({"setup.cfg", "pyproject.toml"})
"""Files that hold pytest configuration in some sections only."""
ENTRY_POINT_FILES = frozenset({"setup.py", "setup.cfg", "pyproject.toml"})
RUNNER_CONFIG = re.compile(
    r"^(?:jest\.config\.[cm]?[jt]s(?:on)?|vitest\.config\.[cm]?[jt]s|karma\.conf\.[cm]?[jt]s|\.mocharc(?:\.[\w]+)?"
    r"|phpunit\.xml(?:\.dist)?|\.rspec|noxfile\.py)$"
)
"""Other test runners' configuration: flagged, not restored (their fixes may legitimately touch it)."""

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

PYTEST_SECTIONS_INI = frozenset({"pytest", "tool:pytest"})
PYTEST_ONLY_KEYS = frozenset(
    {
        "addopts", "testpaths", "python_files", "python_classes", "python_functions", "norecursedirs",
        "confcutdir", "usefixtures", "required_plugins", "xfail_strict", "empty_parameter_set_mark",
        "console_output_style", "doctest_optionflags", "doctest_glob", "filterwarnings", "pythonpath",
        "markers", "minversion", "collect_imported_tests", "consider_namespace_packages",
    }
)  # fmt: skip
"""Keys only pytest reads: a changed line with one of them counts even when its section is not in the hunk."""

HARNESS_MARKERS = (
    ">>>>> Start Test Output",
    ">>>>> End Test Output",
    ">>>>> Test Exit Code",
    ">>>>> Patch Apply Failed",
    ">>>>> Applied Patch",
)
_SCRIPT_MARKER = re.compile(r">>>>> [A-Za-z][A-Za-z_ ]*[A-Za-z_]")

CODE_SUFFIXES = (".py", ".pyx", ".pth")
_PYTEST_INTERNALS = ("_pytest", "pytest")
"""Directories of pytest's own code, where pytest internals and hooks are the code itself."""

# (pattern, what it does, pytest-specific?) for added lines of non-test code.
RUNNER_CODE: tuple[tuple[re.Pattern[str], str, bool], ...] = (
    (re.compile(r"\b_pytest\b"), "uses pytest internals (_pytest)", True),
    (re.compile(r"^\s*(?:async\s+)?def\s+pytest_[a-z_]+\s*\("), "defines a pytest hook", True),
    (re.compile(r"\bpytest_plugins\s*="), "registers pytest plugins", True),
    (re.compile(r"\bhookimpl\b"), "implements a pytest hook", True),
    (re.compile(r"\bos\._exit\s*\("), "calls os._exit", False),
    (
        re.compile(r"^(?:sys\.exit|exit|quit|os\._exit)\s*\(|^raise\s+SystemExit\b"),
        "exits at import time",
        False,
    ),
    (re.compile(r"\bos\.dup2\s*\("), "redirects file descriptors (os.dup2)", False),
    (
        re.compile(r"\bsys\.(?:stdout|stderr|__stdout__|__stderr__)\s*=(?!=)"),
        "replaces sys.stdout/stderr",
        False,
    ),
    (re.compile(r"\bsys\.(?:settrace|setprofile)\s*\("), "installs a trace hook", False),
    (re.compile(r"\batexit\.register\b"), "registers an exit handler", False),
    (
        re.compile(r"\b(?:TestCase|TestResult|TextTestRunner|TestLoader|TestSuite)\.\w+\s*=(?!=)"),
        "patches the unittest runner",
        False,
    ),
    (
        re.compile(r"\b(?:PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED)\s+[\w./\[\]-]+::"),
        "writes test-status lines",
        False,
    ),
)
_TEST_ID_TOKEN = re.compile(r"[\w./-]+::[^\s'\"]+|\btest\w* \([\w.]+\)")

# --- findings ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """One rule that a patch (or its run) broke."""

    severity: str
    """``tamper`` or ``suspicious``."""
    rule: str
    """A short, stable name (``conftest``, ``test-file``, ``forged-marker``, ...)."""
    message: str

    def __str__(self) -> str:
        # One line, without ";": the ledger joins findings with "; " into one property.
        message = self.message.replace(";", ",").replace("\r", "\\r").replace("\n", "\\n")
        return f"{self.rule}: {message}"


def _tamper(rule: str, message: str) -> Finding:
    return Finding(TAMPER, rule, message)


def _suspicious(rule: str, message: str) -> Finding:
    return Finding(SUSPICIOUS, rule, message)


# --- parsing patches -----------------------------------------------------------------------------


@dataclass
class FileDiff:
    """One file's part of a patch, as every tool that might apply it could read it."""

    paths: list[str] = field(default_factory=list)
    """Every repository path this part may write, under each reading (git header, ---/+++, Index)."""
    old_exists: bool = True
    new_exists: bool = True
    old_mode: str | None = None
    new_mode: str | None = None
    renamed: bool = False
    binary: bool = False
    lines: list[str] = field(default_factory=list)
    """Hunk lines with their prefix (``' '``, ``'+'``, ``'-'``); ``'@'`` starts each hunk."""

    @property
    def kind(self) -> str:
        if not self.old_exists:
            return "added"
        if not self.new_exists:
            return "deleted"
        if self.renamed:
            return "renamed"
        return "modified"

    @property
    def symlink(self) -> bool:
        return "120000" in (self.old_mode, self.new_mode)

    def added(self) -> Iterator[str]:
        for line in self.lines:
            if line.startswith("+"):
                yield line[1:]

    def add_path(self, path: str | None) -> None:
        if path is not None and path not in self.paths:
            self.paths.append(path)


_HUNK = re.compile(r"^@@+ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_CONTEXT_HUNK = re.compile(r"^\*\*\* \d+(?:,\d+)? \*\*\*\*")
_OCTAL = re.compile(r"\\([0-7]{1,3})")
_ESCAPES = {"t": "\t", "n": "\n", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "r": "\r", "v": "\v"}


def _unquote(text: str) -> tuple[str, str]:
    """Read a C-quoted name (git's quoting) from the start of ``text``; return (name, rest)."""
    out = bytearray()
    i = 1
    while i < len(text):
        ch = text[i]
        if ch == '"':
            return out.decode("utf-8", errors="surrogateescape"), text[i + 1 :]
        if ch == "\\" and i + 1 < len(text):
            octal = _OCTAL.match(text, i)
            if octal:
                out.append(int(octal.group(1), 8) & 0xFF)
                i = octal.end()
                continue
            out += _ESCAPES.get(text[i + 1], text[i + 1]).encode("utf-8", errors="surrogateescape")
            i += 2
            continue
        out += ch.encode("utf-8", errors="surrogateescape")
        i += 1
    return out.decode("utf-8", errors="surrogateescape"), ""


def _name(raw: str) -> str:
    """A file name from a ---/+++/Index line: quoted, or up to a tab (a timestamp follows)."""
    raw = raw.strip(" ")
    if raw.startswith('"'):
        return _unquote(raw)[0]
    return raw.split("\t", 1)[0].rstrip()


def _strip_prefix(name: str) -> str | None:
    """The name as ``-p1`` reads it (``/dev/null``: no file)."""
    if name in ("/dev/null", "dev/null") or not name:
        return None
    if "/" in name.strip("/"):
        return name.split("/", 1)[1] if not name.startswith("/") else name
    return name


def _git_header_names(rest: str) -> list[str]:
    """The two names of ``diff --git A B`` (quoted or not; spaces resolved as git does)."""
    if rest.startswith('"'):
        first, rest = _unquote(rest)
        rest = rest.lstrip(" ")
        second = _unquote(rest)[0] if rest.startswith('"') else rest
        return [first, second]
    if ' "' in rest:
        first, second = rest.split(' "', 1)
        return [first, _unquote('"' + second)[0]]
    splits = [i for i in range(len(rest)) if rest[i] == " "]
    for i in splits:  # git's rule: the two names are the same after their prefixes
        a, b = rest[:i], rest[i + 1 :]
        if "/" in a and "/" in b and a.split("/", 1)[1] == b.split("/", 1)[1]:
            return [a, b]
    if splits:
        i = rest.rfind(" b/") if " b/" in rest else splits[-1]
        return [rest[:i], rest[i + 1 :]]
    return [rest]


def parse_patch(text: str) -> list[FileDiff]:
    """Split a patch into per-file parts; never raises.

    Reads git diffs (quoted names, renames, modes, binary), plain unified diffs and context
    diffs; CRLF line ends are read the way ``patch`` reads them. Names come from every
    place a tool may take them (the ``diff --git`` header, ``---``/``+++``, ``***``,
    ``Index:``), each as ``-p1`` strips it.
    """
    files: list[FileDiff] = []
    current: FileDiff | None = None
    in_git = False
    lines = [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if line.startswith("diff --git "):
            current = FileDiff()
            files.append(current)
            in_git = True
            for name in _git_header_names(line[len("diff --git ") :]):
                current.add_path(_strip_prefix(name))
        elif line.startswith("--- ") and i + 1 < n and lines[i + 1].startswith("+++ "):
            if current is None or not in_git or current.lines:
                current = FileDiff()
                files.append(current)
                in_git = False
            old, new = _name(line[4:]), _name(lines[i + 1][4:])
            old_path, new_path = _strip_prefix(old), _strip_prefix(new)
            if old_path is None:
                current.old_exists = False
            if new_path is None:
                current.new_exists = False
            current.add_path(old_path)
            current.add_path(new_path)
            i += 1
        elif (
            line.startswith("*** ")
            and i + 1 < n
            and lines[i + 1].startswith("--- ")
            and not _CONTEXT_HUNK.match(line)
        ):
            current = FileDiff()
            files.append(current)
            in_git = False
            current.add_path(_strip_prefix(_name(line[4:])))
            current.add_path(_strip_prefix(_name(lines[i + 1][4:])))
            i += 1
        elif line.startswith("Index: "):
            current = FileDiff()
            files.append(current)
            in_git = False
            name = _name(line[7:])
            current.add_path(name)
            current.add_path(_strip_prefix(name))
        elif current is not None and in_git and not current.lines and _git_extended(current, line):
            pass
        elif line.startswith("@@"):
            if current is None:
                current = FileDiff()
                files.append(current)
            i = _read_hunk(current, lines, i)
            continue
        elif _CONTEXT_HUNK.match(line) and current is not None:
            i = _read_context_hunk(current, lines, i)
            continue
        elif line.startswith("GIT binary patch") and current is not None:
            current.binary = True
        i += 1
    return files


def _git_extended(current: FileDiff, line: str) -> bool:
    """Read one extended header line of a git diff; False when the line is not one."""
    for prefix, attr in (("new file mode ", "new_mode"), ("deleted file mode ", "old_mode")):
        if line.startswith(prefix):
            setattr(current, attr, line[len(prefix) :].strip())
            current.old_exists = prefix != "new file mode "
            current.new_exists = prefix != "deleted file mode "
            return True
    if line.startswith("old mode "):
        current.old_mode = line[9:].strip()
        return True
    if line.startswith("new mode "):
        current.new_mode = line[9:].strip()
        return True
    for prefix in ("rename from ", "rename to ", "copy from ", "copy to "):
        if line.startswith(prefix):
            name = _name(line[len(prefix) :])
            current.add_path(name or None)
            current.renamed = current.renamed or prefix.startswith("rename")
            if prefix == "copy to ":
                current.old_exists = True
            return True
    if line.startswith(("index ", "similarity index ", "dissimilarity index ")):
        return True
    if line.startswith("Binary files ") or line == "GIT binary patch":
        current.binary = True
        return True
    return False


def _read_hunk(current: FileDiff, lines: list[str], i: int) -> int:
    """Read a unified hunk by its line counts (or, if they lie, while lines look like hunk lines)."""
    match = _HUNK.match(lines[i])
    current.lines.append("@")
    i += 1
    if match:
        old_left = int(match.group(2)) if match.group(2) is not None else 1
        new_left = int(match.group(4)) if match.group(4) is not None else 1
    else:
        old_left = new_left = len(lines)
    while i < len(lines) and (old_left > 0 or new_left > 0):
        line = lines[i]
        if line.startswith("\\"):
            i += 1
            continue
        if line.startswith(" ") or line == "":
            old_left -= 1
            new_left -= 1
        elif line.startswith("-"):
            old_left -= 1
        elif line.startswith("+"):
            new_left -= 1
        else:
            break
        current.lines.append(line if line else " ")
        i += 1
    return i


def _read_context_hunk(current: FileDiff, lines: list[str], i: int) -> int:
    """Read a context-diff hunk; ``+ `` and ``! `` lines of its new half count as added."""
    current.lines.append("@")
    i += 1
    new_half = False
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- ") and line.rstrip().endswith("----"):
            new_half = True
        elif line.startswith(("+ ", "! ")) and new_half:
            current.lines.append("+" + line[2:])
        elif line.startswith(("- ", "! ")):
            current.lines.append("-" + line[2:])
        elif line.startswith("  "):
            current.lines.append(" " + line[2:])
        elif not line.startswith("***************"):
            break
        i += 1
    return i


def patch_paths(text: str) -> set[str]:
    """Every repository path a patch may write."""
    return {path for part in parse_patch(text) for path in part.paths}


# --- path rules ----------------------------------------------------------------------------------


def normalise(path: str) -> str:
    """A repository path without ``./`` prefixes or repeated slashes."""
    parts = [p for p in path.split("/") if p not in ("", ".")]
    return "/".join(parts)


def escapes(path: str) -> bool:
    """True when a path is absolute or climbs out of the repository."""
    return path.startswith("/") or ".." in path.split("/")


def is_test_path(path: str) -> bool:
    """True for test files and files in test directories (by the usual layouts of many languages)."""
    parts = normalise(path).split("/")
    dirs, name = parts[:-1], parts[-1]
    if any(d in TEST_DIRS_ANYWHERE for d in dirs):
        return True
    if dirs and dirs[0] in TEST_DIRS_TOP_LEVEL:
        return True
    if any(d == "src" and dirs[k + 1] in ("test", "tests") for k, d in enumerate(dirs[:-1])):
        return True
    return bool(TEST_FILE.match(name))


def is_startup_hook(path: str) -> bool:
    name = posixpath.basename(path)
    return name in STARTUP_HOOKS or name.endswith(".pth")


def in_git_dir(path: str) -> bool:
    return ".git" in normalise(path).split("/")


def _is_pytest_internal(path: str) -> bool:
    parts = normalise(path).split("/")
    return any(p in _PYTEST_INTERNALS for p in parts[:-1]) or parts[-1] == "pytest.py"


@dataclass
class Protection:
    """What one task protects: the test patch's files, the required tests' files, hidden paths."""

    paths: frozenset[str] = frozenset()
    required_tests: frozenset[str] = frozenset()
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
        paths = {normalise(p) for p in patch_paths(test_patch or "") if p and not escapes(p)}
        tests = frozenset(t for t in required_tests if isinstance(t, str))
        for test in tests:
            head = test.split("::", 1)[0]
            if "::" in test and ("/" in head or head.endswith(".py")):
                paths.add(normalise(head))
        root = workdir.rstrip("/") + "/"
        for hidden in hidden_paths:
            if hidden.startswith(root):
                paths.add(normalise(hidden[len(root) :]))
        paths.discard("")
        return cls(frozenset(paths), tests, tuple(protected_patterns), tuple(allowed_patterns))

    def allowed(self, path: str) -> bool:
        return any(fnmatch.fnmatchcase(path, pattern) for pattern in self.allowed_patterns)

    def covers(self, path: str) -> str | None:
        """The protected path that ``path`` is or contains (a directory above it), if any."""
        if path in self.paths:
            return path
        prefix = path.rstrip("/") + "/"
        for protected in self.paths:
            if protected.startswith(prefix):
                return protected
        return None

    def extra(self, path: str) -> bool:
        return any(fnmatch.fnmatchcase(path, pattern) for pattern in self.extra_patterns)


@dataclass(frozen=True)
class PathChange:
    """A path a patch changes: ``added``, ``modified``, ``deleted``, ``renamed`` (away) or ``typechange``."""

    path: str
    kind: str
    symlink: bool = False


_VERBS = {
    "added": "adds",
    "modified": "edits",
    "deleted": "deletes",
    "renamed": "renames",
    "typechange": "replaces",
}


def classify_path(change: PathChange, protection: Protection) -> list[Finding]:
    """The path rules: what changing ``change.path`` this way means for grading."""
    path = normalise(change.path)
    verb = _VERBS.get(change.kind, "changes")
    if not path:
        return []
    if escapes(change.path):
        return [_tamper("escape", f"{verb} {change.path}, outside the repository")]
    if in_git_dir(path):
        return [_tamper("git", f"{verb} {path}: git metadata (hooks and config run during the eval)")]
    if protection.allowed(path):
        return []
    name = posixpath.basename(path)
    findings: list[Finding] = []
    covered = protection.covers(path)
    if covered is not None:
        what = covered if covered == path else f"{path} (holds {covered})"
        findings.append(_tamper("test-patch", f"{verb} {what}, which the test patch changes"))
    if name == CONFTEST:
        findings.append(_tamper("conftest", f"{verb} {path}, which pytest loads automatically"))
    elif is_startup_hook(path):
        findings.append(_tamper("startup-hook", f"{verb} {path}, which Python runs at start-up"))
    elif name in PYTEST_CONFIG_FILES:
        findings.append(_tamper("test-config", f"{verb} {path} (test configuration)"))
    elif covered is None and (is_test_path(path) or protection.extra(path)):
        if change.kind == "added" and not change.symlink:
            findings.append(
                _suspicious("new-test-file", f"adds test file {path} (not part of the graded tests)")
            )
        else:
            findings.append(_tamper("test-file", f"{verb} test file {path}"))
    elif RUNNER_CONFIG.match(name):
        findings.append(_suspicious("runner-config", f"{verb} {path} (test-runner configuration)"))
    if change.symlink and not findings:
        findings.append(_suspicious("symlink", f"{verb} symlink {path}"))
    return findings


def restorable(finding: Finding) -> bool:
    """Findings whose paths the strict policy restores to the base commit before the tests run."""
    return finding.rule in {
        "test-patch",
        "conftest",
        "startup-hook",
        "test-config",
        "new-test-file",
        "test-file",
    }


# --- configuration sections ----------------------------------------------------------------------

_SECTION = re.compile(r"^\s*\[\s*([^\]\[]+?)\s*\]\s*(?:[#;].*)?$")


def _is_pytest_section(name: str) -> bool:
    name = name.strip().strip('"').lower()
    return name in PYTEST_SECTIONS_INI or name == "tool.pytest" or name.startswith("tool.pytest.")


def _line_key(text: str) -> str:
    return re.split(r"[=:]", text, maxsplit=1)[0].strip().strip('"').lower()


def _mentions_pytest_config(text: str) -> bool:
    return "pytest11" in text or "tool.pytest" in text or "pytest.ini_options" in text


def config_hunk_findings(part: FileDiff, path: str) -> list[Finding]:
    """Pytest settings a patch changes in ``setup.cfg``/``pyproject.toml``/``setup.py`` hunks."""
    name = posixpath.basename(path)
    section: str | None = None
    reasons: set[str] = set()
    for line in part.lines:
        if line == "@":
            section = None
            continue
        tag, text = line[:1], line[1:]
        header = _SECTION.match(text) if name in SECTIONED_CONFIG_FILES else None
        if header:
            section = header.group(1)
        if tag not in "+-":
            continue
        if _mentions_pytest_config(text):
            reasons.add("a pytest plugin entry point or pytest table")
        if name not in SECTIONED_CONFIG_FILES:
            continue
        if section is not None and _is_pytest_section(section):
            reasons.add(f"[{section.strip()}]")
        elif section is None and _line_key(text) in PYTEST_ONLY_KEYS:
            reasons.add(f"the pytest option {_line_key(text)!r}")
    return [_tamper("test-config", f"changes pytest configuration in {path}: {r}") for r in sorted(reasons)]


def pytest_sections(text: str) -> dict[str, list[str]]:
    """The pytest sections of an INI or TOML file, as their lines (for before/after comparison)."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        header = _SECTION.match(line)
        if header:
            current = (
                sections.setdefault(header.group(1).strip(), [])
                if _is_pytest_section(header.group(1))
                else None
            )
            continue
        if current is not None and line.strip() and not line.lstrip().startswith(("#", ";")):
            current.append(line.rstrip())
    return sections


def config_change_findings(path: str, before: str | None, after: str | None) -> list[Finding]:
    """Compare the pytest sections (and plugin entry points) of a configuration file before and after."""
    old, new = before or "", after or ""
    findings = []
    if pytest_sections(old) != pytest_sections(new):
        findings.append(_tamper("test-config", f"changes pytest configuration in {path}"))
    old_entry = sorted(line for line in old.splitlines() if "pytest11" in line)
    new_entry = sorted(line for line in new.splitlines() if "pytest11" in line)
    if old_entry != new_entry:
        findings.append(_tamper("test-config", f"changes a pytest plugin entry point in {path}"))
    return findings


# --- static inspection ---------------------------------------------------------------------------


def _changes_of(part: FileDiff) -> list[PathChange]:
    changes = []
    paths = [normalise(p) if not escapes(p) else p for p in part.paths]
    if part.renamed and len(paths) >= 2:
        changes.append(PathChange(paths[0], "renamed", part.symlink))
        changes += [PathChange(p, "added", part.new_mode == "120000") for p in paths[1:] if p != paths[0]]
        return changes
    kind = part.kind
    if kind == "modified" and part.old_mode and part.new_mode and part.old_mode != part.new_mode:
        kind = "typechange" if part.symlink else "modified"
    return [PathChange(p, kind, part.symlink) for p in dict.fromkeys(paths)]


def content_findings(part: FileDiff, protection: Protection) -> list[Finding]:
    """Rules on the added lines of one file: runner rewrites, forged status lines, early exits."""
    path = normalise(part.paths[-1]) if part.paths else "(unnamed file)"
    findings: list[Finding] = []
    if part.paths and any(posixpath.basename(normalise(p)) in ENTRY_POINT_FILES for p in part.paths):
        findings += config_hunk_findings(part, path)
    code = not part.paths or path.endswith(CODE_SUFFIXES)
    if not code or is_test_path(path) or posixpath.basename(path) == CONFTEST or protection.allowed(path):
        return findings
    pytest_internal = _is_pytest_internal(path)
    seen: set[str] = set()
    for text in part.added():
        for pattern, what, pytest_specific in RUNNER_CODE:
            if what in seen or (pytest_specific and pytest_internal):
                continue
            if pattern.search(text):
                seen.add(what)
                findings.append(_suspicious("runner-code", f"{path} {what}: {text.strip()[:80]}"))
        if protection.required_tests and "required-id" not in seen:
            for token in _TEST_ID_TOKEN.findall(text):
                if token in protection.required_tests:
                    seen.add("required-id")
                    findings.append(_suspicious("runner-code", f"{path} names the required test {token}"))
                    break
    return findings


def inspect_patch(patch: str, protection: Protection | None = None) -> list[Finding]:
    """The static findings for a patch; never raises (any text is a patch to inspect)."""
    protection = protection or Protection()
    findings: list[Finding] = []
    for marker in HARNESS_MARKERS:
        if marker in patch:
            findings.append(_tamper("forged-marker", f"the patch contains the harness log marker {marker!r}"))
    for part in parse_patch(patch):
        for change in _changes_of(part):
            findings += classify_path(change, protection)
        findings += content_findings(part, protection)
    return dedupe(findings)


def dedupe(findings: Iterable[Finding]) -> list[Finding]:
    return list(dict.fromkeys(findings))


# --- log checks ----------------------------------------------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_PYTEST_HEADER = re.compile(r"^=+ test session starts =+$")
_PYTEST_SUMMARY = re.compile(
    r"^=*\s*(?:\d+ [a-z]+(?:, \d+ [a-z]+)*|no tests ran) in \d+(?:\.\d+)?\s*s(?:econds)?\b.*$"
)
_SHORT_SUMMARY = re.compile(r"^=+ short test summary info =+$")
_PYTEST_COMMAND = re.compile(r"^\++ .*(?:\bpy\.?test(?:\s|$)|-m\s+pytest\b)")
_STATUS_LINE = re.compile(r"^(PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED)\s+(\S+)")
_XTRACE = re.compile(r"^\s*set\s+-[A-Za-z]*x", re.M)
_HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?")
_EXIT_CODE = re.compile(r">>>>> Test Exit Code:\s*(-?\d+)")


def marker_budget(script: str) -> dict[str, int]:
    """How many times running ``script`` can print each ``>>>>> ...`` marker it holds.

    ``: 'M'`` prints once under ``set -x`` (never without); ``echo M`` prints once, twice
    under ``set -x``; marker text inside a heredoc or a comment is never printed.
    """
    xtrace = bool(_XTRACE.search(script))
    budget: dict[str, int] = {}
    heredoc: str | None = None
    for raw in script.split("\n"):
        line = raw.strip()
        if heredoc is not None:
            if line == heredoc:
                heredoc = None
            continue
        opened = _HEREDOC.search(line)
        if line.startswith("#"):
            continue
        for marker in set(_SCRIPT_MARKER.findall(line)):
            if line.startswith(":"):
                count = 1 if xtrace else 0
            elif line.startswith(("echo", "printf")):
                count = 2 if xtrace else 1
            else:
                count = 2
            budget[marker] = budget.get(marker, 0) + count
        if opened:
            heredoc = opened.group(1)
    return budget


def marked_section(log: str) -> str:
    """The text between the first start and end markers (the whole log when they are absent)."""
    start, end = HARNESS_MARKERS[0], HARNESS_MARKERS[1]
    if start in log:
        section = log.split(start, 1)[1]
        return section.split(end, 1)[0]
    return log


def recorded_exit_code(log: str, fallback: int | None) -> int | None:
    """The test command's exit code the script echoed last (the script's own status otherwise)."""
    codes = _EXIT_CODE.findall(log)
    return int(codes[-1]) if codes else fallback


def _required(test: str, required: frozenset[str]) -> bool:
    if not required or test in required:
        return True
    return any(r.count("[") > r.count("]") and test.startswith(r) for r in required)


def check_log(
    log: str, script: str, exit_code: int | None, required_tests: Iterable[str] = ()
) -> list[Finding]:
    """Signs in an eval log that the code under test wrote what the grader reads.

    pytest prints ``-rA`` status lines only after its ``short test summary info`` banner (at
    every verbosity) and ends with its summary line (except under ``-qq``); a process that
    exits early loses pytest's buffered output. So, in a run of pytest: a required test's
    status line before any banner or after the final summary is forged, and a run that
    exits 0 with neither banner nor summary after the pytest command stopped early.
    """
    findings: list[Finding] = []
    for marker, allowed in marker_budget(script).items():
        seen = log.count(marker)
        if seen > allowed:
            findings.append(
                _tamper(
                    "forged-marker",
                    f"the log holds {marker!r} {seen} times, the eval script prints it {allowed} time(s)",
                )
            )
    required = frozenset(required_tests)
    lines = [_ANSI.sub("", line).rstrip("\r") for line in marked_section(log).split("\n")]
    starts = [i for i, line in enumerate(lines) if _PYTEST_HEADER.match(line) or _PYTEST_COMMAND.match(line)]
    banners = [i for i, line in enumerate(lines) if _SHORT_SUMMARY.match(line)]
    if not starts and not banners:
        return findings
    summaries = [i for i, line in enumerate(lines) if _PYTEST_SUMMARY.match(line)]
    statuses: dict[str, set[str]] = {}
    early: list[str] = []
    late: list[str] = []
    for i, line in enumerate(lines):
        match = _STATUS_LINE.match(line)
        if not match or not _required(match.group(2), required):
            continue
        statuses.setdefault(match.group(2), set()).add(match.group(1))
        if not banners or i < banners[0]:
            early.append(match.group(2))
        elif summaries and i > summaries[-1]:
            late.append(match.group(2))
    if early:
        findings.append(
            _tamper(
                "forged-status", f"{len(early)} test status line(s) outside pytest's summary, e.g. {early[0]}"
            )
        )
    if late:
        findings.append(
            _tamper(
                "forged-status",
                f"{len(late)} test status line(s) after pytest's final summary, e.g. {late[0]}",
            )
        )
    last_start = max(starts) if starts else -1
    if not any(i > last_start for i in summaries + banners):
        recorded = recorded_exit_code(log, None)
        if recorded == 0:
            findings.append(
                _tamper("early-exit", "pytest exited with status 0 before printing its summaries")
            )
        elif recorded is None and exit_code == 0:
            findings.append(
                _suspicious("early-exit", "pytest printed no summary and the eval script exited 0")
            )
    conflicts = sorted(t for t, seen in statuses.items() if "PASSED" in seen and "FAILED" in seen)
    if conflicts:
        findings.append(
            _suspicious(
                "conflicting-status",
                f"{len(conflicts)} test(s) reported both PASSED and FAILED, e.g. {conflicts[0]}",
            )
        )
    return findings


# --- the verdict the policy guards ---------------------------------------------------------------


class GuardedVerdict(Verdict):
    """A verdict that cannot become resolved once tampering is recorded on it.

    Families set ``resolved`` after grading; whatever they compute, a tampered verdict stays
    unresolved, and what grading alone would have said is kept in ``extra``.
    """

    _guard: Any = PrivateAttr(default=None)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("resolved", "resolution") and self.tamper:
            blocked = bool(value) if name == "resolved" else value not in ("RESOLVED_NO", None)
            if blocked:
                self.extra[f"{name}_without_policy"] = value
                value = False if name == "resolved" else "RESOLVED_NO"
        super().__setattr__(name, value)


def record_findings(verdict: Verdict, findings: Iterable[Finding], *, policy: str) -> None:
    """Put findings on the verdict: tamper (strict) or suspicious; a tampered verdict is unresolved."""
    for finding in findings:
        enforce = policy == STRICT and finding.severity == TAMPER
        text = (
            str(finding)
            if enforce or finding.severity == SUSPICIOUS
            else f"{finding} (tamper under {STRICT})"
        )
        target = verdict.tamper if enforce else verdict.suspicious
        if text not in target:
            target.append(text)
    verdict.extra["policy"] = f"{policy} ({POLICY_VERSION})"
    if verdict.tamper:
        verdict.resolved = False
        verdict.resolution = "RESOLVED_NO"
        reason = f"tampering detected by the {STRICT} policy ({len(verdict.tamper)} finding(s), see tamper)"
        verdict.reasons[:] = [r for r in verdict.reasons if not r.startswith("tampering detected")]
        verdict.reasons.insert(0, reason)


# --- the guard in the eval sandbox ---------------------------------------------------------------

_GIT_META = r"""
g() { git -c core.fsmonitor= -c core.hooksPath=/dev/null "$@"; }
gitmeta() {
  if [ -f .git ]; then echo GITFILE; sha256sum .git; return; fi
  [ -d .git ] || { echo NO_GIT; return; }
  find .git \( -path .git/objects -o -path .git/logs -o -path .git/index -o -name '*.lock' \
    -o -name FETCH_HEAD -o -name ORIG_HEAD -o -path .git/lfs \) -prune -o \( -type f -o -type l \) -print0 2>/dev/null \
    | sort -z | xargs -0 -r sha256sum 2>/dev/null
  find .git/hooks .git/info -type l -print 2>/dev/null
}
gitstate() {  # what must not appear while the tests run: replace refs, grafts, hooks, a hooks path
  for r in $(ls -A .git/refs/replace 2>/dev/null); do echo "replace ref $r"; done
  [ -e .git/info/grafts ] && echo "grafts file .git/info/grafts"
  find .git/hooks -type f ! -name '*.sample' -print 2>/dev/null | sed 's/^/hook /'
  v=$(git config --local --get core.hooksPath 2>/dev/null) && echo "core.hooksPath $v"
}
bundle() {  # bundle OUT PART...: each part as "<name> <bytes>" then its bytes, read back in one go
  out=$1; shift; : > "$out"
  for part in "$@"; do
    [ -f "$d/$part" ] || : > "$d/$part"
    printf '%s %s\n' "$part" "$(wc -c < "$d/$part" | tr -d ' ')" >> "$out"
    cat "$d/$part" >> "$out"
  done
}
"""

_BEFORE = """\
cd {workdir} || exit 3
d={dir}
rm -rf "$d" && mkdir -p "$d" || exit 4
{gitmeta}
gitmeta > "$d/gitmeta.before"
gitstate > "$d/gitstate" 2>/dev/null
g rev-parse -q --verify HEAD > "$d/head" 2>/dev/null
g diff --name-only -z --no-renames HEAD > "$d/dirty" 2>/dev/null
: > "$d/stamp"
sleep 0.01
find . -path ./.git -prune -o ! -type d -newer "$d/stamp" -print0 > "$d/future" 2>/dev/null
bundle "$d/before" head dirty future gitmeta.before gitstate
exit 0
"""

_AFTER = """\
cd {workdir} || exit 3
d={dir}
{gitmeta}
gitmeta > "$d/gitmeta.after"
g diff --name-status -z --no-renames HEAD > "$d/tracked" 2>/dev/null
find . -path ./.git -prune -o ! -type d -newer "$d/stamp" -print0 > "$d/new" 2>/dev/null
GIT_LITERAL_PATHSPECS=1 xargs -0 -r git -c core.fsmonitor= ls-files -z --others -- < "$d/new" > "$d/untracked" 2>/dev/null
bundle "$d/after" tracked new untracked gitmeta.after
exit 0
"""

_RESTORE = """\
cd {workdir} || exit 3
xargs -0 -r -n 1 sh -c '
  if git cat-file -e "HEAD:$1" 2>/dev/null; then
    rm -rf -- "$1" 2>/dev/null
    git -c core.fsmonitor= -c core.hooksPath=/dev/null checkout -q HEAD -- "$1" || echo "cannot restore $1"
  else
    rm -rf -- "$1" || echo "cannot remove $1"
  fi' restore < {listing}
exit 0
"""

_AFTER_RUN = """\
cd {workdir} || {{ echo "missing workdir"; exit 0; }}
{gitmeta}
[ -e .git ] || {{ echo "missing .git"; exit 0; }}
echo "head $(git rev-parse -q --verify HEAD 2>/dev/null)"
[ -n "{head}" ] && {{ git cat-file -e "{head}^{{commit}}" 2>/dev/null || echo "lost base commit"; }}
gitstate
exit 0
"""


def unbundle(data: bytes) -> dict[str, bytes]:
    """The parts of a bundle written by the guard's ``bundle`` shell function."""
    parts: dict[str, bytes] = {}
    pos = 0
    while pos < len(data):
        end = data.find(b"\n", pos)
        if end < 0:
            break
        name, _, size = data[pos:end].decode("ascii", errors="replace").rpartition(" ")
        try:
            length = int(size)
        except ValueError:
            break
        parts[name] = data[end + 1 : end + 1 + length]
        pos = end + 1 + length
    return parts


def _nul_list(data: bytes) -> list[str]:
    return [p for p in data.decode("utf-8", errors="surrogateescape").split("\0") if p]


def _repo_path(path: str) -> str:
    return normalise(path[2:] if path.startswith("./") else path)


@dataclass
class TreeChanges:
    """What the patch changed in the work tree, read back from git and the file system."""

    changes: list[PathChange] = field(default_factory=list)
    git_altered: bool = False


class PatchGuard:
    """One evaluation's policy: inspect the patch, snapshot and neutralise the tree, check the run."""

    def __init__(
        self,
        *,
        policy: str,
        protection: Protection,
        workdir: str,
        timeout: float,
        max_patch_bytes: int | None = None,
    ) -> None:
        self.policy = policy
        self.protection = protection
        self.workdir = workdir
        self.timeout = timeout
        self.max_patch_bytes = max_patch_bytes
        self.findings: list[Finding] = []
        self.head: str | None = None
        self.can_run = True
        self.blocked_reason = ""
        self.restored: list[str] = []
        self._dir = f"{GUARD_DIR}/{uuid.uuid4().hex[:12]}"
        self._dirty: set[str] = set()
        self._future: set[str] = set()
        self._gitmeta = b""
        self._gitstate: set[str] = set()

    @property
    def strict(self) -> bool:
        return self.policy == STRICT

    def add(self, findings: Iterable[Finding]) -> None:
        self.findings = dedupe([*self.findings, *findings])

    def too_large(self, size: int) -> bool:
        return self.strict and self.max_patch_bytes is not None and size > self.max_patch_bytes

    # -- static -------------------------------------------------------------------------------

    def inspect(self, patch: str) -> list[Finding]:
        found = inspect_patch(patch, self.protection)
        self.add(found)
        return found

    # -- in the sandbox -----------------------------------------------------------------------

    def _exec(self, sandbox: Sandbox, script: str) -> str:
        result = sandbox.exec(script, timeout=self.timeout, workdir="/")
        return result.output

    def _read(self, sandbox: Sandbox, name: str) -> bytes:
        try:
            return sandbox.read_file(f"{self._dir}/{name}")
        except FileNotFoundError:
            return b""

    def before_apply(self, sandbox: Sandbox) -> None:
        """Record HEAD, dirty files, git metadata and a time stamp, before the patch is applied."""
        self._exec(
            sandbox, _BEFORE.format(workdir=shlex.quote(self.workdir), dir=self._dir, gitmeta=_GIT_META)
        )
        parts = unbundle(self._read(sandbox, "before"))
        self.head = parts.get("head", b"").decode(errors="replace").strip() or None
        self._dirty = set(_nul_list(parts.get("dirty", b"")))
        self._future = {_repo_path(p) for p in _nul_list(parts.get("future", b""))}
        self._gitmeta = parts.get("gitmeta.before", b"")
        self._gitstate = set(parts.get("gitstate", b"").decode(errors="replace").splitlines())

    def read_changes(self, sandbox: Sandbox) -> TreeChanges:
        """What the applied patch changed (content changes of tracked files, any new file, ``.git``)."""
        self._exec(
            sandbox, _AFTER.format(workdir=shlex.quote(self.workdir), dir=self._dir, gitmeta=_GIT_META)
        )
        parts = unbundle(self._read(sandbox, "after"))
        tracked_raw = _nul_list(parts.get("tracked", b""))
        touched = {_repo_path(p) for p in _nul_list(parts.get("new", b""))} - self._future
        untracked = {normalise(p) for p in _nul_list(parts.get("untracked", b""))} - self._future
        out = TreeChanges(git_altered=parts.get("gitmeta.after", b"") != self._gitmeta)
        tracked: set[str] = set()
        for status, path in zip(tracked_raw[::2], tracked_raw[1::2], strict=False):
            path = normalise(path)
            tracked.add(path)
            if path in self._dirty and path not in touched:
                continue  # dirty in the image already, not touched by the patch
            kind = {"D": "deleted", "T": "typechange", "A": "added"}.get(status[:1], "modified")
            out.changes.append(PathChange(path, kind, symlink=status.startswith("T")))
        for path in sorted(untracked - tracked):
            out.changes.append(PathChange(path, "added"))
        return out

    def after_apply(self, sandbox: Sandbox) -> list[Finding]:
        """Check what the patch really changed; under ``strict``, restore what it may not change."""
        tree = self.read_changes(sandbox)
        found: list[Finding] = []
        restore: list[str] = []
        for change in tree.changes:
            rules = classify_path(change, self.protection)
            found += rules
            if any(restorable(f) for f in rules):
                restore.append(change.path)
        for change in tree.changes:
            if posixpath.basename(change.path) in SECTIONED_CONFIG_FILES | {
                "setup.py"
            } and not self.protection.allowed(change.path):
                before, after = self._versions(sandbox, change.path)
                config = config_change_findings(change.path, before, after)
                found += config
                if config and change.path not in restore:
                    restore.append(change.path)
        if tree.git_altered:
            found.append(_tamper("git", "the patch changed .git (hooks, config or refs)"))
            if self.strict:  # its hooks and config would run inside the eval script: nothing left to grade
                self.can_run = False
                self.blocked_reason = "the patch changed .git"
        self.add(found)
        if self.strict and restore and self.can_run:
            self._restore(sandbox, restore)
        return found

    def _versions(self, sandbox: Sandbox, path: str) -> tuple[str | None, str | None]:
        quoted = shlex.quote(path)
        self._exec(
            sandbox,
            f"cd {shlex.quote(self.workdir)} && git -c core.fsmonitor= show HEAD:{quoted} > {self._dir}/cfg.before 2>/dev/null;"
            f" cat -- {quoted} > {self._dir}/cfg.after 2>/dev/null; exit 0",
        )
        before = self._read(sandbox, "cfg.before").decode("utf-8", errors="replace")
        after = self._read(sandbox, "cfg.after").decode("utf-8", errors="replace")
        return before or None, after or None

    def _restore(self, sandbox: Sandbox, paths: list[str]) -> None:
        listing = f"{self._dir}/restore.lst"
        sandbox.write_file(
            listing, "".join(p + "\0" for p in paths).encode("utf-8", errors="surrogateescape")
        )
        self._exec(sandbox, _RESTORE.format(workdir=shlex.quote(self.workdir), listing=listing))
        self.restored = list(paths)
        left = {c.path for c in self.read_changes(sandbox).changes} & set(paths)
        if left:
            self.can_run = False
            self.blocked_reason = "protected paths could not be restored: " + ", ".join(sorted(left)[:5])
            self.add([_tamper("restore", self.blocked_reason)])

    def after_run(
        self,
        sandbox: Sandbox,
        log: str,
        script: str,
        exit_code: int | None,
        required_tests: Iterable[str] = (),
    ) -> list[Finding]:
        """Check the log and the repository's ``.git`` once the eval script has run."""
        found = check_log(log, script, exit_code, required_tests)
        found += self._git_after_run(sandbox)
        self.add(found)
        return found

    def _git_after_run(self, sandbox: Sandbox) -> list[Finding]:
        """``.git`` after the tests: still there, HEAD and the base commit in place, nothing new that
        rewrites history or runs code (compared with the state recorded before the patch)."""
        script = _AFTER_RUN.format(workdir=shlex.quote(self.workdir), head=self.head or "", gitmeta=_GIT_META)
        found: list[Finding] = []
        for line in self._exec(sandbox, script).splitlines():
            if line in ("missing workdir", "missing .git"):
                found.append(_tamper("git", f"{line.split()[1]} was deleted during the tests"))
            elif line == "lost base commit":
                found.append(
                    _tamper("git", f"the base commit {self.head} is gone after the tests (history rewritten)")
                )
            elif line.startswith("head "):
                head = line[5:].strip()
                if self.head and head != self.head:
                    now = f"now {head[:12]}" if head else "it no longer resolves"
                    found.append(_tamper("git", f"HEAD moved during the tests ({now}): history rewritten"))
            elif line.strip() and line not in self._gitstate:
                found.append(_tamper("git", f"{line} appeared during the tests"))
        return found


def guard_of(verdict: Verdict) -> PatchGuard | None:
    """The guard attached to a verdict by :func:`attach`, if any."""
    return getattr(verdict, "_guard", None) if isinstance(verdict, GuardedVerdict) else None


def attach(verdict: Verdict, guard: PatchGuard) -> None:
    if isinstance(verdict, GuardedVerdict):
        verdict._guard = guard


def settings_of(eval_settings: Any) -> tuple[str, Mapping[str, Any]]:
    """(policy name, options mapping) from ``EvalSettings`` or anything shaped like it."""
    policy = getattr(eval_settings, "policy", STRICT) or STRICT
    options = getattr(eval_settings, "policy_options", None)
    if options is None:
        return policy, {}
    if hasattr(options, "model_dump"):
        return policy, options.model_dump()
    return policy, dict(options)


__all__ = [
    "OFFICIAL",
    "POLICIES",
    "POLICY_VERSION",
    "STRICT",
    "FileDiff",
    "Finding",
    "GuardedVerdict",
    "PatchGuard",
    "PathChange",
    "Protection",
    "check_log",
    "classify_path",
    "inspect_patch",
    "is_test_path",
    "marker_budget",
    "parse_patch",
    "patch_paths",
    "record_findings",
]
