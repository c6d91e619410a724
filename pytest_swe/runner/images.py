"""The images a selection of items needs: which are missing, fetching them (mirrors, bounded
concurrency, retries), removing the ones no item needs, and a disk budget kept as a run goes.

Provider-neutral: a provider offers :class:`~pytest_swe.api.sandbox.ImageBuilder` (presence,
pull) and :class:`~pytest_swe.api.sandbox.ImageStore` (size, tag, removal); everything about
which item needs which image is decided here.
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from collections import Counter
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import TYPE_CHECKING
from typing import Any

from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import RowError
from pytest_swe.api.errors import SweError
from pytest_swe.api.sandbox import ImageStore

if TYPE_CHECKING:
    from pytest_swe.api.sandbox import ImageBuilder
    from pytest_swe.api.settings import BenchmarkSettings

PULL_PARALLEL = 4
PULL_ATTEMPTS = 3
PULL_BACKOFF = 2.0


def mirrors_of(settings: BenchmarkSettings) -> dict[str, str]:
    """``images.mirrors``: registry or namespace prefix -> the prefix to fetch it from instead."""
    mirrors = settings.images.get("mirrors") or {}
    if not isinstance(mirrors, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in mirrors.items()
    ):
        raise ConfigError(f"{settings.file}: images.mirrors must map prefixes to prefixes (strings)")
    return {k.rstrip("/"): v.rstrip("/") for k, v in mirrors.items()}


def candidates(tag: str, mirrors: Mapping[str, str]) -> list[str]:
    """Where ``tag`` may be fetched from, in order: its longest matching mirror, then itself.

    A prefix matches whole path components: ``docker.io/swebench`` matches
    ``docker.io/swebench/x:1`` and ``swebench/x:1`` (Docker Hub's implicit registry), not
    ``swebench2/x``.
    """
    mirrors = {k.rstrip("/"): v.rstrip("/") for k, v in mirrors.items()}
    names = [tag]
    if tag.count("/") <= 1 and "." not in tag.split("/")[0] and ":" not in tag.split("/")[0]:
        names.append(f"docker.io/{tag}")
    for prefix in sorted(mirrors, key=len, reverse=True):
        for name in names:
            if name == prefix or name.startswith(prefix + "/") or name.startswith(prefix + ":"):
                return [mirrors[prefix] + name[len(prefix) :], tag]
    return [tag]


def fetch(
    builder: ImageBuilder,
    tag: str,
    mirrors: Mapping[str, str] | None = None,
    *,
    attempts: int = PULL_ATTEMPTS,
    backoff: float = PULL_BACKOFF,
    sleep: Callable[[float], None] = time.sleep,
) -> str | None:
    """Pull ``tag`` (from its mirror first), retrying; None when it is here, else why not.

    An image fetched from a mirror is tagged with its own name and the mirror's name removed,
    so it is known, counted and removed under one name.
    """
    why = "not attempted"
    for attempt in range(1, attempts + 1):
        for source in candidates(tag, mirrors or {}):
            try:
                builder.pull_image(source)
                if source != tag:
                    if not isinstance(builder, ImageStore):
                        raise ConfigError(f"cannot tag {source} as {tag}: the provider cannot tag images")
                    builder.tag_image(source, tag)
                    builder.remove_image(source)
                return None
            except SweError as exc:
                why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if attempt < attempts:
            sleep(backoff * attempt)
    return why


def fetch_all(
    builder: ImageBuilder,
    tags: Iterable[str],
    mirrors: Mapping[str, str] | None = None,
    *,
    parallel: int = PULL_PARALLEL,
    attempts: int = PULL_ATTEMPTS,
    backoff: float = PULL_BACKOFF,
) -> dict[str, str]:
    """Pull every tag, at most ``parallel`` at once; the tags that failed, with why."""
    todo = list(dict.fromkeys(tags))
    if not todo:
        return {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(parallel, len(todo)))) as pool:
        results = pool.map(lambda t: fetch(builder, t, mirrors, attempts=attempts, backoff=backoff), todo)
        return {tag: why for tag, why in zip(todo, results, strict=True) if why is not None}


def local_name(tag: str) -> str:
    """``tag`` as an engine lists it: Docker Hub's implicit registry dropped, ``:latest`` added."""
    for prefix in ("docker.io/library/", "docker.io/", "index.docker.io/"):
        if tag.startswith(prefix):
            tag = tag[len(prefix) :]
            break
    return tag if "@" in tag or ":" in tag.rsplit("/", 1)[-1] else f"{tag}:latest"


LIST_FROM = 64
"""From this many tags on, :func:`missing` lists the engine's images once instead of asking per
tag: on a Docker engine holding a few hundred images a listing took 0.17 s and one inspection
2.5 ms, and a listing's cost grows with the images on the engine, not with those asked for."""


def missing(builder: ImageBuilder, tags: Iterable[str]) -> list[str]:
    """The tags that are not here, in order (one listing for many tags when the provider can list
    its images, else one question per tag)."""
    todo = list(dict.fromkeys(tags))
    if isinstance(builder, ImageStore) and len(todo) >= LIST_FROM:
        here = set(builder.image_sizes())
        return [
            t for t in todo if local_name(t) not in here and ("@" not in t or not builder.image_exists(t))
        ]
    return [tag for tag in todo if not builder.image_exists(tag)]


def prune(store: ImageStore, candidates: Iterable[str], keep: Iterable[str]) -> list[str]:
    """Remove the ``candidates`` no item needs (not in ``keep``); return the ones removed."""
    kept = set(keep)
    return [tag for tag in dict.fromkeys(candidates) if tag not in kept and store.remove_image(tag)]


def listed(tags: list[str], limit: int = 20) -> str:
    shown = ", ".join(tags[:limit])
    return shown + (f" and {len(tags) - limit} more" if len(tags) > limit else "")


# --- which image each item needs ------------------------------------------------------------------


def images_of(session: Any, settings: BenchmarkSettings, instance_ids: Iterable[str]) -> dict[str, str]:
    """instance id -> image, for the items of one benchmark (each row normalized by its family);
    a row that cannot be read is left out (its item reports its own error)."""
    wanted = set(instance_ids)
    try:
        family = session.registry.families.get(settings.family)
        index = session.index_for(settings, family)
        refs = [ref for ref in index.refs() if ref.instance_id in wanted]
    except (SweError, OSError, ValueError):
        return {}
    out: dict[str, str] = {}
    for ref in refs:
        try:
            out[str(ref.instance_id)] = str(family.normalize(index.load_row(ref.locator), settings).image)
        except (RowError, SweError, OSError, ValueError):
            continue
    return out


# --- the budget ---------------------------------------------------------------------------------


@dataclass
class Budget:
    """Keeps the images of a run's selection within ``limit`` bytes: once no remaining item needs
    an image it may go, and goes while the selection's images here exceed the limit.

    One instance, in the process that sees every item finish (the xdist controller), decides
    alone: a worker never removes an image another worker's item may still need.
    """

    store: ImageStore
    limit: int
    needs: dict[str, str]
    """item key -> its image (every item of the run still to finish)."""
    in_flight: int = 1
    """Items that may start pulling an image before the next check (the number of workers)."""
    removed: list[str] = field(default_factory=list)
    peak: int = 0
    largest: int = 0
    after: list[int] = field(default_factory=list)
    """The selection's bytes here after each check."""
    _remaining: Counter[str] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._remaining = Counter(self.needs.values())

    @property
    def images(self) -> set[str]:
        return set(self.needs.values())

    def finished(self, item: str) -> list[str]:
        """An item finished: remove what no remaining item needs while over the limit."""
        with self._lock:
            image = self.needs.pop(item, None)
            if image is not None:
                self._remaining[image] -= 1
            return self._enforce()

    def on_disk(self) -> dict[str, int]:
        """The selection's images here, with their sizes."""
        sizes = self.store.image_sizes()
        return {tag: sizes[local_name(tag)] for tag in self._remaining if local_name(tag) in sizes}

    def enforce(self) -> list[str]:
        with self._lock:
            return self._enforce()

    def _enforce(self) -> list[str]:
        """Remove finished images, largest first, until the selection's images here and room for
        the next image of each item in flight fit the limit."""
        sizes = self.on_disk()
        total = sum(sizes.values())
        self.peak = max(self.peak, total)
        self.largest = max([self.largest, *sizes.values()])
        target = self.limit - self.largest * self.in_flight
        done = sorted((t for t in sizes if self._remaining[t] <= 0), key=lambda t: -sizes[t])
        gone = []
        for tag in done:
            if total <= target:
                break
            if self.store.remove_image(tag):
                total -= sizes[tag]
                gone.append(tag)
        self.removed += gone
        self.after.append(total)
        return gone
