"""Client for the official ``swebench`` 5.0.2 grader, which runs in its own virtual environment.

The official package is never imported here: ``data/official_grader_driver.py`` runs under
the venv's interpreter (made by ``.ci/official-venv.sh``) and answers JSON lines, so the
grading tests compare outputs, not code. Without the venv the tests fail in CI (``CI=true``)
and are skipped elsewhere.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import JsonLinesDriver
from conftest import official_python

DRIVER = Path(__file__).parent / "data" / "official_grader_driver.py"
RELEASE = "5.0.2"


class OfficialGrader(JsonLinesDriver):
    """One long-lived driver process (importing the official package takes about two seconds)."""

    def __init__(self) -> None:
        super().__init__(official_python(RELEASE), DRIVER, "the official grader driver")
        installed = self._ask({"op": "version"})
        if installed != RELEASE:
            self.close()
            pytest.fail(
                f"the official venv holds swebench {installed}, expected {RELEASE}: run .ci/official-venv.sh"
            )

    def _ask(self, request: dict[str, Any]) -> Any:
        answer = self.ask(request)
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
