"""SWE-smith (``SWE-bench/SWE-smith``): synthetic bugs, one image per repository at a commit.

A row's ``patch`` *introduces* the bug, so the gold fix is its reverse; there is no test patch,
the tests already exist. The image ``jyangballin/swesmith.x86_64.<owner>_1776_<repo>.<commit8>``
holds the clean repository at ``/testbed`` (conda env ``testbed``); the task is the repository at
the row's ``base_commit``, the branch that carries the bug. Upstream fetches that commit from the
network; here nothing reaches the network: the commit is checked out when the image has it, and
otherwise the bug patch is applied to the image's tree, which yields the same files.

The agent's sandbox gets the buggy tree as a single commit with no history, since the clean
parent commit would hand over the answer (``family_options.scrub_history: false`` keeps it). Tests run with the repository profile's command (the
F2P test files appended when it is pytest), and grading is SWE-bench's on F2P/P2P lists narrowed
to the files that ran. Upstream counts a required test missing from the log as passed;
``family_options.missing_tests_pass: true`` reproduces that, the default counts it as failed.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from pytest_swe import grading
from pytest_swe.api.errors import InfraError
from pytest_swe.api.errors import RowError
from pytest_swe.api.family import BaseFamily
from pytest_swe.api.family import EvalContext
from pytest_swe.api.patch import patch_bytes
from pytest_swe.api.sandbox import Sandbox
from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.api.task import Task
from pytest_swe.api.task import created_at_str
from pytest_swe.api.task import optional_str
from pytest_swe.api.task import require_str
from pytest_swe.api.verdict import TestGroup
from pytest_swe.api.verdict import TestStatus
from pytest_swe.api.verdict import Verdict
from pytest_swe.families import swebench
from pytest_swe.families.logparsers import LineForm
from pytest_swe.families.logparsers import PytestGrammar
from pytest_swe.grading.patching import DIFF_DIR

GRADER = "pytest-swe/swe-smith-grader-1 (SWE-bench FULL on F2P/P2P narrowed to the test files run)"
FAIL_TO_PASS = "FAIL_TO_PASS"
PASS_TO_PASS = "PASS_TO_PASS"
REPO_DIR = "/testbed"
IMAGE_NAMESPACE = "jyangballin"
START_MARK = ">>>>> Start Test Output"
END_MARK = ">>>>> End Test Output"
BUG_PATCH_PATH = f"{DIFF_DIR}/bug.diff"
TASK_BRANCH = "pytest-swe-task"
GIT_IDENTITY = "-c user.name=pytest-swe -c user.email=pytest-swe@localhost"
PREPARE_TIMEOUT = 600.0
EMPTY_F2P_REASON = "the row's FAIL_TO_PASS list (narrowed to the test files run) is empty"

StatusMap = dict[str, str]
LogParser = Callable[[str], StatusMap]


# --- log parsers (swesmith/harness/log_parsers.py and the repository profiles) ------------------


_STATUS = "|".join(status.value for status in TestStatus)

parse_log_pytest = PytestGrammar(forms=(LineForm(re.compile(rf"(?P<test>\S+)\s+(?P<status>{_STATUS})")),))
"""SWE-smith's default: verbose pytest lines ``<id> <STATUS> [ nn%]`` (``^(\\S+)(\\s+)STATUS``)."""

parse_log_status_first = PytestGrammar(
    forms=(LineForm(re.compile(rf"(?P<status>{_STATUS})\s(?P<test>\S+)")),)
)
"""``-rA`` summary lines ``STATUS <id>`` (the paramiko profile)."""

parse_log_xdist = PytestGrammar(
    forms=(LineForm(re.compile(rf"\[gw\d\]\s(?P<status>{_STATUS})\s(?P<test>\S+)")),)
)
"""``[gwN] STATUS <id>`` lines of pytest-xdist (the autograd profile)."""


