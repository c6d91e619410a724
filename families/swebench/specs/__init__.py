"""Per-repository, per-version install and test facts for rows that carry no ``eval_script``.

Classic SWE-bench rows (``princeton-nlp/SWE-bench*``), SWE-bench Multilingual and Multimodal, and
SWE-Gym name only ``repo`` and ``version``; the official harness looked both up in a table to
know how to test the row. This package is that table, grouped by collection:

==============  =====================================================  ===========================
collection      repositories                                           facts read from
==============  =====================================================  ===========================
swe-bench       18 Python repos (the 12 of test, the 6 of dev)         swebench 4.1.0 constants
multilingual    41 repos in C/C++, Go, Java, JS/TS, PHP, Ruby, Rust    swebench 4.1.0 constants
multimodal      5 JavaScript repos                                     swebench 4.1.0 constants
swe-gym         11 Python repos                                        the SWE-Gym harness fork
==============  =====================================================  ===========================

Look a spec up with :func:`spec_for`; an unknown pair raises :class:`SpecNotFound` (a
``KeyError``) that names the repository and the version.
"""

from __future__ import annotations

from collections.abc import Mapping

from pytest_swe.families.swebench.specs import c
from pytest_swe.families.swebench.specs import go
from pytest_swe.families.swebench.specs import java
from pytest_swe.families.swebench.specs import javascript
from pytest_swe.families.swebench.specs import php
from pytest_swe.families.swebench.specs import python
from pytest_swe.families.swebench.specs import ruby
from pytest_swe.families.swebench.specs import rust
from pytest_swe.families.swebench.specs import swe_gym
from pytest_swe.families.swebench.specs.model import DIALECTS
from pytest_swe.families.swebench.specs.model import RepoSpec

__all__ = [
    "COLLECTIONS",
    "DIALECTS",
    "PUBLISHED_PRE_TEST_STEPS",
    "RepoSpec",
    "SpecNotFound",
    "collection_of",
    "known_repos",
    "known_versions",
    "spec_for",
]

PUBLISHED_PRE_TEST_STEPS: Mapping[str, tuple[str, ...]] = python.PUBLISHED_PRE_TEST_STEPS

_MULTILINGUAL_TABLES = (c.SPECS, go.SPECS, java.SPECS, javascript.SPECS, php.SPECS, ruby.SPECS, rust.SPECS)


def _collections() -> dict[str, dict[str, dict[str, RepoSpec]]]:
    multilingual: dict[str, dict[str, RepoSpec]] = {}
    multimodal: dict[str, dict[str, RepoSpec]] = {}
    for table in _MULTILINGUAL_TABLES:
        for repo_name, versions in table.items():
            target = multimodal if repo_name in javascript.MULTIMODAL_REPOS else multilingual
            target[repo_name] = versions
    return {
        "swe-bench": dict(python.SPECS),
        "multilingual": multilingual,
        "multimodal": multimodal,
        "swe-gym": dict(swe_gym.SPECS),
    }


#: collection name -> repository -> version -> spec.
COLLECTIONS: Mapping[str, Mapping[str, Mapping[str, RepoSpec]]] = _collections()

_BY_REPO: dict[str, Mapping[str, RepoSpec]] = {}
for _tables in COLLECTIONS.values():
    for _repo_name, _versions in _tables.items():
        if _repo_name in _BY_REPO:
            raise RuntimeError(f"{_repo_name} appears in two collections")
        _BY_REPO[_repo_name] = _versions
# Rows spell some names differently from the table (the SWE-Gym fork looks repositories up in
# lower case), so an exact miss falls back to a case-insensitive match.
_BY_REPO_LOWER: dict[str, str] = {name.lower(): name for name in _BY_REPO}


class SpecNotFound(KeyError):
    """No spec for this repository/version pair: the row cannot get an eval script from the table."""

    def __init__(self, repo: str, version: str, reason: str) -> None:
        super().__init__(repo, version)
        self.repo = repo
        self.version = version
        self.reason = reason

    def __str__(self) -> str:
        return f"no eval spec for repo {self.repo!r} at version {self.version!r}: {self.reason}"


def _canonical_repo(repo: str) -> str | None:
    if repo in _BY_REPO:
        return repo
    return _BY_REPO_LOWER.get(repo.lower())


def spec_for(repo: str, version: str) -> RepoSpec:
    """The spec of ``repo`` (``owner/name``) at ``version``; raises :class:`SpecNotFound`."""
    canonical = _canonical_repo(repo)
    if canonical is None:
        raise SpecNotFound(repo, version, "the repository is not in any known collection")
    versions = _BY_REPO[canonical]
    try:
        return versions[str(version)]
    except KeyError:
        known = ", ".join(sorted(versions))
        raise SpecNotFound(repo, str(version), f"known versions are {known}") from None


def known_repos(collection: str | None = None) -> set[str]:
    """Repository names with specs, in all collections or in one (see :data:`COLLECTIONS`)."""
    if collection is None:
        return set(_BY_REPO)
    try:
        return set(COLLECTIONS[collection])
    except KeyError:
        raise KeyError(f"unknown collection {collection!r}; known: {', '.join(COLLECTIONS)}") from None


def known_versions(repo: str) -> set[str]:
    """Versions with specs for ``repo`` (empty when the repository is unknown)."""
    canonical = _canonical_repo(repo)
    return set(_BY_REPO[canonical]) if canonical else set()


def collection_of(repo: str) -> str | None:
    """Which collection a repository's specs come from, or ``None`` when it has none."""
    canonical = _canonical_repo(repo)
    for name, tables in COLLECTIONS.items():
        if canonical in tables:
            return name
    return None
