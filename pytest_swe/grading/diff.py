"""Reading patches the way every tool of the apply chain reads them.

No library reads what the tests need here (git's binary, rename, copy and mode headers;
C-quoted names; ``---``/``+++``, ``Index:`` and context-diff names; CRLF line ends), so
the parser lives here. It only ever informs: what a patch changed is judged from the tree
after it is applied (:mod:`pytest_swe.grading.tree`), never from its headers.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field


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


def normalize(path: str) -> str:
    """A repository path without ``./`` prefixes or repeated slashes."""
    parts = [p for p in path.split("/") if p not in ("", ".")]
    return "/".join(parts)
