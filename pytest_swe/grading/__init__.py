"""Grading a patch: one pipeline for every family (see :mod:`pytest_swe.grading.pipeline`).

Stages, top to bottom: inspect the patch text, apply it and neutralize what cannot belong to a
fix, run the eval script with the probe around the test command, let the family parse and
grade, then :func:`decide` on the evidence of forgery.
"""

from .findings import SUSPICIOUS
from .findings import TAMPER
from .findings import Finding
from .patching import DIFF_DIR
from .paths import PathChange
from .paths import Protection
from .paths import is_test_path
from .pipeline import GRADED_LOG
from .pipeline import OFFICIAL
from .pipeline import POLICIES
from .pipeline import POLICY_VERSION
from .pipeline import STRICT
from .pipeline import EvalRun
from .pipeline import Integrity
from .pipeline import ProbeSpec
from .pipeline import apply_model_patch
from .pipeline import check_script_run
from .pipeline import decide
from .pipeline import inspect_model_patch
from .pipeline import integrity_of
from .pipeline import patch_and_run
from .pipeline import regrade
from .pipeline import required_tests
from .pipeline import settings_of
from .pipeline import start_verdict
from .run import classify_fault
from .run import run_script

__all__ = [
    "DIFF_DIR",
    "GRADED_LOG",
    "OFFICIAL",
    "POLICIES",
    "POLICY_VERSION",
    "STRICT",
    "SUSPICIOUS",
    "TAMPER",
    "EvalRun",
    "Finding",
    "Integrity",
    "PathChange",
    "ProbeSpec",
    "Protection",
    "apply_model_patch",
    "check_script_run",
    "classify_fault",
    "decide",
    "inspect_model_patch",
    "integrity_of",
    "is_test_path",
    "patch_and_run",
    "regrade",
    "required_tests",
    "run_script",
    "settings_of",
    "start_verdict",
]