def parse_log_mypy(log: str) -> StatusMap:
    """mypy's data-driven tests: the last word of a line that mentions PASSED or FAILED."""
    status_map: StatusMap = {}
    for line in log.split("\n"):
        for status in (TestStatus.PASSED.value, TestStatus.FAILED.value):
            if status in line:
                status_map[line.split()[-1]] = status
                break
    return status_map


def parse_log_unittest_verbose(log: str) -> StatusMap:
    """unittest at ``--verbose``: ``name ... ok``, ``... skipped``, ``ERROR:``/``FAIL:`` headers (tornado)."""
    status_map: StatusMap = {}
    for line in log.split("\n"):
        if line.endswith("... ok"):
            status_map[line.split(" ... ")[0]] = TestStatus.PASSED.value
        elif " ... skipped " in line:
            status_map[line.split(" ... ")[0]] = TestStatus.SKIPPED.value
        elif line.startswith(("ERROR:", "FAIL:")):
            status_map[" ".join(line.split()[1:3])] = TestStatus.FAILED.value
    return status_map


def parse_log_python_slugify(log: str) -> StatusMap:
    """python-slugify's ``test.py --verbose``: ``name ... ok|FAIL|ERROR``."""
    status_map: StatusMap = {}
    pattern = r"^([a-zA-Z0-9_\-,\.\s\(\)']+)\s\.{3}\s"
    for line in log.split("\n"):
        match = re.match(f"{pattern}ok$", line)
        if match:
            status_map[match.group(1)] = TestStatus.PASSED.value
            continue
        for keyword, status in (("FAIL", TestStatus.FAILED.value), ("ERROR", TestStatus.ERROR.value)):
            match = re.match(f"{pattern}{keyword}$", line)
            if match:
                status_map[match.group(1)] = status
    return status_map


def parse_log_gotest(log: str) -> StatusMap:
    status_map: StatusMap = {}
    names = {
        "PASS": TestStatus.PASSED.value,
        "FAIL": TestStatus.FAILED.value,
        "SKIP": TestStatus.SKIPPED.value,
    }
    for line in log.split("\n"):
        match = re.match(r"^--- (PASS|FAIL|SKIP): (.+) \((.+)\)$", line.strip())
        if match:
            status_map[match.group(2)] = names[match.group(1)]
    return status_map


PARSERS: dict[str, LogParser] = {
    "parse_log_pytest": parse_log_pytest,
    "parse_log_paramiko": parse_log_status_first,
    "parse_log_autograd": parse_log_xdist,
    "parse_log_mypy": parse_log_mypy,
    "parse_log_tornado": parse_log_unittest_verbose,
    "parse_log_python_slugify": parse_log_python_slugify,
    "parse_log_gotest": parse_log_gotest,
}


# --- repository profiles -------------------------------------------------------------------------

DEFAULT_TEST_CMD = "pytest --disable-warnings --color=no --tb=no --verbose"


@dataclass(frozen=True)
class Profile:
    """How one repository's tests run and are read (``swesmith/profiles``)."""

    test_cmd: str = DEFAULT_TEST_CMD
    log_parser: str = "parse_log_pytest"
    keyword_tests: bool = False
    """mypy: F2P names become one ``-k`` expression instead of file arguments."""


# Profiles that differ from the Python default; every other repository uses it.
PROFILES: dict[str, Profile] = {
    "tkrajina/gpxpy": Profile(test_cmd="pytest test.py --verbose --color=no --tb=no --disable-warnings"),
    "jax-ml/jax": Profile(test_cmd=f"{DEFAULT_TEST_CMD} -n auto"),
    "mido/mido": Profile(test_cmd=f"{DEFAULT_TEST_CMD} -rs -c /dev/null"),
    "paramiko/paramiko": Profile(
        test_cmd="pytest -rA --color=no --disable-warnings", log_parser="parse_log_paramiko"
    ),
    "HIPS/autograd": Profile(log_parser="parse_log_autograd"),
    "un33k/python-slugify": Profile(
        test_cmd="python test.py --verbose", log_parser="parse_log_python_slugify"
    ),
    "tornadoweb/tornado": Profile(
        test_cmd="python -m tornado.test --verbose", log_parser="parse_log_tornado"
    ),
    "python/mypy": Profile(
        test_cmd="pytest --color=no -rA -k", log_parser="parse_log_mypy", keyword_tests=True
    ),
    "pydantic/pydantic": Profile(test_cmd=f"/root/.local/bin/uv run {DEFAULT_TEST_CMD}"),
    "gin-gonic/gin": Profile(test_cmd="go test -v ./...", log_parser="parse_log_gotest"),
}


