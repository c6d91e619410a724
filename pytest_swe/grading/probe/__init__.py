"""The harness's probe in the eval sandbox: canary tests, the result channel, start-up integrity.

:func:`plan_for` decides, from the eval script and the task, which graded test files get
canaries (only files the test command runs whole, for the runners whose output the family
reads: pytest, Django's runner, SymPy's ``bin/test``, unittest) and whether the result channel
can load (a direct pytest invocation). :func:`install_files` are the files that go into the
sandbox with the eval script (``hook.py`` and the plan that carries the rest); :func:`instrument`
puts the probe's steps into the eval script around the test command; :func:`collect` (or
:func:`collect_script` and :func:`read_collected`, in a command with other reads) reads back
what they wrote.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import shlex
from dataclasses import dataclass
from dataclasses import field
from importlib.resources import files
from typing import Any

from pytest_swe.api.sandbox import Sandbox

from ..diff import patch_paths
from ..paths import SHADOWABLE

PROBE_ROOT = "/tmp/pytest-swe"
START_MARK = ">>>>> Start Test Output"
END_MARK = ">>>>> End Test Output"

SNAPSHOT_MARK = "pytest-swe probe snapshot"
"""Printed by the snapshot step (with the plan's token, so the graded view drops it) once it is
written: the log then proves the probe's later steps were due, whatever the tests did after."""

RECORD_MARK = "pytest-swe probe record"
"""Printed by the pre and post steps with the digest of the record each wrote: the log binds the
records to the moment they were written, before the tests (pre) and after them (post)."""

RUNNERS = ("pytest", "django", "sympy", "unittest")
_PYTEST_COMMAND = re.compile(r"(?:^|[\s;&|(])(?:\S*/)?(?:py\.?test|python[\d.]*\s+-m\s+pytest)(?=\s|$)")
_SELECTING = frozenset({"-k", "-m", "--deselect", "--lf", "--last-failed", "--sw", "--stepwise", "--ff"})
_FAILFAST_LONG = ("--exitfirst", "--maxfail", "--failfast", "-x")


def _read(name: str) -> str:
    return files(__package__).joinpath(name).read_text(encoding="utf-8")


RECORD_IMPORT = (
    "from pytest_swe.grading.probe.record import write_record  # replaced by record.py when shipped\n"
)
_SHARED_IMPORT = re.compile(
    r"^from pytest_swe\.grading\.probe\.(\w+) import \w+  # replaced by \1\.py when shipped\n", re.M
)


def _shipped(name: str) -> str:
    """A script as it is shipped: its imports of the shared modules (the record writer, the test
    definitions reader) replaced by their code, once each, since in the sandbox nothing of
    pytest-swe is importable."""
    source = _read(name)
    if RECORD_IMPORT not in source:
        raise ValueError(f"{name} does not import write_record as the shipped scripts do")
    inlined: set[str] = set()

    def inline(match: re.Match[str]) -> str:
        module = match.group(1)
        if module in inlined:
            return ""
        inlined.add(module)
        return _read(f"{module}.py")

    return _SHARED_IMPORT.sub(inline, source)


@dataclass
class Plan:
    """What the probe does in one evaluation (written to the sandbox as ``plan.json``)."""

    repo: str
    dir: str
    token: str
    graded: list[dict[str, Any]] = field(default_factory=list)
    channel: dict[str, Any] = field(default_factory=dict)
    failfast: bool = False
    test_patch_paths: list[str] = field(default_factory=list)
    test_patch_file: str | None = None
    test_commands: int = 0
    """How many test-runner invocations the eval script's test section holds."""
    base: str | None = None
    """The commit the eval script resets test files to (HEAD when the row names none)."""
    script_path: str | None = None
    """Where the instrumented eval script is written (its post step checks it was not rewritten)."""
    script_sha: str | None = None
    files: dict[str, str] = field(default_factory=dict)
    """Files the hook writes into its directory before the snapshot (name -> text)."""
    watch: dict[str, Any] = field(default_factory=dict)
    """The equality watch (``equality.py``) for Python runners: module name, output, patched files."""
    sealed: bytes | None = None
    """``plan.json`` as the steps check it: fixed when the eval script is instrumented."""

    @property
    def snapshot_mark(self) -> str:
        return f"{self.token} {SNAPSHOT_MARK}"

    @property
    def record_mark(self) -> str:
        return f"{self.token} {RECORD_MARK}"

    @property
    def canaries_planned(self) -> bool:
        return any(g.get("canary") for g in self.graded)

    def to_json(self) -> str:
        data = {
            "repo": self.repo,
            "dir": self.dir,
            "token": self.token,
            "graded": self.graded,
            "channel": self.channel,
            "failfast": self.failfast,
            "test_patch_paths": self.test_patch_paths,
            "test_patch_file": self.test_patch_file,
            "base": self.base,
            "script_path": self.script_path,
            "files": self.files,
            "watch": {k: v for k, v in self.watch.items() if k != "patched"},
            "shadow_names": sorted(SHADOWABLE),
            "snapshot_mark": self.snapshot_mark,
            "record_mark": self.record_mark,
        }
        return json.dumps(data, sort_keys=True)


def test_section(script: str) -> list[str]:
    """The command lines between the start and end markers of an eval script."""
    lines = script.split("\n")
    start = next((i for i, line in enumerate(lines) if START_MARK in line), None)
    end = next(
        (i for i, line in enumerate(lines) if END_MARK in line and start is not None and i > start), None
    )
    if start is None or end is None:
        return []
    return [line for line in lines[start + 1 : end] if line.strip() and not line.strip().startswith("#")]


def _tokens(lines: list[str]) -> list[str]:
    """The arguments of the test commands (for pytest, those after ``pytest`` itself)."""
    out: list[str] = []
    for line in lines:
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            words = line.split()
        runner = next((i for i, w in enumerate(words) if w.rsplit("/", 1)[-1] in ("pytest", "py.test")), None)
        out += words[runner + 1 :] if runner is not None else words
    return out


def _failfast(tokens: list[str]) -> bool:
    for token in tokens:
        if token.startswith("--"):
            if token.split("=", 1)[0] in _FAILFAST_LONG:
                return True
        elif token.startswith("-") and len(token) > 1:
            for char in token[1:]:
                if char in "rkmpocnW":  # an option that takes the rest as its value
                    break
                if char == "x":
                    return True
    return False


def _django_label(path: str) -> str | None:
    if not path.endswith(".py"):
        return None
    parts = path[:-3].split("/")
    if parts and parts[0] == "tests":
        parts = parts[1:]
    return ".".join(parts) if parts else None


def _runs_whole(path: str, runner: str, tokens: list[str]) -> bool:
    """Whether the test command runs every test of ``path`` (so canaries added to it run too)."""
    if runner == "django":
        label = _django_label(path)
        return label is not None and any(t == label or label.startswith(t + ".") for t in tokens)
    for token in tokens:
        clean = token.rstrip("/")
        if token == path or (clean and (path.startswith(clean + "/") or clean == ".")):
            return True
    return False


def plan_for(
    *,
    workdir: str,
    script: str,
    test_patch: str | None,
    runner: str | None,
    channel: bool = True,
    base_commit: str | None = None,
    patched: list[str] | None = None,
    fail_to_pass: list[str] | None = None,
    script_path: str | None = None,
) -> Plan:
    """Decide what the probe does for one eval script (no sandbox needed)."""
    token = secrets.token_hex(6)
    plan = Plan(repo=workdir, dir=f"{PROBE_ROOT}/g-{secrets.token_hex(8)}", token=token, base=base_commit)
    plan.script_path = script_path
    paths = sorted(p for p in patch_paths(test_patch or "") if p and not p.startswith("/") and ".." not in p)
    plan.test_patch_paths = paths
    section = test_section(script)
    tokens = _tokens(section)
    plan.test_commands = sum(1 for line in section if _PYTEST_COMMAND.search(line))
    plan.failfast = _failfast(tokens)
    selecting = any(t.split("=", 1)[0] in _SELECTING for t in tokens)
    if runner in RUNNERS and section:
        for path in paths:
            if not path.endswith(".py"):
                continue
            whole = _runs_whole(path, runner, tokens) and not selecting
            entry: dict[str, Any] = {"path": path, "runner": runner, "canary": whole}
            if whole and runner == "pytest":
                entry["echo"] = _functions_of(path, fail_to_pass or [])
            plan.graded.append(entry)
    if test_patch and plan.graded:
        plan.test_patch_file = f"{plan.dir}/test.patch"
    direct = plan.test_commands > 0 and not any(t == "tox" or t.endswith("/tox") for t in tokens)
    chosen = {
        "enable": True,
        "module": f"swe_{secrets.token_hex(5)}",
        "out": f"{PROBE_ROOT}/c-{secrets.token_hex(8)}.jsonl",
    }
    if channel and runner == "pytest" and direct:
        plan.channel = {**chosen, "kind": "pytest"}
    elif channel and runner in ("django", "unittest") and section:
        plan.channel = {**chosen, "kind": "unit"}
    else:
        reason = (
            "no direct pytest invocation" if runner == "pytest" else f"no channel for the {runner} runner"
        )
        plan.channel = {"enable": False, "reason": reason}
    if runner in RUNNERS and section and patched:
        plan.watch = {
            "enable": True,
            "module": f"swe_{secrets.token_hex(5)}",
            "out": f"{PROBE_ROOT}/w-{secrets.token_hex(8)}.jsonl",
            "patched": sorted(patched),
        }
    _attach_files(plan, test_patch)
    return plan


def _functions_of(path: str, tests: list[str]) -> list[str]:
    """The module-level test functions of ``path`` among pytest ids (``path::name[params]``): the
    tests an echo canary may copy."""
    names = set()
    for test in tests:
        parts = test.split("::")
        if len(parts) == 2 and parts[0] == path:
            names.add(parts[1].split("[", 1)[0])
    return sorted(n for n in names if n.isidentifier())


def _attach_files(plan: Plan, test_patch: str | None) -> None:
    """The files the plan carries: the snapshot writes them out; the check before the tests
    installs the channel and the watch from this text, not from those copies."""
    if plan.channel.get("enable"):
        plan.files["channel.py"] = channel_source(plan)
    if plan.watch.get("enable"):
        plan.files["watch.py"] = watch_source(plan)
    if plan.test_patch_file and test_patch:
        plan.files["test.patch"] = test_patch


def channel_source(plan: Plan) -> str:
    """The channel module for the plan's runner, with its output path (and graded files) filled in."""
    out = repr(plan.channel.get("out", ""))
    graded = repr(json.dumps(sorted(g["path"] for g in plan.graded)))
    if plan.channel.get("kind") == "unit":
        return (
            _shipped("unitchannel.py")
            .replace('"@OUT@"', out)
            .replace('"""@GRADED@"""', graded)
            .replace('"@REPO@"', repr(plan.repo))
            .replace('"@WATCH@"', repr(plan.watch.get("module", "") if plan.watch.get("enable") else ""))
        )
    return (
        _shipped("channel.py")
        .replace('"@OUT@"', out)
        .replace('"""@GRADED@"""', graded)
        .replace('"@MARK@"', repr(plan.record_mark))
        .replace('"@REPO@"', repr(plan.repo))
        .replace('"@WATCH@"', repr(plan.watch.get("module", "") if plan.watch.get("enable") else ""))
    )


def watch_source(plan: Plan) -> str:
    """The equality watch with its output, repository and the patch's files filled in."""
    patched = repr(json.dumps(plan.watch.get("patched", [])))
    return (
        _shipped("equality.py")
        .replace('"@OUT@"', repr(plan.watch.get("out", "")))
        .replace('"@REPO@"', repr(plan.repo))
        .replace('"""@PATCHED@"""', patched)
        .replace('"""@GRADED@"""', repr(json.dumps(sorted(g["path"] for g in plan.graded))))
        .replace('"@SCRIPT@"', repr(plan.script_path or ""))
        .replace('"@PROBE_ROOT@"', repr(PROBE_ROOT))
    )


def install_files(plan: Plan) -> dict[str, tuple[bytes, int]]:
    """The probe's files for the sandbox (``path: (data, mode)``): the hook, and the plan that
    carries every other file it writes out (the channel, the watch, the test patch)."""
    return {f"{plan.dir}/hook.py": (HOOK, 0o600), f"{plan.dir}/plan.json": (_sealed(plan), 0o600)}


HOOK = _read("hook.py").encode("utf-8")
HOOK_SHA = hashlib.sha256(HOOK).hexdigest()


def _sealed(plan: Plan) -> bytes:
    # Ending with a newline, as a here-document ends: the files can travel in the eval's command.
    if plan.sealed is None:
        plan.sealed = (plan.to_json() + "\n").encode("utf-8", errors="surrogateescape")
    return plan.sealed


VERIFY = (
    "import hashlib,marshal,os,sys;a=sys.argv;h=a[1];s=open(h,'rb').read();"
    "c=h+'.'+hashlib.sha256(sys.version.encode()).hexdigest()[:16]+'.code';"
    "b=open(c,'rb').read() if a[3] and os.path.isfile(c) else b'';sys.argv=a[1:2]+a[4:];"
    "eval(marshal.loads(b) if b and hashlib.sha256(b).hexdigest()==a[3] else compile(s,h,'exec'),"
    "{'__name__':'__main__','__swe_code__':c}) if hashlib.sha256(s).hexdigest()==a[2] "
    "else sys.exit('pytest-swe probe: '+h+' was changed after it was written')"
)
"""How a step starts the hook: from bytes read once and checked against the digest in the eval
script's text (``python -c VERIFY hook.py DIGEST CODE_DIGEST MODE PLAN ...``), so a hook
rewritten by the code the eval script runs does not run. Python 2 and 3 alike (the snapshot may
meet either); one line, as the eval script's trace (``set -x``) prints it into the log.

The snapshot and the check before the tests leave the hook's compiled code beside it, one file
per interpreter (named by a digest of ``sys.version``), and print its digest for the eval
script's shell to keep (``__swe_code``); a later step whose shell holds the digest of that file
loads the code instead of compiling 70 KB of source again. A file that does not match the
shell's digest (rewritten, absent, another interpreter's) is not loaded: the step compiles the
checked source, as it would without one."""


CODE_DIGEST = '"${__swe_code:-}"'
"""The compiled hook's digest as the eval script's shell keeps it (empty before the snapshot)."""


SEAL_FD = 7
"""The descriptor of the log the channel seals its record on (``hook.SEAL_FD``)."""
ISOLATED = "-I -S"
"""How the steps after the eval script's install step start Python: no ``.pth`` file,
``sitecustomize``, ``PYTHON*`` variable or module beside ``hook.py`` runs in the probe, so code
that install step planted cannot stop or steer the checks. The snapshot, before any of the
patch's code ran, starts Python as the tests will, to see the same site directories."""


def _step(plan: Plan, mode: str) -> str:
    # The plan's digest is checked only for a sealed plan (one written by install_files).
    digests = hashlib.sha256(plan.sealed).hexdigest() if plan.sealed is not None else "''"
    if mode == "pre":
        digests += ' "${__swe_snap:-}"'  # the snapshot's digest, kept by this shell
    verify = shlex.quote(VERIFY)
    code = "''" if mode == "snapshot" else CODE_DIGEST
    args = (
        f"-c {verify} {plan.dir}/hook.py {HOOK_SHA} {code} {mode} {plan.dir}/plan.json {digests} "
        f"2>>{plan.dir}/hook.err"
    )
    if mode == "snapshot":
        run = f'eval "$("$__swe_py" {args})"'
    else:
        # An interpreter that cannot start isolated (a Python 2 ``python``: usage error, status 2)
        # gives way to python3; a step that ran is never run twice.
        run = (
            f'{{ "$__swe_py" {ISOLATED} {args} || {{ [ $? = 2 ] && __swe_py3=$(command -v python3) && '
            f'[ "$__swe_py3" != "$__swe_py" ] && "$__swe_py3" {ISOLATED} {args}; }}; }}'
        )
    if mode == "pre":
        run = f'eval "$({run})"'
    # The snapshot runs before the script activates any environment: the image's own Python.
    order = "python3 || command -v python" if mode == "snapshot" else "python || command -v python3"
    # After the tests, the record of the check before them again, from the shell's memory: the
    # log's tail holds it even when the log was cut in its middle, where the first one was.
    again = 'if [ -n "${__swe_pre:-}" ]; then echo "$__swe_pre"; fi; ' if mode == "post" else ""
    # Before the check before the tests: a descriptor of this shell's output (the log) that the
    # runner inherits, for the result channel to print its seal on whatever the test command's
    # own output is redirected to.
    log_fd = f"exec {SEAL_FD}>&1; " if mode == "pre" else ""
    return (
        f"__swe_rc=$?; {log_fd}__swe_py=$(command -v {order} || true); "
        f'if [ -n "$__swe_py" ]; then {run} || true; fi; {again}(exit $__swe_rc)'
    )


_PREAMBLE = re.compile(r"^\s*(?:#.*|set\s+[-+].*|)$")


def instrument(script: str, plan: Plan) -> str:
    """The eval script with the probe's steps right before the test command and right after it."""
    lines = script.split("\n")
    start = next((i for i, line in enumerate(lines) if START_MARK in line), None)
    end = next(
        (i for i, line in enumerate(lines) if start is not None and i > start and END_MARK in line), None
    )
    if start is None or end is None:
        return script
    after = end + 1
    if after < len(lines) and "Test Exit Code" in lines[after]:
        after += 1
    first = next((i for i, line in enumerate(lines) if not _PREAMBLE.match(line)), start)
    first = min(first, start)
    _sealed(plan)
    # One brace group: bash reads and parses all of it before it runs any of it, so code the
    # script runs cannot rewrite the rest of the script (its later steps, their digests) on disk.
    out = [
        *lines[:first],
        "{",
        _step(plan, "snapshot"),
        *lines[first:start],
        _step(plan, "pre"),
        *lines[start:after],
        _step(plan, "post"),
        *lines[after:],
        "}",
    ]
    instrumented = "\n".join(out)
    plan.script_sha = hashlib.sha256(instrumented.encode("utf-8", errors="surrogateescape")).hexdigest()
    return instrumented


@dataclass
class ProbeResults:
    """What the probe's steps wrote (empty where a step did not run)."""

    pre: dict[str, Any] = field(default_factory=dict)
    post: dict[str, Any] = field(default_factory=dict)
    channel: list[dict[str, Any]] = field(default_factory=list)
    watch: list[dict[str, Any]] = field(default_factory=list)
    errors: str = ""
    digests: dict[str, str | None] = field(default_factory=dict)
    """sha256 of each file as read back (None: absent), by its name in the bundle."""
    channel_lines: dict[int, list[bytes]] = field(default_factory=dict)
    """The channel's lines as read back, by the pid that wrote them, in order: what its seals cover."""


_COLLECT = """\
set --
if cd {dir} 2>/dev/null; then
  for part in pre.json post.json hook.err; do [ -f "$part" ] && set -- "$@" "$part"; done
fi
for part in {channel} {watch}; do [ -f "$part" ] && set -- "$@" "$part"; done
[ "$#" -gt 0 ] && {{ {print_bundle}; }}
exit 0
"""


def _outputs(plan: Plan) -> tuple[str, str]:
    """The files the channel and the watch write to ('' for one that is not enabled)."""
    channel = plan.channel.get("out", "") if plan.channel.get("enable") else ""
    watch = plan.watch.get("out", "") if plan.watch.get("enable") else ""
    return channel, watch


def collect_script(plan: Plan) -> str:
    """The command that prints what the probe's steps wrote, as a bundle :func:`read_collected` reads."""
    channel, watch = _outputs(plan)
    from ..tree import PRINT_BUNDLE

    return _COLLECT.format(
        print_bundle=PRINT_BUNDLE,
        dir=plan.dir,
        channel=shlex.quote(channel) if channel else "",
        watch=shlex.quote(watch) if watch else "",
    )


COLLECT_OUTPUT_LIMIT = 256 << 20


def collect(sandbox: Sandbox, plan: Plan, *, timeout: float = 120.0) -> ProbeResults:
    """What the probe's steps wrote, read back in one command."""
    output = sandbox.exec(
        collect_script(plan), timeout=timeout, workdir="/", output_limit=COLLECT_OUTPUT_LIMIT
    )
    return read_collected(plan, output.output)


def read_collected(plan: Plan, output: str) -> ProbeResults:
    """The probe's results from the output of :func:`collect_script`."""
    from ..tree import unbundle

    channel, watch = _outputs(plan)
    parts = unbundle(output.encode("utf-8", errors="surrogateescape"))
    results = ProbeResults()
    results.pre = _loads(parts.get("pre.json")) or {}
    results.post = _loads(parts.get("post.json")) or {}
    if channel:
        results.channel, results.channel_lines = _channel_lines(parts.get(channel, b""))
    results.watch = _lines(parts.get(watch, b"")) if watch else []
    results.errors = parts.get("hook.err", b"").decode("utf-8", errors="replace")[-2000:]
    results.digests = {
        name: hashlib.sha256(parts[name]).hexdigest() if name in parts else None
        for name in ("pre.json", "post.json", channel, watch)
        if name
    }
    return results


def _loads(data: bytes | None) -> Any:
    try:
        return json.loads(data.decode("utf-8", errors="replace")) if data else None
    except ValueError:
        return None


def _channel_lines(data: bytes) -> tuple[list[dict[str, Any]], dict[int, list[bytes]]]:
    """The channel's records (as :func:`_lines` reads them) and its raw lines by the pid that wrote
    them (-1: none readable), in one pass: each line is parsed once."""
    records: list[dict[str, Any]] = []
    by_pid: dict[int, list[bytes]] = {}
    for line in data.splitlines(keepends=True):
        text = line.decode("utf-8", errors="replace")
        parts = text.splitlines()  # a str splits at more than line ends: \x0b, \x85, \u2028, ...
        parsed = [_record(part) for part in parts]
        records += [record for record in parsed if record is not None]
        whole = parsed[0] if parts == [text.rstrip("\r\n")] else _record(text)
        pid = whole.get("pid") if whole is not None else None
        by_pid.setdefault(pid if isinstance(pid, int) else -1, []).append(line)
    return records, by_pid


def _record(line: str) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def _lines(data: bytes) -> list[dict[str, Any]]:
    return [
        r for line in data.decode("utf-8", errors="replace").splitlines() if (r := _record(line)) is not None
    ]
