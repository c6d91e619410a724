"""The wheel ships families, providers and agents inside the pytest_swe namespace only."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

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
        "pytest_swe/plugin.py",
        "pytest_swe/families/swebench/__init__.py",
        "pytest_swe/families/swebench/specs/python.py",
        "pytest_swe/families/logparsers/__init__.py",
        "pytest_swe/providers/docker.py",
        "pytest_swe/agents/gold.py",
    ):
        assert module in names, module
    # every module of the source tree's families/providers/agents is in the wheel
    for folder in ("families", "providers", "agents"):
        for source in (REPO / folder).rglob("*.py"):
            assert f"pytest_swe/{source.relative_to(REPO).as_posix()}" in names, source
    metadata = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    entry_points = zipfile.ZipFile(wheel).read(metadata).decode()
    assert "[pytest11]" in entry_points and "swe = pytest_swe.plugin" in entry_points
    assert "pytest-swe = pytest_swe.cli:main" in entry_points
