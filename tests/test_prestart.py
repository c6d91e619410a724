"""The next item's eval sandbox started ahead: claimed only by its item with the same spec,
removed otherwise, and none left starting or unclaimed when the run ends."""

from __future__ import annotations

import threading

from pytest_swe.api.sandbox import CleanupResult
from pytest_swe.api.sandbox import SandboxSpec
from pytest_swe.runner.prestart import Prestarts


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
