"""Parser for ``KEY=value`` lines."""

from __future__ import annotations

import os
import re

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# ``export KEY=value`` lets the same file be sourced by a POSIX shell.
_EXPORT = re.compile(r"export\s+")


class ParseError(ValueError):
    """A line of the file is not a ``KEY=value`` assignment."""


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1]
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1].replace("\\n", "\n").replace('\\"', '"')
    return value


def parse(text: str) -> dict[str, str]:
    """The assignments in ``text``, in file order; later assignments win."""
    values: dict[str, str] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        export = _EXPORT.match(line)
        if export:
            line = line[export.end() :]
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep:
            raise ParseError(f"line {lineno}: expected KEY=value")
        if not _KEY.fullmatch(key):
            raise ParseError(f"line {lineno}: invalid key {key!r}")
        values[key] = _unquote(value.strip())
    return values


def load(path: str | os.PathLike[str], encoding: str = "utf-8") -> dict[str, str]:
    """Parse the file at ``path``."""
    with open(path, encoding=encoding) as handle:
        return parse(handle.read())
