"""Eval scripts for SWE-bench-style rows that carry none (classic SWE-bench, Multilingual, SWE-Gym).

The script is what the eval sandbox runs after the model patch is applied: it resets the files
the test patch touches, applies the test patch, runs the repository's tests between the
``: '>>>>> Start Test Output'`` and ``: '>>>>> End Test Output'`` markers (visible in the log
through ``set -x``) and resets the files again. Its shape follows the official harness so that
the log, and therefore the verdict, is the one the official grader would see:

* ``swebench`` dialect, Python repositories: conda ``testbed`` activation, ``cd /testbed``, the
  spec's ``eval_commands``, ``git status``/``show``/``diff`` for the record, the spec's
  ``install``, the reset, ``git apply -v`` of the test patch, the markers around the test
  command plus the test directives, and the final reset.
* ``swebench`` dialect, other languages: no conda, ``git apply --verbose --reject``, the spec's
  ``build`` steps after the test patch and its list of test commands.
* ``swe-gym`` dialect: the older form of the SWE-Gym harness fork (see :func:`make_eval_script`).

Two generations of the official scripts differ in which files are reset (``compat``):

* ``"published"`` (default): what the published rows carry in their ``eval_script`` column (the
  v5 datasets): every path named in a ``diff --git`` header of the test patch, new files
  included, plus a few instance-specific steps. Checked byte for byte against every published
  SWE-bench row. Note that ``git checkout <commit> <paths>`` fails as a whole when one path
  does not exist at the commit, so when the test patch also creates files this reset restores
  nothing, not even the files it modifies; that is the official behaviour, kept for fidelity
  (guarding test files against the model patch belongs to the grader, not to this script).
* ``"4.1.0"``: what the ``swebench`` package generated up to 4.1.0: only files the test patch
  modifies (not those it creates), by their old name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from typing import Literal

from pytest_swe.families.swebench.specs import PUBLISHED_PRE_TEST_STEPS
from pytest_swe.families.swebench.specs import RepoSpec
from pytest_swe.families.swebench.specs import spec_for

__all__ = [
    "END_TEST_OUTPUT",
    "HEREDOC_DELIMITER",
    "NON_TEST_EXTS",
    "START_TEST_OUTPUT",
    "Compat",
    "make_eval_script",
    "make_eval_script_for_row",
    "modified_paths",
    "patch_files",
    "test_directives",
    "touched_paths",
]

Compat = Literal["published", "4.1.0"]

START_TEST_OUTPUT = ">>>>> Start Test Output"
END_TEST_OUTPUT = ">>>>> End Test Output"
#: The official scripts' heredoc delimiter; a test patch containing it would end the heredoc early.
HEREDOC_DELIMITER = "EOF_114329324912"
#: Files with these endings are never passed to the test runner (upstream lists "csv" without
#: its dot, so any path ending in "csv" is excluded).
NON_TEST_EXTS = (".json", ".png", "csv", ".txt", ".md", ".jpg", ".jpeg", ".pkl", ".yml", ".yaml", ".toml")

REPO_DIR = "/testbed"
CONDA_ENV = "testbed"
_CONDA_ACTIVATE = ("source /opt/miniconda3/bin/activate", f"conda activate {CONDA_ENV}")

# Unanchored on purpose: the official harness matches these anywhere in the patch text.
_DIFF_GIT_TARGET = re.compile(r"diff --git a/.* b/(.*)")
_SWE_GYM_RESET = re.compile(r"--- a/(.*)")
_MYPY_CASE = re.compile(r"\[case ([^\]]+)\]")

_GIT_HEADER = re.compile(r'^diff --git (?P<source>"?a/[^\t\n]+"?) (?P<target>"?b/[^\t\n]+"?)')
_GIT_HEADER_NO_PREFIX = re.compile(r"^diff --git (?P<source>[^\t\n]+) (?P<target>[^\t\n]+)")
_SOURCE_HEADER = re.compile(r'^--- (?P<name>"?[^\t\n]*"?)')
_TARGET_HEADER = re.compile(r'^\+\+\+ (?P<name>"?[^\t\n]*"?)')
_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_DEV_NULL = "/dev/null"


@dataclass(frozen=True)
class PatchFile:
    """One file entry of a unified diff, named as the diff names it (with ``a/``/``b/``)."""

    source: str
    target: str

    @property
    def is_new(self) -> bool:
        return self.source == _DEV_NULL

    @property
    def path(self) -> str:
        """The file's path without prefix: the new name for creations and renames."""
        name = self.source
        if name == _DEV_NULL or (self.target != _DEV_NULL and _strip(self.target) != _strip(self.source)):
            name = self.target
        return _strip(name)


