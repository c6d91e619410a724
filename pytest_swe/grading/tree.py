"""The work tree in the eval sandbox: what a patch really changed, and putting paths back.

Before the patch is applied the tree is recorded (HEAD, files already dirty in the image, a
fingerprint of ``.git`` metadata, a time stamp, the names at the import roots). Afterwards what
changed is read back from git (content changes of tracked files) and the file system (every
file changed since the stamp, ignored directories included), so no diff syntax can hide a path.

The file system is asked by change time (``find -cnewer``), which only the kernel sets: a file
the image holds with a modification time in the future is not taken for one the patch wrote, and
one the patch wrote is seen whatever its modification time. Where ``find`` has no ``-cnewer``
(BusyBox), by modification time, with the files already newer than the stamp listed before the
patch and left out: a second walk of the whole tree, which the change time makes unneeded.
"""

from __future__ import annotations

import secrets
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field

from pytest_swe.api.sandbox import Sandbox

from .diff import normalize
from .paths import IMPORT_ROOTS
from .paths import PathChange
from .paths import installed_module

PRINT_BUNDLE = 'LC_ALL=C wc -c -- "$@"; echo --; cat -- "$@"'
"""Shell that prints the files its positional parameters name as one bundle (:func:`unbundle`):
a ``wc -c`` listing (LC_ALL=C: its sum line is always ``total``), a line ``--``, their bytes."""

SITE_DIR_GLOBS = (
    "/*/lib/python3*/*-packages",
    "/*/lib64/python3*/*-packages",
    "/*/*/lib/python3*/*-packages",
    "/*/*/lib64/python3*/*-packages",
    "/opt/*/envs/*/lib/python3*/*-packages",
    "/root/.local/lib/python3*/site-packages",
    "/home/*/.local/lib/python3*/site-packages",
    "/home/*/*/lib/python3*/*-packages",
)
"""Where images keep their site directories (the system's, ``/usr/local``, conda's base and
environments, virtual environments one or two levels down, user sites): listed before the patch,
without starting Python, so a new top-level module of the patch that would shadow an installed
one (``_distutils_hack``, which a ``.pth`` line imports at every start; ``attr``, which pytest
imports) is taken out before anything imports it."""

GIT_FUNCTIONS = r"""
choose_newer() {  # newer=-cnewer (change time), or -newer where find has no -cnewer (BusyBox)
  if find "$d/stamp" -maxdepth 0 -cnewer "$d/stamp" >/dev/null 2>&1; then newer=-cnewer; else newer=-newer; fi
}
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
bundle() {  # bundle OUT PART...: a "<bytes> <part>" line per part, "--", the parts' bytes in order
  out=$1; shift
  for part in "$@"; do [ -f "$d/$part" ] || : > "$d/$part"; done
  ( cd "$d" && { @PRINT_BUNDLE@; } ) > "$out"
}
""".replace("@PRINT_BUNDLE@", PRINT_BUNDLE)

PAST_THE_STAMP = """\
choose_newer
n=0
while rm -f "$d/tick" && : > "$d/tick" && [ -z "$(find "$d/tick" -maxdepth 0 "$newer" "$d/stamp" 2>/dev/null)" ] && [ $n -lt 120 ]; do
  sleep 0.01; n=$((n + 1))
done"""
"""Shell that returns once the clock the file system stamps files with has moved past the stamp
(a file made now is newer than it), so nothing the patch writes can share the stamp's time and be
missed. The record's own work usually takes longer than a tick, and then nothing is waited for;
BusyBox's ``find`` compares whole seconds (``-newer``), and then the wait lasts until the next
second (at most 1.2 s). It leaves in ``newer`` the ``find`` test the tree is asked with
(``-cnewer``, or ``-newer`` where ``find`` has none)."""

