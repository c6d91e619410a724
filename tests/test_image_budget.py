"""The images of a selection: mirrors, pulls with bounded concurrency and retries, ``pytest-swe
images check|pull|prune``, and a run held to ``--swe-image-budget``.

Pulls, mirrors and the budget run against a real registry (Debian's docker-registry, started
here on a free loopback port with its own storage); only the retry and concurrency logic uses a
local fake, to make pulls fail and overlap on purpose. Every image here is a test-unique copy,
so nothing removed is an image another test or user needs.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import InfraError
from pytest_swe.api.sizes import parse_size
from pytest_swe.runner import images

from conftest import DEMO_JSONL
from conftest import SweProject
from conftest import read_jsonl
from conftest import unavailable
from conftest import write_jsonl

# --- mirrors, sizes, retries and concurrency (a fake provider) ---------------------------------------


def test_a_mirror_replaces_the_longest_matching_prefix_on_whole_components() -> None:
    mirrors = {
        "docker.io/swebench": "m.local/sb",
        "docker.io": "m.local/hub",
        "ghcr.io/acme/": "m.local/acme",
    }
    assert images.candidates("swebench/sweb.eval.x:latest", mirrors) == [
        "m.local/sb/sweb.eval.x:latest",
        "swebench/sweb.eval.x:latest",
    ]
    assert images.candidates("docker.io/swebench/x:1", mirrors)[0] == "m.local/sb/x:1"
    assert images.candidates("swebench2/x:1", mirrors)[0] == "m.local/hub/swebench2/x:1"
    assert images.candidates("ghcr.io/acme/tool:2", mirrors)[0] == "m.local/acme/tool:2"
    assert images.candidates("ghcr.io/acmex/tool:2", mirrors) == ["ghcr.io/acmex/tool:2"]


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("100G", 100 * 1024**3),
        ("512m", 512 * 1024**2),
        ("512mb", 512 * 1024**2),
        ("2Gi", 2 * 1024**3),
        ("1.5t", int(1.5 * 1024**4)),
        ("42", 42),
        ("42b", 42),
        (4096, 4096),
    ],
)
def test_sizes(text: str, size: int) -> None:
    assert parse_size(text, "--swe-image-budget") == size


@pytest.mark.parametrize("text", ["lots", "0", "-1g", "5x", True])
def test_a_size_that_is_not_one_names_the_option(text: object) -> None:
    with pytest.raises(ConfigError, match=f"--swe-image-budget: {text!r}"):
        parse_size(text, "--swe-image-budget")


class FlakyRegistry:
    """Pulls that fail a given number of times per image, and how many ran at once."""

    def __init__(self, failures: dict[str, int], delay: float = 0.05) -> None:
        self.failures = dict(failures)
        self.delay = delay
        self.here: set[str] = set()
        self.attempts: dict[str, int] = {}
        self.running = 0
        self.most = 0
        self.lock = threading.Lock()

    def image_exists(self, tag: str) -> bool:
        return tag in self.here

    def pull_image(self, tag: str) -> None:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
            self.attempts[tag] = self.attempts.get(tag, 0) + 1
        time.sleep(self.delay)
        with self.lock:
            self.running -= 1
            if self.failures.get(tag, 0) > 0:
                self.failures[tag] -= 1
                raise InfraError("image_missing", f"{tag}: connection reset")
            self.here.add(tag)

    def build_image(self, context: bytes, tag: str, *, network: bool = False) -> None: ...

    def import_image(self, rootfs: Path, tag: str) -> None: ...


def test_pulls_are_bounded_and_retried() -> None:
    tags = [f"r.local/x/{n}:1" for n in range(10)]
    registry = FlakyRegistry({tags[0]: 2, tags[1]: 5})
    failed = images.fetch_all(registry, tags, parallel=3, attempts=3, backoff=0)
    assert registry.most == 3  # never more than 3 at once, and the 3 were used
    assert set(failed) == {tags[1]} and "connection reset" in failed[tags[1]]
    assert registry.attempts[tags[0]] == 3 and registry.attempts[tags[1]] == 3
    assert all(registry.attempts[t] == 1 for t in tags[2:])
    assert registry.here == set(tags) - {tags[1]}


def test_retries_wait_longer_each_time() -> None:
    waits: list[float] = []
    registry = FlakyRegistry({"r.local/x:1": 9}, delay=0)
    assert images.fetch(registry, "r.local/x:1", attempts=3, backoff=1.5, sleep=waits.append)
    assert waits == [1.5, 3.0]


class Disk:
    """Local images and their sizes; removal refused for images in use."""

    def __init__(self, sizes: dict[str, int], in_use: set[str] | None = None) -> None:
        self.sizes = dict(sizes)
        self.in_use = in_use or set()

    def image_sizes(self) -> dict[str, int]:
        return dict(self.sizes)

    def tag_image(self, source: str, tag: str) -> None:
        self.sizes[tag] = self.sizes[source]

    def remove_image(self, tag: str) -> bool:
        if tag in self.in_use or tag not in self.sizes:
            return False
        del self.sizes[tag]
        return True


def test_the_budget_removes_only_images_no_remaining_item_needs() -> None:
    disk = Disk({"a:1": 10, "b:1": 10, "c:1": 10, "other:1": 100})
    needs = {"t::a1": "a:1", "t::a2": "a:1", "t::b": "b:1", "t::c": "c:1"}
    budget = images.Budget(disk, limit=25, needs=dict(needs), in_flight=1)
    assert budget.enforce() == []  # every image is still needed
    assert budget.finished("t::a1") == []  # a:1 is still needed by t::a2
    assert budget.finished("t::a2") == ["a:1"]  # 30 here, room for one more needed: 25 - 10
    assert budget.finished("t::b") == ["b:1"]
    assert "other:1" in disk.sizes  # not an image of the run: never counted, never removed
    assert budget.after == [30, 30, 20, 10]


def test_an_image_in_use_stays_until_a_later_check() -> None:
    disk = Disk({"a:1": 10, "b:1": 10}, in_use={"a:1"})
    budget = images.Budget(disk, limit=5, needs={"t::a": "a:1", "t::b": "b:1"}, in_flight=0)
    assert budget.finished("t::a") == []  # its container is still being removed
    disk.in_use.clear()
    assert sorted(budget.finished("t::b")) == ["a:1", "b:1"]


class CountingDisk(Disk):
    """A :class:`Disk` that also answers per tag, and counts how it was asked."""

    def __init__(self, sizes: dict[str, int]) -> None:
        super().__init__(sizes)
        self.listings = 0
        self.asked: list[str] = []

    def image_sizes(self) -> dict[str, int]:
        self.listings += 1
        return super().image_sizes()

    def image_exists(self, tag: str) -> bool:
        self.asked.append(tag)
        return images.local_name(tag) in self.sizes

    def pull_image(self, tag: str) -> None: ...

    def build_image(self, context: bytes, tag: str, *, network: bool = False) -> None: ...

    def import_image(self, rootfs: Path, tag: str) -> None: ...


@pytest.mark.parametrize("count", [2, images.LIST_FROM - 1, images.LIST_FROM, 3 * images.LIST_FROM])
def test_missing_images_are_found_by_asking_for_a_few_and_by_one_listing_for_many(count: int) -> None:
    """A listing costs as much as dozens of questions on an engine with hundreds of images, so a
    run of a few images asks for each; either way the answer is the same."""
    tags = [f"r.local/x/{n}" if n % 3 == 0 else f"r.local/x/{n}:1" for n in range(count)]
    here = {images.local_name(t): 1 for t in tags[::2]}
    here["unrelated:1"] = 1
    disk = CountingDisk(here)
    absent = images.missing(disk, [*tags, tags[0]])
    assert absent == tags[1::2]
    if count < images.LIST_FROM:
        assert (disk.listings, disk.asked) == (0, tags)
    else:
        assert (disk.listings, disk.asked) == (1, [])


# --- a real registry ---------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A registry of this test session on a free loopback port (the engine pulls from loopback
    registries over plain HTTP)."""
    binary = shutil.which("docker-registry")
    if binary is None:
        unavailable(
            "the image tests need docker-registry (apt-get install docker-registry; .ci/install-images.sh)"
        )
    root = tmp_path_factory.mktemp("registry")
    port = _free_port()
    config = root / "config.yml"
    config.write_text(
        f"version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: {root / 'data'}\n  delete:\n    enabled: true\n"
        f"http:\n  addr: 127.0.0.1:{port}\n"
    )
    log = (root / "registry.log").open("w")
    process = subprocess.Popen([binary, "serve", str(config)], stdout=log, stderr=log)
    address = f"127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://{address}/v2/", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail(f"the registry did not start: {(root / 'registry.log').read_text()[-2000:]}")
        yield address
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


