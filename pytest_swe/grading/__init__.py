"""Grading a patch: one pipeline for every family (see :mod:`pytest_swe.grading.pipeline`).

Stages, top to bottom: inspect the patch text, apply it and neutralize what cannot belong to a
fix, run the eval script with the probe around the test command, let the family parse and
grade, then :func:`decide` on the evidence of forgery.

The names load on first use (PEP 562), so importing one light part of the package (the
verdict cache's key, a family's :class:`ProbeSpec`) does not load the whole pipeline.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING
from typing import Any

if TYPE_CHECKING:
    from .findings import SUSPICIOUS
    from .findings import TAMPER
    from .findings import Finding
    from .patching import DIFF_DIR
    from .paths import PathChange
    from .paths import Protection
    from .paths import is_test_path
    from .pipeline import EvalRun
    from .pipeline import Integrity
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
    from .spec import GRADED_LOG
    from .spec import OFFICIAL
    from .spec import POLICIES
    from .spec import POLICY_VERSION
    from .spec import STRICT
    from .spec import ProbeSpec

_WHERE: dict[str, str] = {
    "SUSPICIOUS": "findings",
    "TAMPER": "findings",
    "Finding": "findings",
    "DIFF_DIR": "patching",
    "PathChange": "paths",
    "Protection": "paths",
    "is_test_path": "paths",
    "GRADED_LOG": "spec",
    "OFFICIAL": "spec",
    "POLICIES": "spec",
    "POLICY_VERSION": "spec",
    "STRICT": "spec",
    "EvalRun": "pipeline",
    "Integrity": "pipeline",
    "ProbeSpec": "spec",
    "apply_model_patch": "pipeline",
    "check_script_run": "pipeline",
    "decide": "pipeline",
    "inspect_model_patch": "pipeline",
    "integrity_of": "pipeline",
    "patch_and_run": "pipeline",
    "regrade": "pipeline",
    "required_tests": "pipeline",
    "settings_of": "pipeline",
    "start_verdict": "pipeline",
    "classify_fault": "run",
    "run_script": "run",
}

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


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
