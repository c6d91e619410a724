"""The verdict cache: an evaluation already graded is re-emitted from its stored verdict and log.

The key (:mod:`pytest_swe.grading.cachekey`) covers everything that decides a verdict, so a hit
needs no sandbox. Only graded verdicts are stored, never an infrastructure error. Entries are
one file each, written to a temporary name and renamed into place, so concurrent xdist workers
(and concurrent runs) share a cache directory safely; a torn or corrupt entry is a miss.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import uuid
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import Protocol

from pytest_swe.api.sandbox import ImageIdentity
from pytest_swe.api.verdict import Verdict
from pytest_swe.grading import cachekey
from pytest_swe.runner import options
from pytest_swe.runner.dataset import cache_root

if TYPE_CHECKING:
    import pytest

    from pytest_swe.api.family import EvalContext
    from pytest_swe.api.family import Family
    from pytest_swe.api.sandbox import Provider
    from pytest_swe.api.settings import BenchmarkSettings
    from pytest_swe.api.task import Task

ENTRY_FORMAT = 1
VERDICTS_DIR = "verdicts"
DEFAULT_ENV = "PYTEST_SWE_VERDICT_CACHE"
"""Overrides the default directory (``<pytest-swe cache>/verdicts``); ``--swe-cache`` wins."""


@dataclass
class CachedVerdict:
    """A stored evaluation: the verdict as graded and the artifacts it saved (eval script, logs)."""

    verdict: dict[str, Any]
    artifacts: dict[str, bytes]


class VerdictStore(Protocol):
    """Where cached verdicts live, by key."""

    def get(self, key: str) -> CachedVerdict | None:
        """The entry under ``key``; None when absent or unreadable."""
        ...

    def put(self, key: str, entry: CachedVerdict) -> None: ...


def _checksum(body: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


class DirectoryStore:
    """One JSON file per key under ``root/<2 hex>/<key>.json``, written atomically."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> CachedVerdict | None:
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
            body = data["body"]
            if data.get("checksum") != _checksum(body) or body.get("key") != key:
                return None
            if body.get("format") != ENTRY_FORMAT or not isinstance(body.get("verdict"), dict):
                return None
            artifacts = {name: base64.b64decode(text) for name, text in body["artifacts"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None  # absent, torn, or not ours: the item is evaluated again
        return CachedVerdict(verdict=body["verdict"], artifacts=artifacts)

    def put(self, key: str, entry: CachedVerdict) -> None:
        body = {
            "format": ENTRY_FORMAT,
            "key": key,
            "verdict": entry.verdict,
            "artifacts": {name: base64.b64encode(data).decode() for name, data in entry.artifacts.items()},
        }
        path = self.path(key)
        tmp = path.with_name(f".{key}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps({"checksum": _checksum(body), "body": body}), encoding="utf-8")
            os.replace(tmp, path)
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink()  # a full or read-only cache costs a miss next time, never the item


def store_for(config: pytest.Config) -> VerdictStore | None:
    """The run's store: ``--swe-cache DIR``, else the default directory; None with ``--swe-no-cache``
    and with ``--swe-keep`` or ``--pdb`` (whoever keeps or debugs sandboxes wants to enter them, not a
    replayed verdict)."""
    if (
        options.get(config, "--swe-no-cache")
        or options.get(config, "--swe-keep")
        or config.getoption("usepdb", False)
    ):
        return None
    chosen = options.get(config, "--swe-cache")
    if chosen:
        return DirectoryStore(Path(config.invocation_params.dir, chosen).resolve())
    env = os.environ.get(DEFAULT_ENV)
    return DirectoryStore(Path(env) if env else cache_root() / VERDICTS_DIR)


@dataclass
class Lookup:
    """One evaluation's place in the cache: its key (None: it cannot be keyed) and the entry found."""

    key: str | None
    hit: CachedVerdict | None = None


class VerdictCache:
    """Looks an evaluation up before any eval sandbox starts, and stores it once graded."""

    def __init__(self, store: VerdictStore) -> None:
        self.store = store

    def key(
        self, task: Task, patch: str, settings: BenchmarkSettings, family: Family, provider: Provider
    ) -> str | None:
        """The evaluation's key; None when the provider cannot name the image by content or the
        image is not here yet (it is keyed again once the evaluation pulled it)."""
        if not isinstance(provider, ImageIdentity):
            return None
        try:
            image_id = provider.image_id(task.image)
        except Exception:  # any provider's failure to answer: no cache for this item, never an error
            return None
        if not image_id:
            return None
        parts = cachekey.key_parts(
            task,
            patch,
            settings,
            image_id=image_id,
            grader_version=family.grader_version,
            code=cachekey.code_digest(cachekey.family_modules(family)),
        )
        return cachekey.verdict_key(parts)

    def lookup(
        self, task: Task, patch: str, settings: BenchmarkSettings, family: Family, provider: Provider
    ) -> Lookup:
        key = self.key(task, patch, settings, family, provider)
        return Lookup(key, self.store.get(key) if key else None)

    def replay(self, hit: CachedVerdict, ctx: EvalContext) -> Verdict | None:
        """The stored verdict, its artifacts written again into this item's directory; None when
        the entry does not hold a verdict this version can read (a miss)."""
        try:
            verdict = Verdict.model_validate(hit.verdict)
        except ValueError:
            return None
        for name, data in hit.artifacts.items():
            if Path(name).name != name:
                return None  # not an entry this cache wrote
            ctx.save(name, data)
        return verdict

    def save(self, key: str, verdict: Verdict, ctx: EvalContext) -> None:
        """Store a graded verdict and the artifacts its evaluation saved."""
        artifacts: dict[str, bytes] = {}
        for name, path in ctx.saved.items():
            try:
                artifacts[name] = Path(path).read_bytes()
            except OSError:
                return  # an artifact went missing: a partial entry would replay a partial log
        self.store.put(key, CachedVerdict(verdict=verdict.model_dump(mode="json"), artifacts=artifacts))


def verdict_of(
    cache: VerdictCache | None,
    task: Task,
    patch: str,
    settings: BenchmarkSettings,
    family: Family,
    provider: Provider,
    ctx: EvalContext,
    evaluate: Callable[[], Verdict],
) -> tuple[Verdict, bool]:
    """The verdict of an evaluation, and whether it was replayed: from the cache on a hit (no
    sandbox), else from ``evaluate`` (which starts the eval sandbox), stored once graded under
    the key of the image it really ran in (a missing image is keyed once the eval pulled it)."""
    if cache is None:
        return evaluate(), False
    lookup = cache.lookup(task, patch, settings, family, provider)
    replayed = cache.replay(lookup.hit, ctx) if lookup.hit else None
    if replayed is not None:
        return replayed, True
    verdict = evaluate()  # an infrastructure error raises here: nothing is stored
    key = lookup.key or cache.key(task, patch, settings, family, provider)
    if key:
        cache.save(key, verdict.model_copy(update={"artifacts": {}}, deep=True), ctx)
    return verdict, False
