"""Files carried inside the command that uses them: on an engine where each call is a round trip,
the patch, the eval script and the probe's files travel in the command text, not in a write of
their own. A file whose bytes a quoted here-document cannot say exactly is written the usual way."""

from __future__ import annotations

import secrets
import shlex
from collections.abc import Mapping

from pytest_swe.api.sandbox import CommandCarrier
from pytest_swe.api.sandbox import Sandbox

DEFAULT_LIMIT = 16 << 10
"""What any command may carry: far below the limits of an argument and of an exec request's URL."""
WRITTEN_MARK = ">>>>> pytest-swe files written"
"""The first line of a command that wrote its files: nothing the command runs after can print before it."""


def limit_of(sandbox: Sandbox) -> int:
    return sandbox.command_limit if isinstance(sandbox, CommandCarrier) else DEFAULT_LIMIT


def _text(data: bytes) -> str | None:
    """``data`` as a here-document says it: UTF-8 text without NULs."""
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _write_line(target: str, text: str, end: str) -> str:
    """The shell that writes ``text`` to ``target``. A here-document always ends with a newline;
    for text without one, command substitution takes exactly that newline off again."""
    if not text or text.endswith("\n"):
        return f"cat > {target} <<'{end}'\n{text}{end}"
    return f"printf '%s' \"$(cat <<'{end}'\n{text}\n{end}\n)\" > {target}"


def writes(files: Mapping[str, tuple[bytes, int]], limit: int, *, on_failure: str) -> str | None:
    """Shell lines writing each ``path: (data, mode)`` (parents created, a file or link in the way
    replaced), running ``on_failure`` when one cannot be written; None when a file cannot be said
    exactly in a here-document or the files exceed ``limit`` bytes together."""
    if sum(len(data) for data, _ in files.values()) > limit:
        return None
    lines = []
    parents = sorted({path.rsplit("/", 1)[0] or "/" for path in files})
    lines.append(f"mkdir -p {' '.join(shlex.quote(p) for p in parents)} || {on_failure}")
    for path, (data, mode) in files.items():
        text = _text(data)
        if text is None:
            return None
        end = f"PYTEST_SWE_FILE_{secrets.token_hex(12)}"
        target = shlex.quote(path)
        lines.append(
            f"rm -f {target} && {{ {_write_line(target, text, end)}\n}} && chmod {mode:o} {target} || {on_failure}"
        )
    return "\n".join(lines) + "\n"


def command_with_files(sandbox: Sandbox, files: Mapping[str, tuple[bytes, int]], command: str) -> str | None:
    """``command`` after the lines that write ``files``, its output preceded by :data:`WRITTEN_MARK`
    (:func:`written` checks and removes it); None when the files must be written the usual way
    (one is not text a here-document can say, or the whole command is over the sandbox's limit)."""
    if not isinstance(sandbox, CommandCarrier):
        return None
    steps = writes(files, sandbox.command_limit, on_failure="exit 125")
    if steps is None:
        return None
    carried = f"{steps}echo '{WRITTEN_MARK}'\n{command}"
    return carried if len(carried.encode()) <= sandbox.command_limit else None


def written(output: str) -> tuple[bool, str]:
    """(whether the files were written, the command's own output): the mark must open the output,
    where only the writing steps could have put it."""
    mark = WRITTEN_MARK + "\n"
    if output.startswith(mark):
        return True, output[len(mark) :]
    return False, output