def _strip(name: str) -> str:
    return name[2:] if name[:2] in ("a/", "b/") else name


def patch_files(patch: str) -> list[PatchFile]:
    """The file entries of a unified (git or plain) diff, in order.

    Hunk bodies are skipped by their line counts, so a removed line that reads ``--- x`` is
    not mistaken for a header. Git headers name the file even when it has no hunks (a new
    empty file, a pure rename); ``new file mode`` marks a creation.
    """
    files: list[PatchFile] = []
    in_git_header = False
    pending_source: str | None = None
    lines = patch.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        header = _GIT_HEADER.match(line) or _GIT_HEADER_NO_PREFIX.match(line)
        if header:
            files.append(PatchFile(header["source"], header["target"]))
            in_git_header = True
            continue
        if in_git_header and line.startswith("new file mode "):
            files[-1] = PatchFile(_DEV_NULL, files[-1].target)
            continue
        if in_git_header and line.startswith("deleted file mode "):
            files[-1] = PatchFile(files[-1].source, _DEV_NULL)
            continue
        source = _SOURCE_HEADER.match(line)
        if source:
            if not in_git_header:
                pending_source = source["name"]
            continue
        target = _TARGET_HEADER.match(line)
        if target:
            if not in_git_header and pending_source is not None:
                files.append(PatchFile(pending_source, target["name"]))
                pending_source = None
            continue
        hunk = _HUNK_HEADER.match(line)
        if hunk:
            in_git_header = False
            index = _skip_hunk(lines, index, int(hunk[2] or 1), int(hunk[4] or 1))
    return files


def _skip_hunk(lines: list[str], index: int, source_left: int, target_left: int) -> int:
    """Index of the first line after a hunk body whose header announced these line counts."""
    while index < len(lines) and (source_left > 0 or target_left > 0):
        kind = lines[index][:1]
        if kind == "-":
            source_left -= 1
        elif kind == "+":
            target_left -= 1
        elif kind in (" ", ""):
            source_left -= 1
            target_left -= 1
        elif kind != "\\":
            break
        index += 1
    return index


def touched_paths(patch: str) -> list[str]:
    """Every path named (new side) in a ``diff --git`` header, in order: the published reset set."""
    return _DIFF_GIT_TARGET.findall(patch)


def modified_paths(patch: str) -> list[str]:
    """Files the patch changes that exist before it (old name, ``a/`` form only): 4.1.0's reset set."""
    return [entry.source[2:] for entry in patch_files(patch) if entry.source.startswith("a/")]


def test_directives(test_patch: str, repo: str) -> list[str]:
    """What follows the test command: the test files of the test patch, as the runner wants them.

    Paths come from the ``diff --git`` headers (new side), minus :data:`NON_TEST_EXTS`. Django's
    runner takes dotted module names relative to ``tests/`` (``tests/a/b.py`` -> ``a.b``). For
    SWE-Gym's ``python/mypy`` the directive is one quoted ``-k`` expression joining every
    ``[case NAME]`` that appears in the test patch text (context, added and removed lines alike,
    as the fork matches them).
    """
    if repo == "python/mypy":
        return [f'"{" or ".join(_MYPY_CASE.findall(test_patch))}"']
    directives = [path for path in touched_paths(test_patch) if not path.endswith(NON_TEST_EXTS)]
    if repo == "django/django":
        directives = [_django_module(path) for path in directives]
    return directives


# The name starts with "test_" (it is the upstream term); keep pytest from collecting it as a
# test wherever it is imported into a test module.
test_directives.__test__ = False  # type: ignore[attr-defined]


def _django_module(path: str) -> str:
    path = path.removesuffix(".py")
    path = path.removeprefix("tests/")
    return path.replace("/", ".")


def _heredoc_apply(command: str, test_patch: str) -> str:
    return f"{command} - <<'{HEREDOC_DELIMITER}'\n{test_patch}\n{HEREDOC_DELIMITER}"


