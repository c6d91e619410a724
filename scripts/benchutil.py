"""What the benchmark scripts share: how they start pytest, and the cost of pytest itself,
measured in the same run."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYTEST = (sys.executable, "-m", "pytest")
"""pytest in the environment running the script: run it with a fresh environment's Python (``pip
install .``, no development extras) for the figures a user gets."""


def pytest_env() -> dict[str, str]:
    """The script's environment, but the checkout's ``pytest_swe/`` directory is not put first on
    the path (``python -m`` puts the working directory there): in an environment that installed
    the package from a wheel it would shadow the installed one, which holds the families,
    providers and agents."""
    return {**os.environ, "PYTHONSAFEPATH": "1"}


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
                [*PYTEST, *xdist, "-q", "-p", "no:cacheprovider"],
                cwd=tmp,
                env=pytest_env(),
                capture_output=True,
                check=True,
            )
            times.append(time.monotonic() - start)
    return statistics.median(times)


def sizes_and_rounds(doc: str | None, argv: list[str] | None) -> argparse.Namespace:
    """The options of a script measuring generated test files by size: ``--lines`` (the sizes, a
    list of ints), ``--rounds`` and ``--json``."""
    parser = argparse.ArgumentParser(description=(doc or "").strip().splitlines()[0])
    parser.add_argument("--lines", default="45,4005,20005")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    args.lines = [int(n) for n in args.lines.split(",")]
    return args


def timed_pytest(project: Path, plugins: Path | None, module: str, *, must_pass: bool) -> float:
    """Wall time of pytest on ``project``'s ``test_x.py`` (``-rA``, as the official eval scripts
    run it), with ``module`` in ``plugins`` loaded by ``-p`` as the eval loads the result channel,
    or with nothing; ``must_pass``: a run that fails stops the script."""
    env = {**pytest_env(), "PYTEST_ADDOPTS": f"-p {module}" if plugins else ""}
    if plugins is not None:
        env["PYTHONPATH"] = str(plugins)
    command = [*PYTEST, "-rA", "-p", "no:cacheprovider", "-p", "no:swe", "test_x.py"]
    start = time.monotonic()
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, check=False)
    took = time.monotonic() - start
    if must_pass and done.returncode != 0:
        raise SystemExit(f"pytest failed ({plugins}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return took