def owner_repo(instance_id: str) -> str:
    """``owner__repo.commit8.bug`` -> ``owner/repo``, as upstream's grader derives it."""
    return instance_id.split(".")[0].replace("__", "/")


def profile_for(repo: str) -> Profile:
    return PROFILES.get(repo, Profile())


def test_command(profile: Profile, fail_to_pass: list[str]) -> tuple[str, list[str]]:
    """The command and the test files it runs (``get_test_command`` for evaluation rows)."""
    if "pytest" not in profile.test_cmd:
        return profile.test_cmd, []
    if profile.keyword_tests:
        keys = " or ".join(test.rsplit("::", 1)[-1] for test in fail_to_pass)
        return f'{profile.test_cmd} "{keys}"', []
    files = sorted({test.split("::", 1)[0] for test in fail_to_pass})
    return " ".join([profile.test_cmd, *files]), files


test_command.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def narrow(tests: list[str], test_files: list[str]) -> list[str]:
    """Only the tests in the files that ran (all tests when no files were named)."""
    if not test_files:
        return list(tests)
    return [test for test in tests if any(test.startswith(prefix) for prefix in test_files)]


def eval_script(command: str) -> str:
    """Upstream's ``eval.sh``: conda env, then the test command between the markers."""
    lines = [
        "#!/bin/bash",
        "set -uxo pipefail",
        "source /opt/miniconda3/bin/activate",
        "conda activate testbed",
        f"cd {REPO_DIR}",
        f": '{START_MARK}'",
        command,
        f": '{END_MARK}'",
    ]
    return "\n".join(lines) + "\n"


def read_test_output(log: str) -> str | None:
    """The text between the ``set -x`` echoes of the two markers, or None if either is missing."""
    start_sep, end_sep = f"+ : '{START_MARK}'", f"+ : '{END_MARK}'"
    start, end = log.find(start_sep), log.find(end_sep)
    if start < 0 or end < 0 or end < start:
        return None
    return log[start + len(start_sep) : end]


# --- the gold fix: the reverse of the bug patch ----------------------------------------------------

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")
_SWAPPED_HEADERS = (
    ("new file mode ", "deleted file mode "),
    ("old mode ", "new mode "),
    ("rename from ", "rename to "),
    ("copy from ", "copy to "),
)


def _swap_header(line: str) -> str:
    for first, second in _SWAPPED_HEADERS:
        if line.startswith(first):
            return second + line[len(first) :]
        if line.startswith(second):
            return first + line[len(second) :]
    if line.startswith("index ") and ".." in line:
        hashes, _, mode = line[len("index ") :].partition(" ")
        before, _, after = hashes.partition("..")
        return f"index {after}..{before}" + (f" {mode}" if mode else "")
    if line.startswith("diff --git a/"):
        sides = line[len("diff --git ") :].split(" b/")
        if len(sides) == 2:
            return f"diff --git a/{sides[1]} b/{sides[0][2:]}"
    return line


def _range(start: str, length: str | None) -> str:
    return start if length is None else f"{start},{length}"


