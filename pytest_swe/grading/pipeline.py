"""Grading one patch, top to bottom: inspect, neutralize, apply, run, parse, check evidence, grade.

Every family goes through these stages; a family supplies its eval script, its parser and its
grading rule, and nothing else. The verdict is decided in :func:`decide`, once, after the
family graded the test results:

1. :func:`inspect` reads the patch text for notes (never a verdict by itself).
2. :func:`apply_model_patch` applies the patch through the fallback chain, reads back what
   really changed in the tree, and under ``strict`` *neutralizes* what cannot belong to a
   fix (test files, ``conftest.py``, runner configuration, start-up files, entry points,
   compiled files, shadowing modules): restored and recorded, never punished.
3. :func:`patch_and_run` runs the eval script; under ``strict`` with the probe around the test
   command (start-up state re-checked after the script's install step, canary tests, the
   result channel).
4. The family parses the log and grades (its own rule, the official one for SWE-bench).
5. :func:`decide` drops the canaries from the status map and turns *evidence* of forgery into
   an unresolved verdict under ``strict``; under ``official`` it is only recorded.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from pytest_swe.api.errors import InfraError
from pytest_swe.api.family import EvalContext
from pytest_swe.api.patch import encode_patch
from pytest_swe.api.patch import patch_bytes
from pytest_swe.api.sandbox import Sandbox
from pytest_swe.api.settings import EvalSettings
from pytest_swe.api.task import Task
from pytest_swe.api.verdict import Verdict
from pytest_swe.grading.patching import APPLY_COMMANDS
from pytest_swe.grading.patching import PATCH_PATH
from pytest_swe.grading.patching import ApplyResult
from pytest_swe.grading.patching import apply_command
from pytest_swe.grading.patching import apply_patch
from pytest_swe.grading.patching import read_apply

from . import evidence as ev
from . import probe
from .configfiles import SECTIONED_FILES
from .configfiles import steering_changed
from .diff import FileDiff
from .diff import normalize
from .diff import parse_patch
from .findings import TAMPER
from .findings import Finding
from .findings import dedupe
from .findings import evidence
from .findings import note
from .logcheck import HARNESS_MARKERS
from .logcheck import forged_markers
from .paths import PathChange
from .paths import Protection
from .paths import importable_module
from .paths import in_git_dir
from .paths import new_importable_modules
from .paths import root_entry
from .paths import why_neutralized
from .run import Afterwards
from .run import Opening
from .run import run_script
from .run import run_script_then
from .spec import GRADED_LOG
from .spec import POLICY_VERSION
from .spec import STRICT
from .spec import ProbeSpec
from .tree import TreeChanges
from .tree import WorkTree

APPLY_TIMEOUT = 300.0
GUARD_TIMEOUT = 120.0
StatusMap = Mapping[str, str]
_CANARY_EXIT = re.compile(r"(>>>>> Test Exit Code: )1\b")
EMPTY_PATCH_REASON = "the patch is empty"
APPLY_IN = "apply_in"
"""``Verdict.extra``'s record of the command the patch was applied in (the ``apply_in`` property)."""
INTEGRITY_KEYS = ("policy", "neutralized", "probe", APPLY_IN)
"""``Verdict.extra`` entries of the live run's integrity checks and apply, kept by a re-grade."""
IN_EVAL_COMMAND = "eval_command"
"""The apply was the eval command's first step, and the script (if the patch applied) ran in it."""
IN_OWN_COMMAND = "own_command"
"""The apply was a command of its own, the script a second one."""
NOT_AS_FORETOLD = "eval_command_not_foretold"
"""The apply was the eval command's first step, the tree was not what the patch's text foretold,
so the script did not run there, and ran in a second command."""
IN_SCRIPT = "eval_script"
"""The family's eval script applies the patch itself (Multi-SWE-bench's ``fix-run.sh``)."""


@dataclass
class Integrity:
    """One evaluation's grading state, from the first stage to :func:`decide`."""

    policy: str
    protection: Protection
    findings: list[Finding] = field(default_factory=list)
    neutralized: list[str] = field(default_factory=list)
    blocked: str | None = None
    plan: probe.Plan | None = None
    results: probe.ProbeResults | None = None
    patched: list[str] = field(default_factory=list)
    """What the fix changed in the tree (after neutralization): the files the equality watch reads."""
    canary_keys: set[str] = field(default_factory=set)

    @property
    def strict(self) -> bool:
        return self.policy == STRICT

    def add(self, findings: list[Finding]) -> None:
        self.findings = dedupe([*self.findings, *findings])


