# The harness's result channel for unittest-based runners (Django's runtests.py, unittest): loaded
# at interpreter start-up by a .pth file under a name chosen per evaluation, it hands every
# TestCase.run a result that writes down what the test reported before passing it on, so a
# result class the code under test patched afterwards cannot change what the channel saw.
#
# Python 3.5 and newer, standard library only, no f-strings.
import json
import sys
import unittest

from pytest_swe.grading.probe.compiled import GradedAudit  # replaced by compiled.py when shipped
from pytest_swe.grading.probe.compiled import repository_relpath  # replaced by compiled.py when shipped
from pytest_swe.grading.probe.definitions import code_tree  # replaced by definitions.py when shipped
from pytest_swe.grading.probe.rebound import rebound_builtins  # replaced by rebound.py when shipped
from pytest_swe.grading.probe.record import write_record  # replaced by record.py when shipped
from pytest_swe.grading.probe.watchcall import ask_watch  # replaced by watchcall.py when shipped

OUT = "@OUT@"
GRADED = json.loads("""@GRADED@""")
REPO = "@REPO@"
WATCH = "@WATCH@"
# Whether a file ran as its source compiles is the equality watch's to say: no first_run here.
_AUDIT = GradedAudit(GRADED, repository_relpath(REPO), code_tree)
if hasattr(sys, "addaudithook"):
    sys.addaudithook(_AUDIT)


def _write(test, outcome):
    try:
        ident = test.id()
    except Exception:
        ident = repr(test)
    record = {"ev": "unit", "id": ident, "outcome": outcome}
    rebound = rebound_builtins()
    if rebound:
        record["builtins_replaced"] = rebound
    if _AUDIT.raw:
        record["raw_memory"] = list(_AUDIT.raw)
    write_record(OUT, record)


class _Recorder(object):
    """A result object that records each report, then forwards it to the real result."""

    def __init__(self, result):
        object.__setattr__(self, "_result", result)

    def __getattr__(self, name):
        return getattr(object.__getattribute__(self, "_result"), name)

    def __setattr__(self, name, value):
        setattr(object.__getattribute__(self, "_result"), name, value)

    def addSuccess(self, test):
        _write(test, "success")
        return self._result.addSuccess(test)

    def addFailure(self, test, err):
        _write(test, "failure")
        return self._result.addFailure(test, err)

    def addError(self, test, err):
        _write(test, "error")
        return self._result.addError(test, err)

    def addSkip(self, test, reason):
        _write(test, "skip")
        return self._result.addSkip(test, reason)

    def addExpectedFailure(self, test, err):
        _write(test, "expected_failure")
        return self._result.addExpectedFailure(test, err)

    def addUnexpectedSuccess(self, test):
        _write(test, "unexpected_success")
        return self._result.addUnexpectedSuccess(test)

    def addSubTest(self, test, subtest, err):
        if err is not None:
            _write(test, "subtest_failure")
        return self._result.addSubTest(test, subtest, err)


_run = unittest.TestCase.run


def _recording_run(self, result=None):
    try:
        if result is None or isinstance(result, _Recorder):
            return _run(self, result)
        return _run(self, _Recorder(result))
    finally:
        ask_watch(WATCH, "_between_tests")  # as each test ends, before the next one starts


unittest.TestCase.run = _recording_run