_BEFORE = """\
cd {workdir} || exit 3
d={dir}
rm -rf "$d" && mkdir -p "$d" && chmod 700 "$d" || exit 4
{functions}
: > "$d/stamp"
gitmeta > "$d/gitmeta.before"
gitstate > "$d/gitstate" 2>/dev/null
g rev-parse -q --verify HEAD > "$d/head" 2>/dev/null
g diff --name-only -z --no-renames HEAD > "$d/dirty" 2>/dev/null
for r in {roots}; do [ -d "$r" ] && (cd "$r" && ls -A | sed "s|^|$r/|"); done > "$d/roots" 2>/dev/null
for s in {sites}; do [ -d "$s" ] && ls -A "$s"; done 2>/dev/null | sort -u > "$d/installed"
{past_the_stamp}
[ "$newer" = -cnewer ] || find . -path ./.git -prune -o ! -type d -newer "$d/stamp" -print0 > "$d/future" 2>/dev/null
bundle "$d/before" head dirty future gitmeta.before gitstate roots installed
exit 0
"""

_AFTER = """\
cd {workdir} || exit 3
d={dir}
{functions}
gitmeta > "$d/gitmeta.after"
g diff --name-status -z --no-renames HEAD > "$d/tracked" 2>/dev/null
choose_newer
find . -path ./.git -prune -o ! -type d "$newer" "$d/stamp" -print0 > "$d/new" 2>/dev/null
GIT_LITERAL_PATHSPECS=1 xargs -0 -r git -c core.fsmonitor= ls-files -z --others -- < "$d/new" > "$d/untracked" 2>/dev/null
bundle "$d/after" tracked new untracked gitmeta.after
exit 0
"""

_FORESEEN = """\
d={dir}
[ -f "$d/tracked" ] && [ -f "$d/untracked" ] && [ -f "$d/around" ] || exit 1
[ -s "$d/dirty" ] || [ -s "$d/future" ] && exit 1
cmp -s "$d/gitmeta.before" "$d/gitmeta.after" || exit 1
[ "$(wc -c < "$d/around" | tr -d ' ')" -le {limit} ] || exit 1
[ "$(LC_ALL=C tr -d '\\000-\\177' < "$d/around" | wc -c | tr -d ' ')" = 0 ] || exit 1
tr '\\000' '\\n' < "$d/tracked" | paste - - | LC_ALL=C sort > "$d/tracked.seen" || exit 1
tr '\\000' '\\n' < "$d/untracked" | LC_ALL=C sort > "$d/untracked.seen" || exit 1
printf '%s' '{tracked}' | cmp -s - "$d/tracked.seen" || exit 1
printf '%s' '{untracked}' | cmp -s - "$d/untracked.seen" || exit 1
{modules}exit 0
"""
_NOT_INSTALLED = """\
cut -d. -f1 "$d/installed" > "$d/installed.heads" 2>/dev/null
grep -qxF {names} "$d/installed.heads" && exit 1
"""
"""No entry of the site directories' listing the record took whose name, up to its first dot,
is one of the modules (``M``, ``M.py``, ``M.cpython-311-x86_64-linux-gnu.so``, and also
``M.pth``): every entry :func:`installed_module` reads as ``M`` is among them. In two steps, not
a pipe, whose status ``grep -q`` could leave to ``cut``'s."""

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

_PUT_BACK = """\
cd {workdir} || exit 1
{functions}
{restore}{remove}{verify}exit 0
"""
"""What :data:`_RESTORE` does for paths known before the command is written, then the check that
each is as at HEAD (the tracked ones) or gone (the new ones); exit 1 where one is not."""

_SHOW = """\
cd {workdir} && git -c core.fsmonitor= show HEAD:{path} > {out}.before 2>/dev/null
cat -- {path} > {out}.after 2>/dev/null
exit 0
"""

_AFTER_RUN = """\
cd {workdir} || {{ echo "missing workdir"; exit 0; }}
{functions}
[ -e .git ] || {{ echo "missing .git"; exit 0; }}
echo "head $(git rev-parse -q --verify HEAD 2>/dev/null)"
[ -n "{head}" ] && {{ git cat-file -e "{head}^{{commit}}" 2>/dev/null || echo "lost base commit"; }}
gitstate
exit 0
"""