@dataclass
class EvalRun:
    """What happened in the eval sandbox, before the family parses it."""

    verdict: Verdict
    ran: bool = False
    log: str = ""
    """The log as the family grades it: the eval log without the probe's canary lines."""
    raw_log: str = ""
    exit_code: int | None = None
    apply: ApplyResult | None = None


def settings_of(eval_settings: EvalSettings) -> tuple[str, dict[str, Any]]:
    """(policy name, options as a mapping) of the ``eval`` settings."""
    return eval_settings.policy, eval_settings.policy_options.model_dump()


def required_tests(task: Task) -> list[str]:
    """Every test id the task's grading reads."""
    tests = [*task.fail_to_pass, *task.pass_to_pass]
    for group in task.extra_required.values():
        tests += group
    tests += list(task.expected_status_map or {})
    return tests


def integrity_of(task: Task, ctx: EvalContext) -> Integrity:
    """The evaluation's grading state, created on first use from ``eval.policy`` and its options."""
    current = ctx.integrity
    if isinstance(current, Integrity):
        return current
    options = ctx.settings.eval.policy_options
    protection = Protection.build(
        test_patch=task.test_patch,
        required_tests=required_tests(task),
        hidden_paths=task.hidden_paths,
        workdir=task.workdir,
        protected_patterns=options.protected_paths,
        allowed_patterns=options.allowed_paths,
    )
    created = Integrity(policy=ctx.settings.eval.policy, protection=protection)
    ctx.integrity = created
    return created


def start_verdict(patch: str, grader: str) -> Verdict:
    return Verdict(resolved=False, patch_exists=bool(patch.strip()), grader=grader)


# --- 1. inspect ------------------------------------------------------------------------------


def inspect(patch: str) -> list[Finding]:
    """Notes on the patch text. What a patch changed is read from the tree, not from here."""
    return [
        note("marker-text", f"the patch contains the harness log marker {m!r}")
        for m in HARNESS_MARKERS
        if m in patch
    ]


def inspect_model_patch(task: Task, patch: str, ctx: EvalContext) -> Integrity:
    """Stage 1 alone, for families that apply the patch inside their own script."""
    integrity = integrity_of(task, ctx)
    integrity.add(inspect(patch))
    return integrity


# --- 2. apply and neutralize -----------------------------------------------------------------


def neutralize(tree: WorkTree, integrity: Integrity, changes: list[PathChange]) -> dict[str, str]:
    """The changed paths the strict policy restores, each with why."""
    chosen: dict[str, str] = {}
    shadowing = tree.installed & new_importable_modules(changes, tree.base_names)
    for change in changes:
        reason = why_neutralized(change, integrity.protection, tree.base_names, shadowing)
        configured = change.path.rsplit("/", 1)[-1] in SECTIONED_FILES
        if reason is None and configured and not integrity.protection.allowed(change.path):
            before, after = tree.versions(change.path)
            if steering_changed(change.path, before, after):
                reason = "its pytest settings or plugin entry points changed"
        if reason is not None:
            chosen[change.path] = reason
    return chosen


def apply_model_patch(
    task: Task,
    patch: str,
    sandbox: Sandbox,
    ctx: EvalContext,
    verdict: Verdict,
    *,
    commands: tuple[str, ...] = APPLY_COMMANDS,
) -> bool:
    """Apply the patch; False (with a reason on the verdict) when it does not apply.

    The tree is recorded first, so what the patch really changed is read back afterwards;
    under ``strict`` the paths :func:`neutralize` picks are restored to the base commit.
    """
    integrity = integrity_of(task, ctx)
    if not verdict.patch_exists:
        verdict.reasons.append(EMPTY_PATCH_REASON)
        return True
    limit = ctx.settings.eval.policy_options.max_patch_bytes
    size = len(patch_bytes(patch))
    if integrity.strict and limit is not None and size > limit:
        verdict.patch_applied = False
        verdict.reasons.append(
            f"the patch is {size / 1e6:.1f} MB, over the {limit / 1e6:g} MB limit"
            " (eval.policy_options.max_patch_bytes); it was not applied"
        )
        return False
    integrity.add(inspect(patch))
    guard = min(ctx.timeout, GUARD_TIMEOUT)
    tree = WorkTree(sandbox, task.workdir, f"{probe.PROBE_ROOT}/t-{secrets.token_hex(6)}", guard)
    ctx.tree = tree
    verdict.extra[APPLY_IN] = IN_OWN_COMMAND
    # The tree recorded before the patch and read back after it, in the same command as the apply.
    applied = apply_patch(
        sandbox,
        patch,
        workdir=task.workdir,
        timeout=min(ctx.timeout, APPLY_TIMEOUT) + 2 * guard,
        commands=commands,
        wrap=tree.around,
        unwrap=tree.take_around,
    )
    return _take_apply(task, ctx, verdict, tree, applied, commands)


