"""The names grading shares with families, the cache key and re-grading.

They live apart from :mod:`pytest_swe.grading.pipeline` so that reading them (a family module
at import, the verdict cache on a hit) does not load the pipeline, the probe and the evidence
rules.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass

POLICY_VERSION = "pytest-swe/grading-29"
"""Changes whenever a rule could change a verdict: part of the verdict cache's key."""
STRICT = "strict"
OFFICIAL = "official"
POLICIES = (STRICT, OFFICIAL)
GRADED_LOG = "graded.log"
"""The eval log as the family graded it (without the probe's canary lines), beside ``eval.log``
when the two differ: what a re-grade reads."""


@dataclass
class ProbeSpec:
    """What a family tells the pipeline so the probe can check its runs."""

    runner: str | None
    """``pytest``, ``django``, ``sympy``, ``unittest``, or None (no canaries, no channel)."""
    parse: Callable[[str], Mapping[str, str]]
    """The family's parser: log text -> status map."""
    exact_ids: bool = True
    """Whether the parser's test ids are pytest node ids as printed (no normalization)."""
