"""Image building is provider-neutral: the core prepares every build context, and the CLI reaches
a provider only through the plugins' registry."""

from __future__ import annotations

import io
import sys
import tarfile
import types
from pathlib import Path
from typing import Any

import pytest

from pytest_swe.api.errors import InfraError
from pytest_swe.api.sandbox import ImageBuilder
from pytest_swe.tools import cli
from pytest_swe.tools import images

REPO = Path(__file__).resolve().parents[1]


class RecordingBuilder:
    """An ImageBuilder that keeps what it was asked to build."""

    def __init__(self, present: set[str] = frozenset(), pull_fails: bool = False) -> None:
        self.present = set(present)
        self.pull_fails = pull_fails
        self.built: dict[str, tuple[dict[str, bytes], bool]] = {}

    def image_exists(self, tag: str) -> bool:
        return tag in self.present

    def pull_image(self, tag: str) -> None:
        if self.pull_fails:
            raise InfraError("image_missing", f"{tag}: no registry")
        self.present.add(tag)

    def build_image(self, context: bytes, tag: str, *, network: bool = False) -> None:
        with tarfile.open(fileobj=io.BytesIO(context)) as tar:
            files = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}  # type: ignore[union-attr]
        self.built[tag] = (files, network)
        self.present.add(tag)

    def import_image(self, rootfs: Path, tag: str) -> None:
        raise AssertionError("not expected here")


def test_the_base_image_is_built_from_a_dockerfile_context_with_the_network() -> None:
    builder = RecordingBuilder()
    assert isinstance(builder, ImageBuilder)
    assert images.build_base(builder, "base:test", log=lambda _: None)
    files, network = builder.built["base:test"]
    assert network  # apt-get needs it
    assert list(files) == ["Dockerfile"]
    assert files["Dockerfile"].decode().startswith(f"FROM {images.REGISTRY_BASE}\n")
    assert not images.build_base(builder, "base:test", log=lambda _: None)  # present: nothing built
    assert list(builder.built) == ["base:test"]


def test_a_benchmarks_images_come_from_committed_trees_without_network() -> None:
    settings, family, rows = cli._load_benchmark(str(REPO / "benchmarks" / "demo.yaml"))
    tags = sorted({family.normalize(row, settings).image for row in rows})
    first = tags[0]
    builder = RecordingBuilder(present={first})
    built = images.build_benchmark_images(builder, settings, family, rows, log=lambda _: None)
    assert sorted(built) == tags[1:]  # the present one is left alone
    for tag in built:
        files, network = builder.built[tag]
        assert not network
        dockerfile = files["Dockerfile"].decode()
        assert dockerfile.startswith(f"FROM {settings.build.base or images.BASE_IMAGE}\nCOPY testbed ")
        assert any(name.startswith("testbed/.git/") for name in files)


@pytest.fixture
def fake_provider(monkeypatch: pytest.MonkeyPatch) -> type:
    """A provider plugin named ``fake`` that cannot build images, found as the CLI finds providers."""

    class FakeProvider:
        name = "fake"
        capabilities = frozenset()
        made: list[dict[str, Any]] = []

        def __init__(self, options: dict[str, Any], run: Any) -> None:
            FakeProvider.made.append(dict(options))

        def reap(self, **kwargs: Any) -> list[str]:
            return ["0123456789ab"] if kwargs.get("orphans") else []

    module = types.ModuleType("pytest_swe.providers.fake")
    module.pytest_swe_providers = pytest.hookimpl(lambda: [FakeProvider])  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    from pytest_swe.runner import registry

    monkeypatch.setattr(registry, "register_plugins", lambda pm: pm.register(module, module.__name__))
    return FakeProvider


def test_reap_and_images_resolve_the_provider_by_name(
    fake_provider: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["reap", "--provider", "fake", "--host", "h"]) == 0
    assert "removed 1 sandbox(es): 0123456789ab" in capsys.readouterr().out
    assert fake_provider.made == [{"name": "fake", "host": "h"}]
    assert cli.main(["images", "--provider", "fake"]) == 2
    assert "provider 'fake' cannot build images" in capsys.readouterr().err
    assert cli.main(["reap", "--provider", "nosuch"]) == 2
    assert "unknown provider 'nosuch' (known: fake)" in capsys.readouterr().err