def _record_apply(ctx: EvalContext, verdict: Verdict, tree: WorkTree, applied: ApplyResult) -> TreeChanges:
    """The apply's outcome on the verdict and in ``apply.log``, and what the tree's record read back."""
    changed = tree.read_around()
    ctx.save("apply.log", applied.log)
    verdict.patch_applied = applied.applied
    verdict.apply_method = applied.method
    return changed


def _take_apply(
    task: Task,
    ctx: EvalContext,
    verdict: Verdict,
    tree: WorkTree,
    applied: ApplyResult,
    commands: tuple[str, ...],
) -> bool:
    """The apply's outcome on the verdict, and what the patch changed read back from the tree
    (:meth:`WorkTree.around` ran around the apply): ``.git`` changed, paths to neutralize."""
    integrity = integrity_of(task, ctx)
    changed = _record_apply(ctx, verdict, tree, applied)
    if not applied.applied:
        verdict.reasons.append(
            "the patch did not apply (" + ", ".join(c.split(" {path}")[0] for c in commands) + ")"
        )
        return False
    if changed.git_altered:
        integrity.add([evidence("git", "the patch changed .git (hooks, config or refs run during the eval)")])
        if integrity.strict:
            integrity.blocked = "the patch changed .git"
    restore = neutralize(tree, integrity, changed.changes)
    integrity.patched = [c.path for c in changed.changes if c.path not in restore and c.kind != "deleted"]
    described = [f"{path} ({reason})" for path, reason in restore.items()]
    if integrity.strict and restore and integrity.blocked is None:
        left = tree.restore(list(restore))
        integrity.neutralized += described
        if left:
            integrity.blocked = "protected paths could not be restored: " + ", ".join(left[:5])
            integrity.add([evidence("restore", integrity.blocked)])
    elif restore:
        integrity.add([note("neutralized-under-strict", entry) for entry in described])
    return True


# --- 3. run ----------------------------------------------------------------------------------


def _prepare_probe(
    task: Task, ctx: EvalContext, script: str, spec: ProbeSpec | None, path: str
) -> tuple[str, dict[str, tuple[bytes, int]]]:
    """The script with the probe around its test command, and the probe's files to write beside it."""
    integrity = integrity_of(task, ctx)
    if not integrity.strict:
        return script, {}
    plan = probe.plan_for(
        workdir=task.workdir,
        script=script,
        test_patch=task.test_patch,
        runner=spec.runner if spec else None,
        base_commit=task.base_commit,
        patched=integrity.patched,
        fail_to_pass=list(task.fail_to_pass),
        script_path=path,
    )
    instrumented = probe.instrument(script, plan)
    integrity.plan = plan
    return instrumented, probe.install_files(plan)


def _graded_view(log: str, plan: probe.Plan, reading: ev.CanaryReading) -> str:
    """The log without the canaries' lines; when only must-fail canaries failed, the test
    command's recorded exit status 1 is the one the run would have had without them: 0."""
    view = "\n".join(
        line for line in log.split("\n") if plan.token not in line and not reading.names_line(line)
    )
    if reading.only_canaries_failed:
        view = _CANARY_EXIT.sub(r"\g<1>0", view)
    return view


def _check_run(
    task: Task,
    sandbox: Sandbox,
    ctx: EvalContext,
    run: EvalRun,
    script: str,
    spec: ProbeSpec | None,
    carried: tuple[str, str] | None = None,
) -> None:
    """The checks after the tests, from ``carried`` (their marker and output, read in the eval
    script's own command) or, when that could not carry them, in a command of their own."""
    integrity = integrity_of(task, ctx)
    integrity.add(forged_markers(run.raw_log, script))
    plan = integrity.plan
    timeout = min(ctx.timeout, GUARD_TIMEOUT)
    results: probe.ProbeResults | None = None
    if plan is not None and isinstance(ctx.tree, WorkTree):
        problems, results = _read_after_run(sandbox, ctx.tree, plan, timeout, carried)
    elif carried is not None and isinstance(ctx.tree, WorkTree):
        problems = ctx.tree.read_after_run(carried[1])
    elif ctx.tree is not None:
        problems = ctx.tree.git_after_run()
    else:
        problems = []
    integrity.add([evidence("git", problem) for problem in problems])
    run.log = run.raw_log
    if plan is None:
        return
    if results is None:
        results = probe.collect(sandbox, plan, timeout=timeout)
    integrity.results = results
    integrity.neutralized += [
        f"{entry}, after the eval script's install step" for entry in results.pre.get("neutralized", [])
    ]
    if spec is None:
        return
    required = required_tests(task)
    section = _between_markers(run.raw_log)
    try:
        status_map = dict(spec.parse(section) or spec.parse(run.raw_log))
    except Exception:  # an unreadable log is the family's to report; no status map, no evidence from it
        status_map = {}
    reading = ev.read_canaries(plan, results, status_map, required)
    integrity.canary_keys = reading.keys
    without = {k: v for k, v in status_map.items() if k not in reading.keys}
    integrity.add(reading.findings)
    integrity.add(ev.read_channel(plan, results, without, required, exact_ids=spec.exact_ids))
    integrity.add(ev.read_unit_channel(results, without, required))
    integrity.add(ev.read_watch(results))
    integrity.add(ev.read_inspection(results, _base_text(ctx)))
    integrity.add(ev.read_integrity(plan, results, script=script, log=run.raw_log))
    integrity.add(ev.read_records(plan, results, run.raw_log))
    integrity.add(ev.read_seals(plan, results, run.raw_log))
    integrity.add(ev.conflicting_statuses(section, required, spec.parse, spec.runner))
    run.log = _graded_view(run.raw_log, plan, reading)
    if run.log != run.raw_log:
        ctx.artifacts.mkdir(parents=True, exist_ok=True)
        (ctx.artifacts / GRADED_LOG).write_bytes(encode_patch(run.log))