@pytest.fixture
def unique() -> str:
    return f"pytest-swe-imgtest-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def own_tags(docker_engine: Any) -> Iterator[list[str]]:
    """Tags this test made: removed at the end whatever happened (never anyone else's)."""
    tags: list[str] = []
    yield tags
    for tag in tags:
        with contextlib.suppress(Exception):  # already gone (pruned by the test itself)
            docker_engine.images.remove(tag, noprune=False)


def _publish(engine: Any, source: str, name: str, own: list[str]) -> None:
    """Copy ``source`` into the registry as ``name``, and leave no local tag of it."""
    engine.api.tag(source, *name.rsplit(":", 1))
    own.append(name)
    for line in engine.api.push(*name.rsplit(":", 1), stream=True, decode=True):
        assert "error" not in line, line
    engine.images.remove(name)


def _local(engine: Any, prefix: str) -> dict[str, int]:
    return {
        tag: int(info["Size"])
        for info in engine.api.images()
        for tag in info.get("RepoTags") or []
        if tag.startswith(prefix)
    }


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_swe.tools.cli", "images", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _benchmark(project: SweProject, name: str, rows: list[dict[str, Any]], extra: str = "") -> Path:
    dataset = write_jsonl(project.path / f"{name}.jsonl", rows)
    return project.local(name, "swe-bench", dataset, extra)


