"""The content key of a verdict: everything that decides it, hashed.

Two evaluations with equal keys grade the same patch in the same image by the same script,
parser, rule and policy, so the second may reuse the first's verdict and log. Anything that
could change a verdict is in the key; what cannot (the problem statement, hints) is left out
so a reworded issue still hits. When unsure, a field stays in: a needless miss costs a
sandbox, a wrong hit costs a verdict.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_swe.api.settings import BenchmarkSettings
from pytest_swe.api.task import Task

from .spec import POLICY_VERSION

KEY_FORMAT = "pytest-swe/verdict-key-1"
#: Task fields that never reach grading (the agent reads them; the eval script does not).
NOT_GRADED_TASK_FIELDS = frozenset({"problem_statement"})
NOT_GRADED_ROW_FIELDS = frozenset({"problem_statement", "hints_text"})
#: Packages whose code decides verdicts: the pipeline, the probe, every family and log parser.
GRADING_PACKAGES = ("pytest_swe.grading", "pytest_swe.families", "pytest_swe.api")


def _package_files(name: str) -> list[Path]:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        return []
    root = Path(spec.origin).parent
    return sorted(root.rglob("*.py")) if spec.submodule_search_locations else [Path(spec.origin)]


@functools.cache
def code_digest(extra_modules: tuple[str, ...] = ()) -> str:
    """A digest of the grading code's source (and of ``extra_modules``, e.g. a third-party
    family's), so a fix to a parser or a rule misses every verdict it could change."""
    digest = hashlib.sha256()
    names = (*GRADING_PACKAGES, *extra_modules)
    for path in sorted({p for name in names for p in _package_files(name)}):
        digest.update(str(path.name).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def family_modules(family: object) -> tuple[str, ...]:
    """The module a family class lives in, when it is not one of the shipped packages."""
    module = type(family).__module__
    if module.startswith(GRADING_PACKAGES) or module not in sys.modules:
        return ()
    return (module,)


def grading_fields(task: Task) -> dict[str, Any]:
    """The task as grading sees it: every field but the ones that only the agent reads."""
    data = task.model_dump(mode="json", exclude=set(NOT_GRADED_TASK_FIELDS))
    data["raw"] = {k: v for k, v in data.get("raw", {}).items() if k not in NOT_GRADED_ROW_FIELDS}
    return data


def grading_settings(settings: BenchmarkSettings) -> dict[str, Any]:
    """The benchmark settings an evaluation reads: the policy and its options, the family's
    options, the eval sandbox's limits, time and network, the provider and image settings."""
    return {
        "eval": settings.eval.model_dump(mode="json"),
        "family_options": settings.family_options,
        "limits": settings.limits.model_dump(mode="json"),
        "timeout": settings.timeouts.eval,
        "network": settings.network.eval,
        "provider": settings.provider.model_dump(mode="json"),
        "images": {
            k: v for k, v in settings.images.items() if k != "mirrors"
        },  # the image id covers where it came from
    }


def key_parts(
    task: Task,
    patch: str,
    settings: BenchmarkSettings,
    *,
    image_id: str,
    grader_version: str,
    code: str,
) -> dict[str, Any]:
    """Every input of a verdict, by name (a test changes one and sees the key change)."""
    fields = grading_fields(task)
    return {
        "format": KEY_FORMAT,
        "image_id": image_id,
        "eval_script": fields.pop("eval_script"),
        "test_patch": fields.pop("test_patch"),
        "model_patch": patch,
        "row": fields,
        "family": task.family,
        "grader_version": grader_version,
        "policy_version": POLICY_VERSION,
        "code": code,
        "settings": grading_settings(settings),
    }


def verdict_key(parts: Mapping[str, Any]) -> str:
    """The hex SHA-256 of the parts in canonical JSON."""
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