def _markers(markers: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if not markers:
        return (), ()
    return (f": '{START_TEST_OUTPUT}'",), (f": '{END_TEST_OUTPUT}'",)


def _script(header: str, commands: list[str]) -> str:
    return "\n".join(["#!/bin/bash", header, *commands]) + "\n"


def _test_run(reset: str, setup: Iterable[str], tests: Iterable[str], markers: bool) -> list[str]:
    """What every layout ends with: reset the test files, ``setup`` (the test patch applied and what
    goes with it), the tests between the output markers, and the test files reset again."""
    start, end = _markers(markers)
    return [reset, *setup, *start, *tests, *end, reset]


def _conda_script(
    header: str, diff: str, spec: RepoSpec, reset: str, setup: Iterable[str], test_command: str, markers: bool
) -> str:
    """The Python layout (SWE-bench's and the SWE-Gym fork's): the conda env, the repository's
    state printed for the log, the install steps, then the test run."""
    return _script(
        header,
        [
            *_CONDA_ACTIVATE,
            f"cd {REPO_DIR}",
            *spec.eval_commands,
            f"git config --global --add safe.directory {REPO_DIR}",
            f"cd {REPO_DIR}",
            "git status",
            "git show",
            diff,
            *_CONDA_ACTIVATE,
            *spec.install,
            *_test_run(reset, setup, [test_command], markers),
        ],
    )


def make_eval_script(
    *,
    instance_id: str,
    repo: str,
    version: str,
    base_commit: str,
    test_patch: str,
    spec: RepoSpec | None = None,
    compat: Compat = "published",
    markers: bool = True,
    image_assets: Mapping[str, Any] | str | None = None,
) -> str:
    """The eval script for one classic row, as the official harness would run it.

    ``spec`` defaults to ``spec_for(repo, version)`` (raising ``SpecNotFound`` for unknown
    pairs). ``compat`` picks the reset rule and instance steps of the ``swebench`` dialect (see
    the module docstring); ``"published"`` is verified on every published SWE-bench row, and
    applied to Multilingual rows by analogy (no published Multilingual rows were available to
    check; use ``"4.1.0"`` for the form 4.1.0 generated, verified for every spec). SWE-Gym specs
    always get the fork's reset rule.
    ``markers=False`` drops the start/end marker lines; SWE-Gym's fork writes none (its grader
    parses everything after the patch is applied), so ``markers=False`` with a SWE-Gym spec gives
    the fork's script byte for byte, while the default adds the no-op markers so that the
    SWE-bench log parsing can cut the test output. ``image_assets`` (SWE-bench Multimodal rows)
    lists files the JavaScript scripts download before applying the test patch.
    """
    if compat not in ("published", "4.1.0"):
        raise ValueError(f"compat must be 'published' or '4.1.0', not {compat!r}")
    if HEREDOC_DELIMITER in test_patch:
        raise ValueError(f"{instance_id}: the test patch contains the heredoc delimiter {HEREDOC_DELIMITER}")
    spec = spec if spec is not None else spec_for(repo, version)
    if spec.dialect == "swe-gym":
        return _swe_gym_script(repo, base_commit, test_patch, spec, markers)
    reset_paths = touched_paths(test_patch) if compat == "published" else modified_paths(test_patch)
    instance_steps = PUBLISHED_PRE_TEST_STEPS.get(instance_id, ()) if compat == "published" else ()
    if spec.language == "python":
        return _python_script(repo, base_commit, test_patch, spec, reset_paths, instance_steps, markers)
    return _common_script(
        repo, version, base_commit, test_patch, spec, reset_paths, instance_steps, markers, image_assets
    )


def _python_script(
    repo: str,
    base_commit: str,
    test_patch: str,
    spec: RepoSpec,
    reset_paths: list[str],
    instance_steps: tuple[str, ...],
    markers: bool,
) -> str:
    reset = f"git checkout {base_commit} {' '.join(reset_paths)}"
    if len(spec.test_commands) != 1:
        raise ValueError(f"{repo}: a Python spec needs exactly one test command, got {spec.test_commands}")
    test_command = " ".join([spec.test_commands[0], *test_directives(test_patch, repo)])
    return _conda_script(
        "set -uxo pipefail",
        f"git -c core.fileMode=false diff {base_commit}",
        spec,
        reset,
        [_heredoc_apply("git apply -v", test_patch), *instance_steps],
        test_command,
        markers,
    )


def _common_script(
    repo: str,
    version: str,
    base_commit: str,
    test_patch: str,
    spec: RepoSpec,
    reset_paths: list[str],
    instance_steps: tuple[str, ...],
    markers: bool,
    image_assets: Mapping[str, Any] | str | None,
) -> str:
    if reset_paths:
        reset = f"git checkout {base_commit} {' '.join(reset_paths)}"
    else:
        reset = 'echo "No test files to reset"'
    test_commands = list(spec.test_commands)
    if repo == "Automattic/wp-calypso":
        test_commands = _calypso_test_commands(test_patch, version)
    setup = [
        *(_asset_downloads(image_assets) if spec.language == "javascript" else ()),
        _heredoc_apply("git apply --verbose --reject", test_patch),
        *spec.build,
        *instance_steps,
    ]
    return _script(
        "set -uxo pipefail",
        [
            f"cd {REPO_DIR}",
            f"git config --global --add safe.directory {REPO_DIR}",
            f"cd {REPO_DIR}",
            *_test_run(reset, setup, test_commands, markers),
        ],
    )


def _swe_gym_script(repo: str, base_commit: str, test_patch: str, spec: RepoSpec, markers: bool) -> str:
    """The SWE-Gym fork's form: no ``-u``, plain ``git diff``, reset of the ``--- a/`` paths."""
    reset = f"git checkout {base_commit} {' '.join(_SWE_GYM_RESET.findall(test_patch))}"
    test_command = " ".join([*spec.test_commands, *test_directives(test_patch, repo)])
    return _conda_script(
        "set -xo pipefail",
        f"git diff {base_commit}",
        spec,
        reset,
        [_heredoc_apply("git apply -v", test_patch)],
        test_command,
        markers,
    )


def _asset_downloads(image_assets: Mapping[str, Any] | str | None) -> list[str]:
    """SWE-bench Multimodal: fetch the binary files the test patch refers to but cannot carry."""
    if not image_assets:
        return []
    assets = json.loads(image_assets) if isinstance(image_assets, str) else image_assets
    commands: list[str] = []
    for asset in assets.get("test_patch", []):
        commands += [
            f"mkdir -p {PurePosixPath(asset['path']).parent}",
            f"curl -o {asset['path']} {asset['url']}",
            f"chmod 777 {asset['path']}",
        ]
    return commands


# wp-calypso (Multimodal) picks its jest configuration by the instance's Node version.
_CALYPSO_JEST_JS = {"10.10.0", "10.12.0", "10.13.0", "10.14.0", "10.15.2", "10.16.3"}
_CALYPSO_JEST_JSON = {
    "6.11.5",
    "8.9.1",
    "8.9.3",
    "8.9.4",
    "8.11.0",
    "8.11.2",
    "10.4.1",
    "10.5.0",
    "10.6.0",
    "10.9.0",
}
_SNAPSHOT = re.compile(r"__snapshots__/(.*).js.snap$")


def _calypso_test_commands(test_patch: str, version: str) -> list[str]:
    """wp-calypso runs one command per test file, chosen by where the file lives."""
    commands: list[str] = []
    for entry in patch_files(test_patch):
        path = entry.path
        if _SNAPSHOT.search(path):
            path = "/".join(path.split("/")[:-2])
        if path.startswith(("client", "packages")):
            package = path.split("/")[0]
            if version in _CALYPSO_JEST_JS:
                commands.append(
                    f"./node_modules/.bin/jest --verbose -c=test/{package}/jest.config.js '{path}'"
                )
            elif version in _CALYPSO_JEST_JSON:
                commands.append(
                    f"./node_modules/.bin/jest --verbose -c=test/{package}/jest.config.json '{path}'"
                )
            else:
                commands.append(f"npm run test-{package} --verbose '{path}'")
        elif path.startswith("test/e2e"):
            commands += ["cd test/e2e", f"NODE_CONFIG_ENV=test npm run test {path}", "cd ../.."]
    return commands


def make_eval_script_for_row(row: Mapping[str, Any], **options: Any) -> str:
    """:func:`make_eval_script` for a classic dataset row (a mapping with the SWE-bench fields)."""
    return make_eval_script(
        instance_id=row["instance_id"],
        repo=row["repo"],
        version=str(row["version"]),
        base_commit=row["base_commit"],
        test_patch=row["test_patch"],
        image_assets=row.get("image_assets"),
        **options,
    )