def _base_text(ctx: EvalContext) -> Callable[[str], str | None]:
    """A patched file's text before the patch (one read from the sandbox, only when asked)."""
    tree = ctx.tree
    if isinstance(tree, WorkTree):
        return lambda path: tree.versions(path)[0]
    return lambda path: None


AFTERWARDS_LIMIT = 256 << 10
"""The most output the checks after the tests carry back in the eval script's own command."""


def _afterwards(
    ctx: EvalContext, plan: probe.Plan | None, head: str | None = None
) -> tuple[Afterwards, str] | None:
    """The checks after the tests (``.git``, and the probe's results under ``strict``), to run in
    the eval script's own command, with the line that parts the two; None when there is no tree.
    ``head``: the base commit as a shell expression (see :meth:`WorkTree.after_run_script`)."""
    tree = ctx.tree
    if not isinstance(tree, WorkTree):
        return None
    marker = f"pytest-swe-after-run-{secrets.token_hex(16)}"
    limit = min(AFTERWARDS_LIMIT, max(ctx.output_limit // 4, 1))
    command = _after_run_command(tree, plan, marker, head)
    return Afterwards(command, limit=limit), marker


def _after_run_command(tree: WorkTree, plan: probe.Plan | None, marker: str, head: str | None = None) -> str:
    command = f"( {tree.after_run_script(head)} )\n"
    if plan is not None:
        command += f"echo {marker}\n( {probe.collect_script(plan)} )\n"
    return command + "exit 0\n"


def _read_after_run(
    sandbox: Sandbox,
    tree: WorkTree,
    plan: probe.Plan,
    timeout: float,
    carried: tuple[str, str] | None = None,
) -> tuple[list[str], probe.ProbeResults]:
    """The check of ``.git`` and the probe's results, read in one command after the tests, or
    from ``carried`` (the marker and the output of the same command run at the end of the eval
    script's command).

    The two outputs are parted by a line no code under test can know in advance; when the check
    printed so much that the output cap cut that line out, the check counts as failed."""
    if carried is None:
        marker = f"pytest-swe-after-run-{secrets.token_hex(16)}"
        output = sandbox.exec(
            _after_run_command(tree, plan, marker),
            timeout=timeout,
            workdir="/",
            output_limit=probe.COLLECT_OUTPUT_LIMIT,
        ).output
    else:
        marker, output = carried
    checked, found, collected = output.partition(f"{marker}\n")
    if not found:
        return ["the check of .git after the tests printed more than can be read"], probe.ProbeResults()
    return tree.read_after_run(checked), probe.read_collected(plan, collected)


def _between_markers(log: str) -> str:
    if probe.START_MARK in log:
        return log.split(probe.START_MARK, 1)[1].split(probe.END_MARK, 1)[0]
    return log


def patch_and_run(
    task: Task,
    patch: str,
    sandbox: Sandbox,
    ctx: EvalContext,
    script: str,
    *,
    grader: str,
    commands: tuple[str, ...] = APPLY_COMMANDS,
    path: str = "/eval.sh",
    command: str | None = None,
    probe_spec: ProbeSpec | None = None,
    self_applying: bool = False,
    applied_with_script: bool = True,
) -> EvalRun:
    """Stages 1-3: apply the patch (neutralizing what a fix cannot need), then run ``script``.

    Stops early (``ran=False``) when the patch does not apply, is empty and the settings say
    not to run empty patches, or changed ``.git``.

    ``self_applying``: the script applies the patch itself (Multi-SWE-bench's ``fix-run.sh`` runs
    a strict ``git apply``, and its own apply decides the official verdict). Applying it first
    would leave the script nothing to apply, so the patch text is inspected before the run, the
    log checked after it, and the tree is not neutralized. The family writes the patch where its
    script reads it before calling this.

    ``applied_with_script``: apply the patch in the eval script's own command, as its first step,
    where :func:`applies_with_script` allows it (False: always in a command of its own).
    """
    verdict = start_verdict(patch, grader)
    run = EvalRun(verdict)
    if self_applying:
        if verdict.patch_exists:
            verdict.extra[APPLY_IN] = IN_SCRIPT
        return _run_self_applying(task, patch, sandbox, ctx, script, run, path)
    allowed, foreseen = _in_one_command(task, patch, ctx)
    if applied_with_script and allowed:
        verdict.extra[APPLY_IN] = IN_EVAL_COMMAND
        return _apply_and_run(
            task, patch, sandbox, ctx, script, run, commands, path, command, probe_spec, foreseen
        )
    with ctx.timed("apply"):
        applied = apply_model_patch(task, patch, sandbox, ctx, verdict, commands=commands)
    if not applied:
        return run
    if not verdict.patch_exists and not ctx.settings.eval.run_empty_patch:
        return run
    return _run_applied(task, sandbox, ctx, script, run, path, command, probe_spec)


def applies_with_script(task: Task, patch: str, ctx: EvalContext) -> bool:
    """Whether the patch can be applied in the eval script's own command, one round trip to the
    sandbox fewer: when what the host decides between the apply and the script does not depend on
    what the apply did, or (under ``strict``, which plans its probe from the paths the patch
    changed and puts back those a fix cannot need) when the patch's text foretells it
    (:func:`foresee`). Not for an empty patch, nor one that names a file whose pytest settings the
    host reads as the patch left them (:data:`SECTIONED_FILES`: the script may change it first):
    under ``strict`` by the paths :func:`foresee` reads, which the sandbox checks, elsewhere by
    the patch's whole text."""
    return _in_one_command(task, patch, ctx)[0]


def _in_one_command(task: Task, patch: str, ctx: EvalContext) -> tuple[bool, Foreseen | None]:
    """:func:`applies_with_script`, and under ``strict`` what the patch foretells (read once)."""
    integrity = integrity_of(task, ctx)
    if not patch.strip():
        return False, None
    if not integrity.strict:
        # No check in the sandbox here: a patch whose text names such a file at all is turned away.
        return not any(name in patch for name in SECTIONED_FILES), None
    limit = ctx.settings.eval.policy_options.max_patch_bytes
    if limit is not None and len(patch_bytes(patch)) > limit:
        return False, None
    foreseen = foresee(patch, integrity)
    return foreseen is not None, foreseen


_FORESEEABLE_PATH = re.compile(r"[A-Za-z0-9._+@,=-][A-Za-z0-9._+@,=/ -]*")
"""Paths the check in the sandbox can compare as plain text (no quote, backslash, tab, line end or
byte outside ASCII): a patch that names another is applied in a command of its own."""
NOT_FORESEEN = 97
"""The apply's exit status in the eval command when the tree is not what the patch foretold."""


@dataclass(frozen=True)
class Foreseen:
    """What a patch will change in the tree, read from its text, under ``strict``: tracked files it
    modifies (``M``) or deletes (``D``), and files it adds; those the policy puts back by their
    path alone listed again in ``put_back``. The probe is planned from it before the apply, and
    the eval command checks the tree against it (:meth:`WorkTree.check_foreseen`) before the
    script runs."""

    tracked: tuple[tuple[str, str], ...]
    added: tuple[str, ...]
    new_modules: tuple[str, ...] = ()
    """Top-level modules the patch adds at an import root (an agent's ``reproduce.py``): none of
    them a name the policy always guards, and the check in the sandbox makes sure no module of
    the image's site directories has one (it would be put back as shadowing it)."""
    put_back: tuple[str, ...] = ()
    """Paths among ``tracked`` and ``added`` that the policy puts back by their path alone (an
    agent's ``test_reproduce.py``, its edits to the test files): the eval command puts them back
    after the check, before the script, as a command of their own would."""

    @property
    def patched(self) -> list[str]:
        changed = [path for status, path in self.tracked if status != "D"] + list(self.added)
        return sorted(path for path in changed if path not in self.put_back)

    @property
    def to_put_back(self) -> tuple[list[str], list[str]]:
        """``put_back`` as :meth:`WorkTree.put_back` takes it: tracked paths, added paths."""
        return (
            [path for _, path in self.tracked if path in self.put_back],
            [path for path in self.added if path in self.put_back],
        )

    @property
    def changes(self) -> frozenset[tuple[str, str]]:
        kinds = {"M": "modified", "D": "deleted"}
        return frozenset(
            {(path, kinds[status]) for status, path in self.tracked} | {(p, "added") for p in self.added}
        )


def foresee(patch: str, integrity: Integrity) -> Foreseen | None:
    """What the patch will change, when its text says so beyond doubt and nothing of it is a path
    the strict policy would judge by the tree (a configuration file with other tools' settings);
    None otherwise. Paths the policy puts back by their path alone (test files, ``conftest.py``)
    are foretold as such. A new top-level module, which the policy puts back where it shadows one
    installed in the image, is foretold with its name for the check in the sandbox. A rename is
    foretold as the tree's record will read it: its old path deleted, its new one added."""
    changes = _foretold_changes(parse_patch(patch))
    if not changes:
        return None
    tracked: list[tuple[str, str]] = []
    added: list[str] = []
    new_modules: set[str] = set()
    put_back: list[str] = []
    # The import-root entries the base tree surely has: those of files the patch modifies or deletes.
    present = {root_entry(path) for path, kind in changes if kind in ("modified", "deleted")}
    for path, kind in changes:
        if not _FORESEEABLE_PATH.fullmatch(path) or normalize(path) != path or in_git_dir(path):
            return None
        if path in added or path in (p for _, p in tracked) or path.rsplit("/", 1)[-1] in SECTIONED_FILES:
            return None
        if why_neutralized(PathChange(path, kind), integrity.protection, frozenset()) is not None:
            # Put back whatever the tree holds, unless the reason is the tree's (a module it shadows).
            if why_neutralized(PathChange(path, "modified"), integrity.protection, frozenset()) is None:
                return None
            put_back.append(path)
        elif kind == "added":
            # A new module at an import root (not a file under a new directory that makes none): one
            # the image may have installed, which the policy puts back for shadowing it.
            top = importable_module(path) if root_entry(path) not in present else None
            if top is not None:
                if not top[1].isidentifier():
                    return None
                new_modules.add(top[1])
        if kind == "added":
            added.append(path)
        else:
            tracked.append(("D" if kind == "deleted" else "M", path))
    return Foreseen(
        tuple(sorted(tracked)), tuple(sorted(added)), tuple(sorted(new_modules)), tuple(sorted(put_back))
    )


def _foretold_changes(files: list[FileDiff]) -> list[tuple[str, str]] | None:
    """Each part's path and kind, a rename as its old path deleted and its new one added (the
    tree's record reads renames so); None where a part names no single path (or, renamed, not
    just its two) or is a symbolic link."""
    changes: list[tuple[str, str]] = []
    for part in files:
        if part.symlink:
            return None
        if part.renamed:
            if len(part.paths) != 2 or not (part.old_exists and part.new_exists):
                return None
            changes += [(part.paths[0], "deleted"), (part.paths[1], "added")]
        elif len(part.paths) == 1:
            changes.append((part.paths[0], part.kind))
        else:
            return None
    return changes


def _apply_and_run(
    task: Task,
    patch: str,
    sandbox: Sandbox,
    ctx: EvalContext,
    script: str,
    run: EvalRun,
    commands: tuple[str, ...],
    path: str,
    command: str | None,
    probe_spec: ProbeSpec | None,
    foreseen: Foreseen | None,
) -> EvalRun:
    """The patch applied (inside the tree's record and read-back) as the first step of the eval
    script's command, the script run only when it applied, and the checks after it, in one command.
    The base commit for the check of ``.git`` is kept in the shell's memory before the script runs;
    the apply's output is read from the command's start, or from its file where it is not there
    whole. Under ``strict`` the probe is planned from what the patch's text foretells, and the tree
    is checked against it before the script runs: where they differ the script does not run, and
    the evaluation goes on as with the apply in a command of its own. The apply's time is part of
    the script's (``time_script``)."""
    verdict = run.verdict
    integrity = integrity_of(task, ctx)
    integrity.add(inspect(patch))
    guard = min(ctx.timeout, GUARD_TIMEOUT)
    token = secrets.token_hex(6)
    tree = WorkTree(sandbox, task.workdir, f"{probe.PROBE_ROOT}/t-{token}", guard)
    ctx.tree = tree
    apply = apply_command(task.workdir, commands, tree.around)
    # A record the host reads whole from the command's start: in its head, and plain ASCII text.
    record_limit = max(ctx.output_limit // 8, 1)
    if foreseen is not None:
        integrity.patched = foreseen.patched
        check = tree.check_foreseen(foreseen.tracked, foreseen.added, record_limit, foreseen.new_modules)
        apply = f"( {apply}\n) || exit $?\n( {check}\n) >/dev/null 2>&1 < /dev/null || exit {NOT_FORESEEN}\n"
        if foreseen.put_back:
            back = tree.put_back(*foreseen.to_put_back)
            apply += f"( {back}\n) >/dev/null 2>&1 < /dev/null || exit {NOT_FORESEEN}\n"
    opening = Opening(apply, path=f"{probe.PROBE_ROOT}/a-{token}", then=tree.keep_head("__swe_head"))
    instrumented, probe_files = _prepare_probe(task, ctx, script, probe_spec, path)
    afterwards = _afterwards(ctx, integrity.plan, head="${__swe_head:-}")
    assert afterwards is not None  # the tree was made above
    ran = run_script_then(
        task,
        sandbox,
        ctx,
        instrumented,
        afterwards[0],
        path=path,
        command=command,
        files={**probe_files, PATCH_PATH: (patch_bytes(patch), 0o644)},
        opening=opening,
    )
    script_ran = ran.opening_status == 0
    opened = ran.opened
    if foreseen is not None and (ran.opening_status is None or (script_ran and opened is None)):
        # Under strict the tree's record is read only as the command printed it before the tests
        # ran, and whether they ran only from the line that follows it.
        raise InfraError("sandbox_error", "the tree's record did not come back whole from the eval command")
    if opened is None:
        opened = tree.sandbox.read_file(opening.path).decode("utf-8", errors="surrogateescape")
    applied = read_apply(tree.take_around(opened), 0)
    if foreseen is not None and script_ran:
        _check_foreseen(task, ctx, verdict, tree, applied, foreseen)
    elif not _take_apply(task, ctx, verdict, tree, applied, commands):
        _forget_script(ctx, path)
        return run
    elif foreseen is not None:  # applied, but not as foretold: the script did not run
        verdict.extra[APPLY_IN] = NOT_AS_FORETOLD
        _forget_script(ctx, path)
        return _run_applied(task, sandbox, ctx, script, run, path, command, probe_spec)
    run.raw_log, run.exit_code, run.ran = ran.log, ran.exit_code, True
    carried = (afterwards[1], ran.after) if ran.after is not None else None
    _check_run(task, sandbox, ctx, run, script, probe_spec, carried)
    return run


def _forget_script(ctx: EvalContext, path: str) -> None:
    """The eval script's artifacts of a command whose script did not run, as if never written."""
    for name in (path.rsplit("/", 1)[-1], "eval.log"):
        saved = ctx.saved.pop(name, None)
        if saved is not None:
            Path(saved).unlink(missing_ok=True)


def _check_foreseen(
    task: Task, ctx: EvalContext, verdict: Verdict, tree: WorkTree, applied: ApplyResult, foreseen: Foreseen
) -> None:
    """After a script that ran on a tree checked against what the patch foretold: the same tree
    as the host reads it (the record printed before the tests ran), or no verdict at all."""
    integrity = integrity_of(task, ctx)
    whole = tree.record_printed
    changed = _record_apply(ctx, verdict, tree, applied)
    seen = {(c.path, c.kind) for c in changed.changes}
    restore = neutralize(tree, integrity, changed.changes) if whole and applied.applied else {}
    if (
        not whole
        or not applied.applied
        or changed.git_altered
        or seen != foreseen.changes
        or set(restore) != set(foreseen.put_back)
    ):
        raise InfraError(
            "sandbox_error",
            "the tree after the apply is not what the patch's text foretold, though the check in the "
            "sandbox passed; the tests ran on a probe planned for another tree, so there is no verdict",
        )
    integrity.neutralized += [f"{path} ({reason})" for path, reason in restore.items()]


def _run_applied(
    task: Task,
    sandbox: Sandbox,
    ctx: EvalContext,
    script: str,
    run: EvalRun,
    path: str,
    command: str | None,
    probe_spec: ProbeSpec | None,
) -> EvalRun:
    """Stage 3 on a tree the patch is applied to and the strict policy has neutralized: the probe
    planned from what the patch changed, the script run with the checks after it."""
    integrity = integrity_of(task, ctx)
    if integrity.blocked is not None:
        run.verdict.reasons.append(f"the tests were not run: {integrity.blocked}")
        return run
    instrumented, probe_files = _prepare_probe(task, ctx, script, probe_spec, path)
    afterwards = _afterwards(ctx, integrity.plan)
    ran = run_script_then(
        task,
        sandbox,
        ctx,
        instrumented,
        afterwards[0] if afterwards else None,
        path=path,
        command=command,
        files=probe_files,
    )
    run.raw_log, run.exit_code, run.ran = ran.log, ran.exit_code, True
    carried = (afterwards[1], ran.after) if afterwards is not None and ran.after is not None else None
    _check_run(task, sandbox, ctx, run, script, probe_spec, carried)
    return run


def _run_self_applying(
    task: Task, patch: str, sandbox: Sandbox, ctx: EvalContext, script: str, run: EvalRun, path: str
) -> EvalRun:
    if not run.verdict.patch_exists:
        run.verdict.reasons.append(EMPTY_PATCH_REASON)
        if not ctx.settings.eval.run_empty_patch:
            return run
    else:
        inspect_model_patch(task, patch, ctx)
    run.raw_log, run.exit_code = run_script(task, sandbox, ctx, script, path=path)
    run.log = run.raw_log
    run.ran = True
    if run.verdict.patch_exists:
        check_script_run(task, sandbox, ctx, run.raw_log, script)
    return run


def check_script_run(task: Task, sandbox: Sandbox, ctx: EvalContext, log: str, script: str) -> None:
    """The log checks for families that apply the patch inside their own script."""
    integrity_of(task, ctx).add(forged_markers(log, script))


# --- 5. decide -------------------------------------------------------------------------------


def decide(verdict: Verdict, ctx: EvalContext) -> Verdict:
    """The one place a verdict's fate is settled: evidence of forgery makes it unresolved under
    ``strict``; neutralized paths and notes are recorded; canaries never reach the ledger."""
    integrity = ctx.integrity
    if not isinstance(integrity, Integrity):
        return verdict
    if integrity.canary_keys:
        verdict.test_results = {
            k: v for k, v in verdict.test_results.items() if k not in integrity.canary_keys
        }
    tamper = [f for f in integrity.findings if f.severity == TAMPER]
    notes = [f for f in integrity.findings if f.severity != TAMPER]
    verdict.extra["policy"] = f"{integrity.policy} ({POLICY_VERSION})"
    if integrity.neutralized:
        verdict.extra["neutralized"] = list(integrity.neutralized)
    if integrity.plan is not None:
        verdict.extra["probe"] = _probe_summary(integrity)
    verdict.suspicious = [str(f) for f in notes]
    if integrity.strict:
        verdict.tamper = [str(f) for f in tamper]
    else:
        verdict.suspicious += [f"{f} (evidence under {STRICT})" for f in tamper]
    _refuse_tampered(verdict)
    return verdict


def _refuse_tampered(verdict: Verdict) -> None:
    """A verdict with tampering findings (under ``strict``) is unresolved, and says why first."""
    if not verdict.tamper:
        return
    if verdict.resolved:
        verdict.extra["resolved_without_policy"] = True
    verdict.resolved = False
    verdict.resolution = "RESOLVED_NO"
    reason = f"tampering detected by the {STRICT} policy ({len(verdict.tamper)} finding(s), see tamper)"
    verdict.reasons.insert(0, reason)


def regrade(original: Verdict, grader: str, grade: Callable[[Verdict], Verdict]) -> Verdict:
    """Stages 4-5 again on a saved log: ``grade`` (the family's parse and rule) runs on the verdict
    as it stood before grading, rebuilt from ``original``; the integrity decisions of the live run
    (tamper, suspicious, neutralized paths, probe summary) are kept, as no log can recompute them."""
    verdict = Verdict(
        resolved=False,
        patch_exists=original.patch_exists,
        patch_applied=original.patch_applied,
        apply_method=original.apply_method,
        test_exit_code=original.test_exit_code,
        grader=grader,
        reasons=[] if original.patch_exists else [EMPTY_PATCH_REASON],
    )
    verdict = grade(verdict)
    verdict.extra.update({k: original.extra[k] for k in INTEGRITY_KEYS if k in original.extra})
    verdict.suspicious = list(original.suspicious)
    verdict.tamper = list(original.tamper)
    _refuse_tampered(verdict)
    verdict.extra["regraded"] = {
        "original_grader": original.grader,
        "original_resolved": original.resolved,
        "integrity": "kept from the original verdict: tamper and suspicious findings, neutralized paths "
        "and the probe come from the live run, not from the log",
    }
    return verdict


def _probe_summary(integrity: Integrity) -> dict[str, Any]:
    results = integrity.results
    pre = results.pre if results else {}
    return {
        "canary_files": sorted((pre.get("canaries") or {}).keys()),
        "channel": (pre.get("channel") or {}).get("installed", False),
        "channel_events": len(results.channel) if results else 0,
        "watch": (pre.get("watch") or {}).get("installed", False),
        "compiled_removed": pre.get("compiled_removed", 0),
        "errors": (results.errors if results else "")[-500:],
    }
