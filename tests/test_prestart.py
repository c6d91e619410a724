"""The next item's eval sandbox started ahead: claimed only by its item with the same spec,
removed otherwise, and none left starting or unclaimed when the run ends."""

from __future__ import annotations

import json
import threading

import pytest

from pytest_swe.api.sandbox import CleanupResult
from pytest_swe.api.sandbox import SandboxSpec
from pytest_swe.runner.prestart import Prestarts

from conftest import SweProject


class FakeSandbox:
    def __init__(self, spec: SandboxSpec) -> None:
        self.spec = spec
        self.closed = threading.Event()

    def close(self) -> CleanupResult:
        self.closed.set()
        return CleanupResult(True)


def spec(image: str = "img", **kw: object) -> SandboxSpec:
    return SandboxSpec(image=image, workdir="/testbed", labels={"pytest-swe.instance": image}, **kw)  # type: ignore[arg-type]


def test_the_item_claims_its_sandbox_with_the_same_spec() -> None:
    made = FakeSandbox(spec())
    store = Prestarts()
    store.offer("b.yaml::x", spec(start_timeout=300), lambda s: made)
    claimed = store.claim("b.yaml::x", spec(start_timeout=12))  # the deadline's cap is no difference
    assert claimed is made and not made.closed.is_set()
    assert store.claim("b.yaml::x", spec()) is None  # once only


def test_another_spec_or_another_item_gets_none_and_the_sandbox_goes() -> None:
    store = Prestarts()
    first = FakeSandbox(spec())
    second = FakeSandbox(spec("other"))
    store.offer("b.yaml::x", spec(), lambda s: first)
    assert store.claim("b.yaml::x", spec(memory="2g")) is None
    assert first.closed.wait(5)
    store.offer("b.yaml::y", spec("other"), lambda s: second)
    assert store.claim("b.yaml::z", spec("z")) is None  # y was skipped: its sandbox is not left
    assert second.closed.wait(5)


def test_a_failed_start_falls_back_to_the_item() -> None:
    store = Prestarts()

    def broken(_: SandboxSpec) -> FakeSandbox:
        raise OSError("engine busy")

    store.offer("b.yaml::x", spec(), broken)
    assert store.claim("b.yaml::x", spec()) is None


def test_close_removes_what_is_unclaimed_and_offers_nothing_more() -> None:
    store = Prestarts()
    gate = threading.Event()
    slow = FakeSandbox(spec())

    def starting(_: SandboxSpec) -> FakeSandbox:
        gate.wait(5)
        return slow

    store.offer("b.yaml::x", spec(), starting)
    threading.Timer(0.2, gate.set).start()
    store.close()  # waits for the start under way, then removes it
    assert slow.closed.is_set()
    store.offer("b.yaml::y", spec(), lambda s: FakeSandbox(s))
    assert store.claim("b.yaml::y", spec()) is None


_EVENTS_PLUGIN = """
import json, os, threading, time
from pytest_swe.providers.docker.provider import DockerProvider
from pytest_swe.providers.docker.sandbox import DockerSandbox

_lock = threading.Lock()

def _log(kind, what, start, command=""):
    with _lock, open(os.environ["EVENTS"], "a") as f:
        f.write(json.dumps([kind, what, start, time.monotonic(), "patch.diff" if "patch.diff" in command else ""]) + "\\n")

_create, _exec = DockerProvider.create, DockerSandbox.exec

def create(self, spec):
    start = time.monotonic()
    try:
        return _create(self, spec)
    finally:
        _log("create", spec.image, start)

def exec_(self, command, **kw):
    start = time.monotonic()
    try:
        return _exec(self, command, **kw)
    finally:
        # The eval command runs the eval script (after the lines that write its files, if any, and
        # before the checks after the tests).
        what = "eval" if "/bin/bash /eval.sh" in command else "apply" if "patch.diff" in command else "other"
        _log(what, self.spec.image, start, command)

DockerProvider.create, DockerSandbox.exec = create, exec_
"""


def test_the_next_sandbox_starts_beside_the_eval_command_and_is_claimed(
    swe_project: SweProject, demo_images: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The next item's sandbox starts once this item's eval command does (the patch's apply is its
    first step), not before, while the command runs; and each next item claims it."""
    swe_project.demo()
    events = swe_project.path / "events.jsonl"
    (swe_project.path / "swe_events.py").write_text(_EVENTS_PLUGIN)
    monkeypatch.setenv("EVENTS", str(events))
    monkeypatch.setenv("PYTHONPATH", str(swe_project.path))
    run = swe_project.run(
        "benchmarks/",
        "-k",
        "calc or confkit or envfile",
        "--swe-agent",
        "gold",
        "-p",
        "swe_events",
        subprocess=True,
    )
    run.result.assert_outcomes(passed=3)
    log = [json.loads(line) for line in events.read_text().splitlines()]
    creates = [e for e in log if e[0] == "create"]
    evals = [e for e in log if e[0] == "eval"]
    assert len(creates) == len(evals) == 3  # every next item claimed its sandbox
    assert all("patch.diff" in e[4] for e in evals)  # the apply in the eval command
    for before in range(2):
        ahead = next(e for e in creates if e[1] == evals[before + 1][1])
        # Not before item N's eval command: it is started right as the command is sent.
        assert ahead[2] >= evals[before][2] - 0.1, (ahead, evals[before])
        assert ahead[2] < evals[before][3], (ahead, evals[before])  # beside it
