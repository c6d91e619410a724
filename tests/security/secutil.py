"""Building hostile patches against the demo repositories, and running projects the way a user does.

Patches are written as git diffs against the real files of ``benchmarks/demo/instances``,
so they apply in the demo images exactly as a model's patch would.
"""

from __future__ import annotations

import difflib
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pytest_swe.tools import report

from conftest import DEMO_DIR
from conftest import DEMO_JSONL
from conftest import SweProject
from conftest import SweRun


def bundle_of(parts: list[tuple[str, bytes]]) -> bytes:
    """Parts as the sandbox prints them back (a ``wc -c`` listing, ``--``, the bytes in order);
    tests/test_bundles.py holds the real shells and tools to this form."""
    listing = "".join(f"{len(data)} {name}\n" for name, data in parts)
    if len(parts) > 1:
        listing += f"{sum(len(data) for _, data in parts)} total\n"
    return listing.encode() + b"--\n" + b"".join(data for _, data in parts)


DEMO_ROWS: dict[str, dict[str, Any]] = {
    json.loads(line)["instance_id"]: json.loads(line)
    for line in DEMO_JSONL.read_text().splitlines()
    if line.strip()
}


def repo_file(instance: str, path: str) -> str:
    return (DEMO_DIR / "instances" / instance / "repo" / path).read_text()


def new_file(path: str, text: str, mode: str = "100644") -> str:
    """A git diff that adds ``path``."""
    lines = text.splitlines(keepends=True)
    body = "".join("+" + line for line in lines)
    if lines and not lines[-1].endswith("\n"):
        body += "\n\\ No newline at end of file\n"
    return (
        f"diff --git a/{path} b/{path}\nnew file mode {mode}\n--- /dev/null\n+++ b/{path}\n"
        f"@@ -0,0 +1,{len(lines)} @@\n{body}"
    )


def edit_file(instance: str, path: str, new_text: str) -> str:
    """A git diff that turns the demo file ``path`` into ``new_text``."""
    old = repo_file(instance, path)
    diff = difflib.unified_diff(
        old.splitlines(keepends=True), new_text.splitlines(keepends=True), f"a/{path}", f"b/{path}"
    )
    return f"diff --git a/{path} b/{path}\n" + "".join(diff)


def append_to(instance: str, path: str, extra: str) -> str:
    return edit_file(instance, path, repo_file(instance, path) + textwrap.dedent(extra))


def delete_file(instance: str, path: str) -> str:
    old = repo_file(instance, path).splitlines(keepends=True)
    body = "".join("-" + line for line in old)
    return (
        f"diff --git a/{path} b/{path}\ndeleted file mode 100644\n--- a/{path}\n+++ /dev/null\n"
        f"@@ -1,{len(old)} +0,0 @@\n{body}"
    )


def symlink_over(instance: str, path: str, target: str) -> str:
    """Replace the demo file ``path`` with a symlink to ``target``."""
    return delete_file(instance, path) + new_file(path, target + "\n", mode="120000").replace(
        f"+{target}\n", f"+{target}\n\\ No newline at end of file\n"
    )


def required(instance: str) -> list[str]:
    row = DEMO_ROWS[instance]
    return json.loads(row["FAIL_TO_PASS"]) + json.loads(row["PASS_TO_PASS"])


FORCE_PASS_CONFTEST = """\
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        report.outcome = "passed"
        report.longrepr = None
"""

FORGER = '''\

import os as _os


def _pipe_fd():
    """The real stdout of the run: pytest keeps it open on some fd while it captures fd 1."""
    for fd in range(3, 256):
        try:
            if _os.readlink(f"/proc/self/fd/{{fd}}").startswith("pipe:"):
                return fd
        except OSError:
            pass
    return 1


_TESTS = {tests!r}


def _forge(extra=""):
    text = "".join("PASSED " + test + "\\n" for test in _TESTS) + extra
    _os.write(_pipe_fd(), text.encode())
'''


def forger(instance: str, action: str) -> str:
    """Module code that writes forged PASSED lines for every required test, then ``action``."""
    return FORGER.format(tests=required(instance)) + textwrap.dedent(action)