def reverse_patch(patch: str) -> str:
    """The unified diff that undoes ``patch``: sides, hunk ranges, +/- lines and file modes swapped.

    Hunk bodies are read by their line counts, so a removed line that reads ``--- x`` stays a
    line. Within each run of changes the removals come first, as diff tools write them, and a
    ``\\ No newline at end of file`` marker stays with its line. Binary hunks cannot be reversed
    as text and raise ValueError.
    """
    if "GIT binary patch" in patch:
        raise ValueError("the patch holds binary hunks, which cannot be reversed as text")
    lines = patch.split("\n")
    out: list[str] = []
    removed: list[str] = []  # lines the reversed patch removes (the original's additions)
    added: list[str] = []
    last = out
    old_left = new_left = 0
    in_hunk = False

    def flush() -> None:
        out.extend(removed)
        out.extend(added)
        removed.clear()
        added.clear()

    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if in_hunk:
            kind = line[:1]
            if kind == "\\":
                last.append(line)
                continue
            if old_left > 0 or new_left > 0:
                if kind == "+":
                    removed.append("-" + line[1:])
                    last, new_left = removed, new_left - 1
                    continue
                if kind == "-":
                    added.append("+" + line[1:])
                    last, old_left = added, old_left - 1
                    continue
                if kind in (" ", ""):
                    flush()
                    out.append(line)
                    last, old_left, new_left = out, old_left - 1, new_left - 1
                    continue
            flush()
            in_hunk, last = False, out
        hunk = _HUNK.match(line)
        if hunk:
            old_start, old_len, new_start, new_len, section = hunk.groups()
            out.append(f"@@ -{_range(new_start, new_len)} +{_range(old_start, old_len)} @@{section}")
            old_left = 1 if old_len is None else int(old_len)
            new_left = 1 if new_len is None else int(new_len)
            in_hunk = True
            continue
        if line.startswith("--- ") and index < len(lines) and lines[index].startswith("+++ "):
            old_name, new_name = line[4:], lines[index][4:]
            index += 1
            out.append("--- " + ("a/" + new_name[2:] if new_name.startswith("b/") else new_name))
            out.append("+++ " + ("b/" + old_name[2:] if old_name.startswith("a/") else old_name))
            continue
        swapped = _swap_header(line)
        pair = next((second for first, second in _SWAPPED_HEADERS if swapped.startswith(first)), None)
        if pair and out and out[-1].startswith(pair):
            out.insert(len(out) - 1, swapped)  # keep "old mode" before "new mode", "rename from" before "to"
        else:
            out.append(swapped)
    flush()
    return "\n".join(out)


# --- the task -----------------------------------------------------------------------------------


def image_for(row: Mapping[str, Any], instance_id: str, settings: BenchmarkSettings) -> str:
    """``image_name`` (or one derived from ``repo``), pulled as ``<namespace>/<name, __ -> _1776_>``."""
    name = optional_str(row, "image_name", row_id=instance_id)
    if not name or not name.strip():
        repo = optional_str(row, "repo", row_id=instance_id) or ""
        if not repo.startswith("swesmith/"):
            raise RowError(
                "image_name",
                "is missing, and 'repo' is not of the form swesmith/<owner>__<repo>.<commit>",
                row=instance_id,
            )
        name = f"swesmith.x86_64.{repo.removeprefix('swesmith/')}"
    name = name.strip()
    if "/" in name:
        return name
    options = settings.images
    template = options.get("template")
    if template:
        return str(template).format(instance_id=instance_id, id=instance_id.lower(), name=name)
    namespace = options.get("namespace", IMAGE_NAMESPACE)
    tag = options.get("tag", "latest")
    pushed = name.replace("__", "_1776_")
    return f"{namespace}/{pushed}:{tag}" if namespace else f"{name}:{tag}"


