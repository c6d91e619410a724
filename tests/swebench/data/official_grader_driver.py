"""Runs inside the virtual environment that holds the official ``swebench`` 5.0.2 package.

The grading tests start it with that environment's interpreter and exchange JSON lines over
stdin/stdout, so the official package never enters pytest-swe's own process. One request per
line, one answer per line (``{"ok": ...}``, or ``{"raised": "Type: message"}``):

* ``{"op": "version"}`` -> the installed ``swebench`` version.
* ``{"op": "tests_report", "status_map", "FAIL_TO_PASS", "PASS_TO_PASS", "eval_type"}`` ->
  ``{"tests_status": get_eval_tests_report(...), "resolution": get_resolution_status(...)}``.
* ``{"op": "logs_eval", "log", "spec"}`` -> ``{"status_map", "found"}`` from ``get_logs_eval``.
* ``{"op": "eval_report", "log", "spec", "prediction"}`` -> ``get_eval_report(...,
  include_tests_status=True)``.
* ``{"op": "run_report", "cwd", "predictions", "dataset", "run_id"}`` -> the JSON that
  ``make_run_report`` writes when run in ``cwd`` (which holds ``logs/run_evaluation/...``).
* ``{"op": "eval_scripts", "rows"}`` -> ``[make_test_spec(row).eval_script, ...]``: the script
  the harness runs for a v5 row, with the test exit code recorded.

``spec`` holds the TestSpec fields the grader reads: ``instance_id``, ``log_parser``,
``eval_type``, ``FAIL_TO_PASS``, ``PASS_TO_PASS`` (and optionally ``repo``, ``version``).
"""

import contextlib
import json
import os
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

from swebench.harness.grading import get_eval_report
from swebench.harness.grading import get_eval_tests_report
from swebench.harness.grading import get_logs_eval
from swebench.harness.grading import get_resolution_status
from swebench.harness.reporting import make_run_report
from swebench.harness.utils import make_test_spec
from swebench.types import TestSpec


def _spec(fields):
    return TestSpec(
        instance_id=fields.get("instance_id", "owner__repo-1"),
        image=fields.get("image", ""),
        eval_script_list=[],
        repo=fields.get("repo", ""),
        version=fields.get("version", ""),
        FAIL_TO_PASS=list(fields.get("FAIL_TO_PASS", [])),
        PASS_TO_PASS=list(fields.get("PASS_TO_PASS", [])),
        log_parser=fields.get("log_parser", "parse_log_pytest"),
        eval_type=fields.get("eval_type", "pass_and_fail"),
    )


def _log_file(directory, text):
    path = Path(directory) / "test_output.txt"
    path.write_text(text)
    return str(path)


def _tests_report(request):
    gold = {"FAIL_TO_PASS": request["FAIL_TO_PASS"], "PASS_TO_PASS": request["PASS_TO_PASS"]}
    from swebench.harness.constants import EvalType

    report = get_eval_tests_report(request["status_map"], gold, eval_type=EvalType(request["eval_type"]))
    return {
        "tests_status": {key: report[key] for key in ("FAIL_TO_PASS", "PASS_TO_PASS")},
        "resolution": get_resolution_status(report),
    }


def _logs_eval(request):
    with tempfile.TemporaryDirectory() as directory:
        status_map, found = get_logs_eval(_spec(request["spec"]), _log_file(directory, request["log"]))
    return {"status_map": status_map, "found": found}


def _eval_report(request):
    with tempfile.TemporaryDirectory() as directory:
        return get_eval_report(
            _spec(request["spec"]),
            request["prediction"],
            _log_file(directory, request["log"]),
            include_tests_status=True,
        )


def _run_report(request):
    previous = os.getcwd()
    os.chdir(request["cwd"])
    try:
        path = make_run_report(
            request["predictions"], request["dataset"], request["run_id"], client=None, report_dir="reports"
        )
        return json.loads(Path(path).read_text())
    finally:
        os.chdir(previous)


def _eval_scripts(request):
    return [make_test_spec(row).eval_script for row in request["rows"]]


OPS = {
    "version": lambda request: version("swebench"),
    "tests_report": _tests_report,
    "logs_eval": _logs_eval,
    "eval_report": _eval_report,
    "run_report": _run_report,
    "eval_scripts": _eval_scripts,
}


def main():
    out = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        try:
            # the harness and some parsers print progress; keep the answer channel clean
            with contextlib.redirect_stdout(sys.stderr):
                answer = {"ok": OPS[request["op"]](request)}
        except Exception as error:
            answer = {"raised": f"{type(error).__name__}: {error}"}
        out.write(json.dumps(answer) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