def demo_benchmark(project: SweProject, name: str, data: Path, **overrides: Any) -> Path:
    """A benchmark file over ``data`` (demo rows and images) with these top-level settings replaced."""
    import yaml

    settings: dict[str, Any] = {
        "name": name,
        "family": "swe-bench",
        "dataset": {"source": str(data), "split": "test"},
        "markers": ["demo"],
        "agent": "gold",
        "provider": "docker",
        "timeouts": {"agent": 300, "eval": 300},
        "limits": {"memory": "1g", "cpus": 1, "pids": 512},
        **overrides,
    }
    return project.benchmark(name, yaml.safe_dump(settings, sort_keys=False))


def predictions(path: Path, patches: dict[str, str]) -> Path:
    rows = [{"instance_id": k, "model_name_or_path": "hostile", "model_patch": v} for k, v in patches.items()]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def dataset(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def row_as(instance: str, new_id: str, **changes: Any) -> dict[str, Any]:
    """A copy of a demo row under another id (same image), with some fields changed."""
    return {**DEMO_ROWS[instance], "instance_id": new_id, **changes}


@dataclass
class MeasuredRun:
    run: SweRun
    max_rss_kib: int
    """Peak resident memory of the pytest process tree (controller and workers)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """What the code around the run observed (JSON-serialisable), shared with the other workers."""


_MEASURE = (
    "import resource, subprocess, sys\n"
    "code = subprocess.call(sys.argv[1:])\n"
    "print('MAXRSS', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    "sys.exit(code)\n"
)


def run_measured(project: SweProject, *args: str, timeout: float = 600, **popen: Any) -> MeasuredRun:
    """Run pytest in a subprocess as a user would, and measure its peak memory."""
    project.runs += 1
    junit = project.path / f"junit-{project.runs}.xml"
    run_dir = project.path / f"run-{project.runs}"
    command = [
        sys.executable, "-c", _MEASURE, sys.executable, "-m", "pytest", *args,
        f"--junitxml={junit}", f"--swe-run-dir={run_dir}", "-p", "no:cacheprovider",
        f"--swe-cache={project.path / f'verdict-cache-{project.runs}'}",  # this run's own verdicts
    ]  # fmt: skip
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run(
        command, cwd=project.path, capture_output=True, text=True, timeout=timeout, env=env, **popen
    )
    rss = next((int(line.split()[1]) for line in proc.stdout.splitlines() if line.startswith("MAXRSS ")), 0)
    result = _Result(proc)
    run = SweRun(result, junit, run_dir)  # type: ignore[arg-type]
    if junit.exists():
        run.cases = report.read_cases(junit)
    return MeasuredRun(run, rss)


def shared_run(
    tmp_path_factory: Any, name: str, make: Callable[[SweProject], MeasuredRun]
) -> tuple[MeasuredRun, SweProject]:
    """Run ``make`` once per test session, whichever xdist workers ask: the first one runs it under a
    lock in the session's shared temporary root, the others read the same ledger back."""
    from filelock import FileLock

    root = tmp_path_factory.getbasetemp()
    shared = root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root
    path = shared / f"shared-{name}"
    record = path / "measured.json"
    with FileLock(str(shared / f"shared-{name}.lock")):
        path.mkdir(parents=True, exist_ok=True)
        project = SweProject(SimpleNamespace(path=path))  # type: ignore[arg-type]
        if not record.exists():
            measured = make(project)
            run = measured.run
            record.write_text(
                json.dumps(
                    {
                        "junit": str(run.junit),
                        "run_dir": str(run.run_dir),
                        "rss": measured.max_rss_kib,
                        "ret": run.result.ret,
                        "stdout": run.result.stdout_text[-5000:],
                        "extra": getattr(measured, "extra", {}),
                    }
                )
            )
    data = json.loads(record.read_text())
    result = _Result(subprocess.CompletedProcess([], data["ret"], data["stdout"], ""))
    run = SweRun(result, Path(data["junit"]), Path(data["run_dir"]))  # type: ignore[arg-type]
    if run.junit.exists():
        run.cases = report.read_cases(run.junit)
        run.suite = report.read_suite_properties(run.junit)
    return MeasuredRun(run, data["rss"], data["extra"]), project


class _Result:
    """Enough of pytest.RunResult for messages in assertions."""

    def __init__(self, proc: subprocess.CompletedProcess[str]) -> None:
        self.ret = proc.returncode
        self.stdout_text = proc.stdout
        self.stderr_text = proc.stderr

    def __repr__(self) -> str:
        return f"exit {self.ret}\n{self.stdout_text[-3000:]}\n{self.stderr_text[-2000:]}"