def unbundle(data: bytes) -> dict[str, bytes]:
    """The parts of bundles written one after another by the ``bundle`` shell function (or the
    probe's collect script): each a ``wc -c`` listing of its parts (``total`` last when it lists
    several), a line ``--``, then the parts' bytes in the listing's order. One ``wc`` and one
    ``cat`` per bundle, where a ``printf``, ``wc``, ``tr`` and ``cat`` per part cost a container a
    dozen processes. Nothing after a line that is neither a listing's nor ``--`` is read."""
    parts: dict[str, bytes] = {}
    pos = 0
    while pos < len(data):
        listed: list[tuple[str, int]] = []
        while True:
            end = data.find(b"\n", pos)
            if end < 0:
                return parts
            line, pos = data[pos:end], end + 1
            if line == b"--":
                break
            fields = line.split(None, 1)
            if len(fields) != 2 or not fields[0].isdigit():
                return parts
            listed.append((fields[1].decode("utf-8", errors="surrogateescape"), int(fields[0])))
        if listed and listed[-1][0] == "total":  # wc's sum of several files; no part has the name
            listed.pop()
        for name, size in listed:
            parts[name] = data[pos : pos + size]
            pos += size
    return parts


def _nul_list(data: bytes) -> list[str]:
    return [p for p in data.decode("utf-8", errors="surrogateescape").split("\0") if p]


def _repo_path(path: str) -> str:
    return normalize(path[2:] if path.startswith("./") else path)


@dataclass
class TreeChanges:
    """What the patch changed in the work tree, read back from git and the file system."""

    changes: list[PathChange] = field(default_factory=list)
    git_altered: bool = False