def test_check_pull_and_prune_a_selection_through_a_mirror(
    swe_project: SweProject,
    demo_images: list[str],
    docker_engine: Any,
    registry: str,
    unique: str,
    own_tags: list[str],
) -> None:
    rows = read_jsonl(DEMO_JSONL)[:3]
    upstream = f"upstream.invalid/{unique}"  # an address that does not exist: only the mirror has it
    published = []
    for n, row in enumerate(rows):
        _publish(docker_engine, row["image"], f"{registry}/{unique}/i{n}:1", own_tags)
        published.append(f"{upstream}/i{n}:1")
        row["image"] = published[-1]
    own_tags += published
    mirror = f"images: {{mirrors: {{{upstream}: {registry}/{unique}}}}}\n"
    _benchmark(swe_project, "mirrored", rows, mirror)

    check = _cli("check", "benchmarks/mirrored.yaml", cwd=swe_project.path)
    assert check.returncode == 1, check.stdout + check.stderr
    assert "3 image(s) for 3 item(s): 3 missing" in check.stdout
    assert all(f"missing {tag}" in check.stdout for tag in published)

    pull = _cli("pull", "benchmarks/mirrored.yaml", "-k", "not calc", cwd=swe_project.path)
    assert pull.returncode == 0, pull.stdout + pull.stderr
    here = _local(docker_engine, upstream)
    selected = [t for t, r in zip(published, rows, strict=True) if "calc" not in r["instance_id"]]
    assert sorted(here) == sorted(selected)  # under their own names, the mirror's names gone
    assert not _local(docker_engine, f"{registry}/{unique}")

    assert _cli("check", "benchmarks/mirrored.yaml", "-k", "not calc", cwd=swe_project.path).returncode == 0
    keep = rows[1]["instance_id"]
    prune = _cli("prune", "benchmarks/mirrored.yaml", "-k", keep, cwd=swe_project.path)
    assert prune.returncode == 0, prune.stdout + prune.stderr
    assert sorted(_local(docker_engine, upstream)) == [rows[1]["image"]]
    assert "removed 1 image(s)" in prune.stdout


