"""Client for the official ``swebench`` 5.0.2 grader, which runs in its own virtual environment.

The official package is never imported here: ``data/official_grader_driver.py`` runs under
the venv's interpreter (made by ``.ci/official-venv.sh``) and answers JSON lines, so the
grading tests compare outputs, not code. Without the venv the tests fail in CI (``CI=true``)
and are skipped elsewhere.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).parent / "data" / "official_grader_driver.py"
RELEASE = "5.0.2"


def official_python() -> Path:
    """The official venv's interpreter; fails the test in CI and skips it elsewhere when missing."""
    venv = Path(os.environ.get("PYTEST_SWE_OFFICIAL_VENV") or ROOT / ".venv-official")
    python = venv / "bin" / "python"
    if python.is_file():
        return python
    message = (
        f"the official swebench {RELEASE} venv is missing ({venv}); run .ci/official-venv.sh "
        "(or point PYTEST_SWE_OFFICIAL_VENV at one)"
    )
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


class OfficialGrader:
    """One long-lived driver process (importing the official package takes about two seconds)."""

    def __init__(self) -> None:
        self._process = subprocess.Popen(
            [str(official_python()), str(DRIVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        )
        installed = self._ask({"op": "version"})
        if installed != RELEASE:
            self.close()
            pytest.fail(
                f"the official venv holds swebench {installed}, expected {RELEASE}: run .ci/official-venv.sh"
            )

    def _ask(self, request: dict[str, Any]) -> Any:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(json.dumps(request) + "\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError(f"the official grader driver exited ({self._process.poll()})")
        answer = json.loads(line)
        if "raised" in answer:
            raise RuntimeError(f"official grader raised {answer['raised']} on {request['op']}")
        return answer["ok"]

    def tests_report(
        self, status_map: dict[str, str], fail_to_pass: list[str], pass_to_pass: list[str], eval_type: str
    ) -> dict[str, Any]:
        """``{"tests_status": {FAIL_TO_PASS: {success, failure}, PASS_TO_PASS: ...}, "resolution": ...}``."""
        return self._ask(
            {
                "op": "tests_report",
                "status_map": status_map,
                "FAIL_TO_PASS": fail_to_pass,
                "PASS_TO_PASS": pass_to_pass,
                "eval_type": eval_type,
            }
        )

    def logs_eval(self, log: str, spec: dict[str, Any]) -> tuple[dict[str, str], bool]:
        answer = self._ask({"op": "logs_eval", "log": log, "spec": spec})
        return answer["status_map"], answer["found"]

    def eval_report(self, log: str, spec: dict[str, Any], prediction: dict[str, Any]) -> dict[str, Any]:
        return self._ask({"op": "eval_report", "log": log, "spec": spec, "prediction": prediction})

    def run_report(
        self, cwd: Path, predictions: dict[str, dict[str, Any]], dataset: list[dict[str, Any]], run_id: str
    ) -> dict[str, Any]:
        return self._ask(
            {
                "op": "run_report",
                "cwd": str(cwd),
                "predictions": predictions,
                "dataset": dataset,
                "run_id": run_id,
            }
        )

    def eval_scripts(self, rows: list[dict[str, Any]]) -> list[str]:
        return self._ask({"op": "eval_scripts", "rows": rows})

    def close(self) -> None:
        if self._process.stdin:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