class WorkTree:
    """The repository in one eval sandbox, seen through git and the file system."""

    def __init__(self, sandbox: Sandbox, workdir: str, directory: str, timeout: float) -> None:
        self.sandbox = sandbox
        self.workdir = workdir
        self.dir = directory
        self.timeout = timeout
        self.head: str | None = None
        self.base_names: frozenset[str] = frozenset()
        self.installed: frozenset[str] = frozenset()
        """Modules of the image's site directories (:data:`SITE_DIR_GLOBS`), before the patch."""
        self._dirty: set[str] = set()
        self._future: set[str] = set()
        self._gitmeta = b""
        self._gitstate: set[str] = set()
        self._marker = f"pytest-swe-tree-{secrets.token_hex(16)}"
        self._around: bytes | None = None

    def _exec(self, script: str) -> str:
        return self.sandbox.exec(script, timeout=self.timeout, workdir="/").output

    def read(self, name: str) -> bytes:
        try:
            return self.sandbox.read_file(f"{self.dir}/{name}")
        except FileNotFoundError:
            return b""

    def _record_script(self) -> str:
        roots = " ".join(shlex.quote(r or ".") for r in IMPORT_ROOTS)
        return _BEFORE.format(
            workdir=shlex.quote(self.workdir),
            dir=self.dir,
            functions=GIT_FUNCTIONS,
            roots=roots,
            sites=" ".join(SITE_DIR_GLOBS),
            past_the_stamp=PAST_THE_STAMP,
        )

    def _changes_script(self) -> str:
        return _AFTER.format(workdir=shlex.quote(self.workdir), dir=self.dir, functions=GIT_FUNCTIONS)

    def record(self) -> None:
        """HEAD, dirty files, ``.git`` metadata, import-root names and a time stamp, before the patch."""
        self._exec(self._record_script())
        self._take_record(unbundle(self.read("before")))

    def _take_record(self, parts: dict[str, bytes]) -> None:
        self.head = parts.get("head", b"").decode(errors="replace").strip() or None
        self._dirty = set(_nul_list(parts.get("dirty", b"")))
        self._future = {_repo_path(p) for p in _nul_list(parts.get("future", b""))}
        self._gitmeta = parts.get("gitmeta.before", b"")
        self._gitstate = set(parts.get("gitstate", b"").decode(errors="replace").splitlines())
        names = parts.get("roots", b"").decode("utf-8", errors="surrogateescape").splitlines()
        self.base_names = frozenset(_repo_path(n) for n in names if n)
        listing = parts.get("installed", b"").decode("utf-8", errors="surrogateescape").splitlines()
        self.installed = frozenset(m for m in map(installed_module, listing) if m)

    def around(self, script: str) -> str:
        """``script`` between :meth:`record` and :meth:`changes`, as one shell script (one exec):
        the tree's steps run in subshells with their output discarded, so the exit status is the
        script's own; the changes are read only when it exits 0. The record and the changes follow
        the script's output after a line no code under test can know (:meth:`take_around` parts
        them), and are kept in a file too, for when the output was cut."""
        around = f"{self.dir}/around"
        return (
            f"( {self._record_script()} ) >/dev/null 2>&1\n"
            f"( {script} )\n"
            "rc=$?\n"
            f'if [ "$rc" = 0 ]; then ( {self._changes_script()} ) >/dev/null 2>&1; fi\n'
            f"cat {self.dir}/before {self.dir}/after > {around} 2>/dev/null\n"
            f'echo; echo "{self._marker} $(wc -c < {around} 2>/dev/null | tr -d " ")"; cat {around} 2>/dev/null\n'
            'exit "$rc"\n'
        )

    def take_around(self, output: str) -> str:
        """The output of a script run :meth:`around` it, without what the tree's steps added."""
        own, found, rest = output.rpartition(f"\n{self._marker} ")
        size, _, record = rest.partition("\n")
        data = record.encode("utf-8", errors="surrogateescape")
        # Output is text and capped: a record whose bytes were not all UTF-8, or whose middle was
        # cut, is not the size it was; it is then read from its file, byte for byte.
        whole = found and size == str(len(data)) and "\ufffd" not in record
        self._around = data if whole else None
        return own if found else output

    @property
    def record_printed(self) -> bool:
        """Whether :meth:`take_around` found the record whole in the output it was given (else
        :meth:`read_around` reads it from its file)."""
        return self._around is not None

    def read_around(self) -> TreeChanges:
        """After a script run :meth:`around` it: the record taken before it, and what changed."""
        data = self._around if self._around is not None else self.read("around")
        parts = unbundle(data)
        self._take_record(parts)
        return self._changes_from(parts)

    def changes(self) -> TreeChanges:
        """What changed since :meth:`record` (content changes of tracked files, new files, ``.git``)."""
        self._exec(self._changes_script())
        return self._changes_from(unbundle(self.read("after")))

    def _changes_from(self, parts: dict[str, bytes]) -> TreeChanges:
        tracked_raw = _nul_list(parts.get("tracked", b""))
        touched = {_repo_path(p) for p in _nul_list(parts.get("new", b""))} - self._future
        untracked = {normalize(p) for p in _nul_list(parts.get("untracked", b""))} - self._future
        out = TreeChanges(git_altered=parts.get("gitmeta.after", b"") != self._gitmeta)
        tracked: set[str] = set()
        for status, path in zip(tracked_raw[::2], tracked_raw[1::2], strict=False):
            path = normalize(path)
            tracked.add(path)
            if path in self._dirty and path not in touched:
                continue  # dirty in the image already, not touched by the patch
            kind = {"D": "deleted", "T": "typechange", "A": "added"}.get(status[:1], "modified")
            out.changes.append(PathChange(path, kind, symlink=status.startswith("T")))
        for path in sorted(untracked - tracked):
            out.changes.append(PathChange(path, "added"))
        return out

    def check_foreseen(
        self,
        tracked: Iterable[tuple[str, str]],
        added: Iterable[str],
        limit: int,
        new_modules: Iterable[str] = (),
    ) -> str:
        """Shell, for right after :meth:`around`'s command, that exits 0 only when the tree changed
        as foretold: ``tracked`` (status ``M`` or ``D``, path) the tracked files that differ from
        HEAD, ``added`` the untracked files, no file dirty or in the future before the patch,
        ``.git`` unchanged, the record at most ``limit`` bytes of ASCII (read whole from the
        command's output), and none of ``new_modules`` (identifiers) installed in the image's site
        directories. Paths are plain: no quote, backslash, tab or line end."""
        names = sorted(new_modules)
        if not all(name.isidentifier() for name in names):
            raise ValueError(f"module names must be identifiers: {names!r}")
        return _FORESEEN.format(
            dir=self.dir,
            limit=int(limit),
            tracked="".join(f"{status}\t{path}\n" for status, path in sorted(tracked)),
            untracked="".join(f"{path}\n" for path in sorted(added)),
            modules=_NOT_INSTALLED.format(names=" ".join(f"-e {n}" for n in names)) if names else "",
        )

    def put_back(self, tracked: Iterable[str], added: Iterable[str]) -> str:
        """Shell, for right after :meth:`check_foreseen`, that puts ``tracked`` back as they are at
        HEAD and removes ``added`` (as :meth:`restore` does), and exits 0 only when that holds
        after it. Paths are plain, as :meth:`check_foreseen` takes them."""
        restore = [shlex.quote(path) for path in sorted(tracked)]
        remove = [shlex.quote(path) for path in sorted(added)]
        return _PUT_BACK.format(
            workdir=shlex.quote(self.workdir),
            functions=GIT_FUNCTIONS,
            restore="".join(f"rm -rf -- {p} && g checkout -q HEAD -- {p} || exit 1\n" for p in restore),
            remove="".join(f"rm -rf -- {p} || exit 1\n" for p in remove),
            verify=(f"g diff --quiet HEAD -- {' '.join(restore)} || exit 1\n" if restore else "")
            + "".join(f"[ -e {p} ] || [ -L {p} ] && exit 1\n" for p in remove),
        )

    def versions(self, path: str) -> tuple[str | None, str | None]:
        """A file's text at HEAD and in the tree now (None where it does not exist)."""
        out = f"{self.dir}/show"
        self._exec(_SHOW.format(workdir=shlex.quote(self.workdir), path=shlex.quote(path), out=out))
        before = self.read("show.before").decode("utf-8", errors="replace")
        after = self.read("show.after").decode("utf-8", errors="replace")
        return before or None, after or None

    def restore(self, paths: list[str]) -> list[str]:
        """Put ``paths`` back as they are at HEAD (remove those HEAD lacks); the paths still changed."""
        listing = f"{self.dir}/restore.lst"
        data = "".join(p + "\0" for p in paths).encode("utf-8", errors="surrogateescape")
        self.sandbox.write_file(listing, data)
        self._exec(_RESTORE.format(workdir=shlex.quote(self.workdir), listing=listing))
        return sorted({c.path for c in self.changes().changes} & set(paths))

    def git_after_run(self) -> list[str]:
        """What happened to ``.git`` during the tests: deleted, HEAD moved, history or hooks added."""
        return self.read_after_run(self._exec(self.after_run_script()))

    def after_run_script(self, head: str | None = None) -> str:
        """The check :meth:`git_after_run` runs, for a caller that runs it with other reads in one
        command (its output goes to :meth:`read_after_run`). ``head``: where the base commit is
        taken from instead of the record read back (a shell expression, in double quotes), for a
        check written before the record was read: :meth:`keep_head`'s variable."""
        return _AFTER_RUN.format(
            workdir=shlex.quote(self.workdir), head=head or self.head or "", functions=GIT_FUNCTIONS
        )

    def keep_head(self, variable: str) -> str:
        """Shell that keeps the base commit the record took in ``variable``, in the memory of the
        shell that runs it: to be run after :meth:`around`'s command and before any code under
        test, which can rewrite the record's files but not a variable of a shell it runs under."""
        return f"{variable}=$(cat {self.dir}/head 2>/dev/null)"

    def read_after_run(self, output: str) -> list[str]:
        """The problems in the output of :meth:`after_run_script`."""
        problems: list[str] = []
        for line in output.splitlines():
            if line in ("missing workdir", "missing .git"):
                problems.append(f"{line.split()[1]} was deleted during the tests")
            elif line == "lost base commit":
                problems.append(f"the base commit {self.head} is gone after the tests (history rewritten)")
            elif line.startswith("head "):
                head = line[5:].strip()
                if self.head and head != self.head:
                    now = f"now {head[:12]}" if head else "it no longer resolves"
                    problems.append(f"HEAD moved during the tests ({now}): history rewritten")
            elif line.strip() and line not in self._gitstate:
                problems.append(f"{line} appeared during the tests")
        return problems
