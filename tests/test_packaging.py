"""The wheel ships families, providers and agents inside the pytest_swe namespace only; the CI scripts."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_wheel_layout(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (wheel,) = tmp_path.glob("pytest_swe-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top_level = {name.split("/", 1)[0] for name in names}
    assert {"families", "providers", "agents", "tests", "benchmarks"}.isdisjoint(top_level), top_level
    assert "pytest_swe/py.typed" in names
    for module in (
        "pytest_swe/runner/plugin.py",
        "pytest_swe/families/swebench/__init__.py",
        "pytest_swe/families/swebench/specs/python.py",
        "pytest_swe/families/logparsers/__init__.py",
        "pytest_swe/providers/docker/provider.py",
        "pytest_swe/agents/gold.py",
        "pytest_swe/tools/html/report.js",  # the HTML report's script and stylesheet, read at run time
        "pytest_swe/tools/html/report.css",
    ):
        assert module in names, module
    # every module of the source tree's families/providers/agents is in the wheel
    for folder in ("families", "providers", "agents"):
        for source in (REPO / folder).rglob("*.py"):
            assert f"pytest_swe/{source.relative_to(REPO).as_posix()}" in names, source
    metadata = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    entry_points = zipfile.ZipFile(wheel).read(metadata).decode()
    assert "[pytest11]" in entry_points and "swe = pytest_swe.runner.plugin" in entry_points
    assert "pytest-swe = pytest_swe.tools.cli:main" in entry_points


def test_run_tests_counts_no_tests_ran_as_success_and_keeps_other_codes(pytester: pytest.Pytester) -> None:
    """``scripts/run-tests.sh`` (used by ``make test`` and ``make test-oldest``): a selection that
    matches nothing here (pytest's exit code 5) cannot fail CI; a failing test still does."""
    script = REPO / "scripts" / "run-tests.sh"
    pytester.makepyfile(test_one="def test_ok():\n    pass\n\ndef test_bad():\n    assert False\n")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", str(script), sys.executable, "-p", "no:cacheprovider", "-q", *args],
            cwd=pytester.path,
            capture_output=True,
            text=True,
            check=False,
        )

    nothing = run("-k", "no_such_test")
    assert nothing.returncode == 0, nothing.stdout + nothing.stderr
    assert "no tests ran for: pytest" in nothing.stderr and "exit code 5" in nothing.stderr
    assert run("-k", "ok").returncode == 0
    assert run("-k", "bad").returncode == 1


def test_ci_runs_the_readme_test_command_and_the_oldest_pytest_job() -> None:
    ci = (REPO / ".ci" / "run").read_text()
    assert "make test\n" in ci and "make test-oldest\n" in ci
    makefile = (REPO / "Makefile").read_text()
    assert "OLDEST_PYTEST ?= pytest==8.0.*" in makefile
    readme = (REPO / "README.md").read_text()
    assert "make test " in readme and "make demo " in readme