@pytest.mark.parametrize(
    ("workers", "images_in_budget"),
    [(0, 2.5), (2, 3.5)],  # a worker may start its next pull before the controller saw its last item end
)
def test_a_run_holds_the_image_budget_and_every_item_runs(
    workers: int,
    images_in_budget: float,
    swe_project: SweProject,
    demo_images: list[str],
    docker_engine: Any,
    registry: str,
    unique: str,
    own_tags: list[str],
) -> None:
    rows = read_jsonl(DEMO_JSONL)[:6]
    size = int(docker_engine.api.inspect_image(rows[0]["image"])["Size"])
    prefix = f"{registry}/{unique}"
    for part in range(3):  # three benchmarks of two items each, every item its own image
        mine = []
        for row in rows[2 * part : 2 * part + 2]:
            name = f"{prefix}/b{part}-{row['instance_id'].replace('_', '-')}:1"
            _publish(docker_engine, row["image"], name, own_tags)
            mine.append(dict(row, image=name))
        _benchmark(swe_project, f"budget{part}", mine, "markers: [budget]\n")
    budget = int(images_in_budget * size)  # all six images together take 6 * size

    seen: list[int] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            seen.append(sum(_local(docker_engine, prefix).values()))
            time.sleep(0.1)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        xdist = ("-n", str(workers)) if workers else ()
        run = swe_project.run("benchmarks/", *xdist, "-p", "no:randomly", f"--swe-image-budget={budget}")
    finally:
        stop.set()
        watcher.join()
    assert sorted(run.outcomes().values()) == ["passed"] * 6, run.result.stdout.str()[-3000:]
    assert max(seen) <= budget, (max(seen) / size, budget / size)
    assert max(seen) >= size  # the images were really pulled as the items went
    out = run.result.stdout.str()
    assert "pytest-swe images: budget" in out and "image(s) removed as the run went" in out, out[-2000:]
    assert len(_local(docker_engine, prefix)) <= int(images_in_budget)


def test_a_run_pulls_missing_images_first_and_names_the_ones_it_cannot(
    swe_project: SweProject,
    demo_images: list[str],
    docker_engine: Any,
    registry: str,
    unique: str,
    own_tags: list[str],
) -> None:
    row = read_jsonl(DEMO_JSONL)[0]
    upstream = f"upstream.invalid/{unique}"
    _publish(docker_engine, row["image"], f"{registry}/{unique}/only:1", own_tags)
    own_tags.append(f"{upstream}/only:1")
    mirror = f"images: {{mirrors: {{{upstream}: {registry}/{unique}}}}}\n"
    _benchmark(swe_project, "viamirror", [dict(row, image=f"{upstream}/only:1")], mirror)
    run = swe_project.run("benchmarks/")
    assert run.outcomes() == {row["instance_id"]: "passed"}
    assert f"{upstream}/only:1" in _local(docker_engine, upstream)

    gone = [
        dict(row, instance_id=f"{row['instance_id']}-{n}", image=f"{registry}/{unique}/absent{n}:1")
        for n in range(3)
    ]
    _benchmark(swe_project, "viamirror", gone, mirror)
    run = swe_project.run("benchmarks/")
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR and not run.cases
    err = run.result.stderr.str()
    assert err.count("3 image(s) of benchmark viamirror are not here and could not be pulled") == 1, err
    assert all(f"{registry}/{unique}/absent{n}:1" in err for n in range(3))


def test_building_keeps_its_command_with_or_without_the_word_build(demo_images: list[str]) -> None:
    repo = Path(__file__).resolve().parents[1]
    for args in (("benchmarks/demo.yaml",), ("build", "benchmarks/demo.yaml")):
        done = _cli(*args, cwd=repo)
        assert done.returncode == 0, done.stderr
        assert "demo: 0 image(s) built, 8 row(s)" in done.stdout, done.stdout