def prepare_script(
    workdir: str, commit: str | None, *, scrub_history: bool, bug_patch_path: str = BUG_PATCH_PATH
) -> str:
    """Bring the repository to the task's buggy tree and commit it.

    The bug commit is checked out when the image holds it; otherwise the bug patch (uploaded to
    ``bug_patch_path``) is applied to the image's tree. With ``scrub_history`` every other ref and
    object goes, so the clean parent (the answer) is not in the agent's repository.
    """
    quoted = shlex.quote(commit) if commit else "''"
    lines = [
        "set -e",
        f"cd {shlex.quote(workdir)}",
        f"commit={quoted}",
        'if [ -n "$commit" ] && git cat-file -e "$commit^{commit}" 2>/dev/null; then',
        '  git checkout -q -f "$commit"',
        '  echo "pytest-swe: checked out $commit"',
        "else",
        f"  git apply --whitespace=nowarn {shlex.quote(bug_patch_path)}",
        "  git add -A",
        f"  git {GIT_IDENTITY} commit -q --no-verify -m task",
        '  echo "pytest-swe: applied the bug patch (commit ${commit:-none} is not in the image)"',
        "fi",
        f"rm -f {shlex.quote(bug_patch_path)}",
    ]
    if scrub_history:
        lines += [
            f"git checkout -q --orphan {TASK_BRANCH}",
            f"git {GIT_IDENTITY} commit -q --no-verify -m task",
            "git for-each-ref --format='%(refname)' | while IFS= read -r ref; do",
            f'  [ "$ref" = refs/heads/{TASK_BRANCH} ] || git update-ref -d "$ref"',
            "done",
            'git remote | while IFS= read -r remote; do git remote remove "$remote"; done',
            "rm -f .git/ORIG_HEAD .git/FETCH_HEAD",
            "git reflog expire --expire=now --all",
            "git gc -q --prune=now",
        ]
    return "\n".join(lines) + "\n"


class SweSmithFamily(BaseFamily):
    """SWE-smith rows: reverse the bug patch for gold, no network, SWE-bench grading on narrowed lists."""

    name = "swe-smith"
    grader_version = GRADER

    def normalize(self, row: Mapping[str, Any], settings: BenchmarkSettings) -> Task:
        instance_id = require_str(row, "instance_id")
        rid = instance_id
        bug_patch = require_str(row, "patch", row_id=rid)
        try:
            gold = reverse_patch(bug_patch)
        except ValueError as exc:
            raise RowError("patch", str(exc), row=rid) from None
        repo = owner_repo(instance_id)
        if "/" not in repo:
            raise RowError("instance_id", "must be of the form <owner>__<repo>.<commit>.<bug>", row=rid)
        profile = profile_for(repo)
        fail_to_pass = swebench.required_tests(row, FAIL_TO_PASS, rid)
        pass_to_pass = swebench.required_tests(row, PASS_TO_PASS, rid)
        command, test_files = test_command(profile, fail_to_pass)
        return Task(
            family=self.name,
            instance_id=instance_id,
            image=image_for(row, instance_id, settings),
            workdir=REPO_DIR,
            repo=repo,
            # The buggy tree is committed afresh in each sandbox: diffs are taken against HEAD.
            base_commit=None,
            problem_statement=optional_str(row, "problem_statement", row_id=rid) or "",
            gold_patch=gold,
            test_patch=None,
            fail_to_pass=narrow(fail_to_pass, test_files),
            pass_to_pass=narrow(pass_to_pass, test_files),
            test_cmds=[command],
            eval_script=eval_script(command),
            log_parser=profile.log_parser,
            created_at=created_at_str(row.get("created_at")),
            raw={
                "bug_patch": bug_patch,
                "bug_commit": optional_str(row, "base_commit", row_id=rid) or "",
                "swesmith_repo": optional_str(row, "repo", row_id=rid) or "",
            },
        )

    def _prepare(self, task: Task, sandbox: Sandbox, *, scrub_history: bool, timeout: float) -> str:
        sandbox.write_file(BUG_PATCH_PATH, patch_bytes(task.raw.get("bug_patch", "")))
        script = prepare_script(task.workdir, task.raw.get("bug_commit") or None, scrub_history=scrub_history)
        result = sandbox.exec(script, timeout=timeout, workdir=task.workdir)
        if result.timed_out or result.exit_code != 0:
            raise InfraError(
                "sandbox_setup",
                f"cannot bring {task.workdir} to the task's buggy tree (exit {result.exit_code}): {result.output[-2000:]}",
            )
        return result.output

    def prepare_agent_sandbox(self, task: Task, sandbox: Sandbox, settings: BenchmarkSettings) -> None:
        scrub = bool(settings.family_options.get("scrub_history", True))
        self._prepare(
            task, sandbox, scrub_history=scrub, timeout=max(settings.timeouts.command, PREPARE_TIMEOUT)
        )

    def evaluate(self, task: Task, patch: str, sandbox: Sandbox, ctx: EvalContext) -> Verdict:
        setup_log = self._prepare(
            task, sandbox, scrub_history=False, timeout=min(ctx.timeout, PREPARE_TIMEOUT)
        )
        ctx.save("prepare.log", setup_log)
        eval_script = task.required_eval_script()
        run = grading.patch_and_run(task, patch, sandbox, ctx, eval_script, grader=self.grader_version)
        if not run.ran:
            return run.verdict
        run.verdict.test_exit_code = run.exit_code
        return grade_log(task, run.log, run.verdict, missing_tests_pass=_lenient(ctx.settings))

    def regrade(self, task: Task, log: str, verdict: Verdict, settings: BenchmarkSettings) -> Verdict:
        lenient = _lenient(settings)
        return grading.regrade(
            verdict,
            self.grader_version,
            lambda fresh: grade_log(task, log, fresh, missing_tests_pass=lenient),
        )


