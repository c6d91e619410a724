"""What the benchmark scripts share: the cost of pytest itself, measured in the same run."""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def pytest_alone(workers: int | None = None, repeat: int = 3) -> float:
    """Median wall time of pytest, in this environment, running one empty test (at ``-n workers``
    when given): the interpreter, the plugins (pytest-swe among them), xdist's workers, and the
    session's end. No pytest-swe run can take less."""
    xdist = ["-n", str(workers)] if workers is not None else []
    with tempfile.TemporaryDirectory(prefix="bench-pytest-alone-") as tmp:
        Path(tmp, "test_empty.py").write_text("def test_empty():\n    pass\n")
        times = []
        for _ in range(repeat):
            start = time.monotonic()
            subprocess.run(
                [sys.executable, "-m", "pytest", *xdist, "-q", "-p", "no:cacheprovider"],
                cwd=tmp,
                capture_output=True,
                check=True,
            )
            times.append(time.monotonic() - start)
    return statistics.median(times)