def _lenient(settings: BenchmarkSettings) -> bool:
    """``family_options.missing_tests_pass``: upstream SWE-smith's rule (see :func:`tests_report`)."""
    return bool(settings.family_options.get("missing_tests_pass", False))


def grade_log(task: Task, log: str, verdict: Verdict, *, missing_tests_pass: bool = False) -> Verdict:
    """SWE-bench FULL on the (narrowed) F2P/P2P lists, from the text between the markers.
    An empty patch or an empty FAIL_TO_PASS never resolves."""
    section = read_test_output(log)
    if section is None:
        verdict.log_valid = False
        verdict.reasons.append("invalid test log: the test output markers are missing")
        section = ""
    status_map = PARSERS[task.log_parser or "parse_log_pytest"](section)
    verdict.test_results = status_map
    report = tests_report(
        status_map, task.fail_to_pass, task.pass_to_pass, missing_tests_pass=missing_tests_pass
    )
    return swebench.settle(
        verdict,
        report,
        valid=verdict.log_valid,
        refuse_no_fail_to_pass=not task.fail_to_pass,
        empty_reason=EMPTY_F2P_REASON,
    )


def tests_report(
    status_map: Mapping[str, str],
    fail_to_pass: list[str],
    pass_to_pass: list[str],
    *,
    missing_tests_pass: bool = False,
) -> dict[str, TestGroup]:
    """F2P/P2P groups: SWE-bench's rule, or upstream SWE-smith's (a test missing from the log
    passes, SKIPPED counts on neither side) with ``missing_tests_pass``."""
    if not missing_tests_pass:
        return swebench.tests_report(status_map, fail_to_pass, pass_to_pass)
    passing = {TestStatus.PASSED.value, TestStatus.XFAIL.value}
    failing = {TestStatus.FAILED.value, TestStatus.ERROR.value}
    report: dict[str, TestGroup] = {}
    for name, tests in ((FAIL_TO_PASS, fail_to_pass), (PASS_TO_PASS, pass_to_pass)):
        group = TestGroup()
        for test in tests:
            status = status_map.get(test)
            if status is None or status in passing:
                group.success.append(test)
            elif status in failing:
                group.failure.append(test)
        report[name] = group
    return report


FAMILY = SweSmithFamily()


@pytest.hookimpl
def pytest_swe_families() -> list[Any]:
    return [FAMILY]
