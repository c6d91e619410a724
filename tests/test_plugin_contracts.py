"""The plugin contracts, end to end on a tiny fake family and provider (no Docker): provider
capabilities a family needs, the reward hook's order, and plugin discovery through the
``pytest_swe`` entry-point group for pytest and the ``pytest-swe`` command alike."""

from __future__ import annotations

import importlib.metadata
import pkgutil
import sys
import textwrap
from pathlib import Path

import pluggy
import pytest

from pytest_swe.api import hookspecs
from pytest_swe.api.errors import ConfigError
from pytest_swe.runner.registry import ENTRY_POINT_GROUP
from pytest_swe.runner.registry import KINDS
from pytest_swe.runner.registry import NAMES_GROUP
from pytest_swe.runner.registry import Catalog
from pytest_swe.runner.registry import Registry
from pytest_swe.runner.registry import plugin_manager_for_tools
from pytest_swe.runner.registry import register_plugins
from pytest_swe.tools import report

REPO = Path(__file__).resolve().parents[1]

FAKE_PLUGIN = '''
import pytest

from pytest_swe.api.family import BaseFamily
from pytest_swe.api.sandbox import CleanupResult
from pytest_swe.api.sandbox import ExecResult
from pytest_swe.api.task import Task
from pytest_swe.api.verdict import Verdict


class FakeFamily(BaseFamily):
    """Resolved iff the patch is not empty."""

    name = "fake"
    grader_version = "fake-1"

    def normalize(self, row, settings):
        return Task(family=self.name, instance_id=row["instance_id"], image="fake:latest", gold_patch=row["patch"])

    def evaluate(self, task, patch, sandbox, ctx):
        resolved = bool(patch.strip())
        return Verdict(resolved=resolved, resolution="RESOLVED_FULL" if resolved else "RESOLVED_NO",
                       patch_exists=resolved, reasons=[] if resolved else ["empty patch"])


class GpuFamily(FakeFamily):
    name = "fake-gpu"
    needs = frozenset({"gpu"})


class FakeSandbox:
    def __init__(self, spec):
        self.id, self.spec = "fake-1", spec

    def exec(self, command, *, timeout, workdir=None, env=None, user=None, output_limit=None):
        return ExecResult(0, "")

    def write_file(self, path, data, *, mode=0o644):
        pass

    def read_file(self, path):
        return b""

    def end_processes(self):
        pass

    def alive(self):
        return True

    def enter_command(self):
        return "true"

    def close(self):
        return CleanupResult(removed=True)


class FakeProvider:
    name = "fake"
    capabilities = frozenset({"exec", "files"})

    def __init__(self, options, run):
        self.options, self.run = options, run

    def create(self, spec):
        return FakeSandbox(spec)

    def reap(self, *, run_id=None, worker=None, orphans=False):
        return []

    def close(self):
        pass


@pytest.hookimpl
def pytest_swe_families():
    return [FakeFamily(), GpuFamily()]


@pytest.hookimpl
def pytest_swe_providers():
    return [FakeProvider]
'''

ROWS = '{"instance_id": "fixed", "patch": "diff --git a/x b/x\\n"}\n{"instance_id": "unfixed", "patch": ""}\n'


def _project(pytester: pytest.Pytester, family: str = "fake") -> None:
    pytester.makepyfile(fakeswe=FAKE_PLUGIN)
    pytester.syspathinsert()
    (pytester.path / "rows.jsonl").write_text(ROWS)
    (pytester.path / "benchmarks").mkdir()
    (pytester.path / "benchmarks" / "bench.yaml").write_text(
        textwrap.dedent(
            f"""\
            name: bench
            family: {family}
            dataset: {{source: {pytester.path / "rows.jsonl"}, split: test}}
            agent: gold
            provider: fake
            """
        )
    )


def _run(pytester: pytest.Pytester, *args: str) -> dict[str, report.Case]:
    junit = pytester.path / "junit.xml"
    result = pytester.runpytest_inprocess(
        "benchmarks",
        f"--junitxml={junit}",
        f"--swe-run-dir={pytester.path / 'run'}",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:hypothesispytest",
        *args,
    )
    assert result.ret in (0, 1), result.stdout.str()
    return {case.instance_id: case for case in report.read_cases(junit)}


def test_fake_provider_runs_a_family_whose_needs_it_meets(pytester: pytest.Pytester) -> None:
    _project(pytester)
    pytester.makeconftest("pytest_plugins = ['fakeswe']")
    cases = _run(pytester)
    assert {i: c.outcome for i, c in cases.items()} == {"fixed": "passed", "unfixed": "failed"}
    assert cases["fixed"].properties["reward"] == "1.0" and cases["unfixed"].properties["reward"] == "0.0"
    assert cases["fixed"].properties["provider"] == "fake"
    assert cases["fixed"].properties["grader_version"] == "fake-1"


def test_item_is_skipped_when_its_provider_lacks_a_capability_the_family_needs(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, family="fake-gpu")
    pytester.makeconftest("pytest_plugins = ['fakeswe']")
    cases = _run(pytester)
    assert {i: c.outcome for i, c in cases.items()} == {"fixed": "skipped", "unfixed": "skipped"}
    message = cases["fixed"].message
    assert "needs provider capability gpu" in message and "'fake'" in message, message
    assert "exec, files" in message  # what the provider does have
    assert cases["fixed"].properties["masked"] == "true" and cases["fixed"].properties["reward"] == "0.0"


REWARD_PLUGIN = """
import pytest


@pytest.hookimpl
def pytest_swe_reward(item, task, verdict):
    return 0.25 if verdict.resolved else 0.5
"""


@pytest.mark.parametrize("where", ["conftest", "early"])
def test_a_plugins_reward_beats_the_default(pytester: pytest.Pytester, where: str) -> None:
    """The default reward is ``trylast``: a plugin's reward wins even when the plugin was
    registered before pytest-swe's own (``-p`` loads it before any entry point)."""
    _project(pytester)
    if where == "conftest":
        pytester.makeconftest("pytest_plugins = ['fakeswe']\n" + REWARD_PLUGIN)
        cases = _run(pytester)
    else:
        pytester.makepyfile(rewardplugin=REWARD_PLUGIN)
        cases = _run(pytester, "-p", "rewardplugin", "-p", "fakeswe")
    assert cases["fixed"].properties["reward"] == "0.25"
    assert cases["unfixed"].properties["reward"] == "0.5"
    assert cases["fixed"].outcome == "passed" and cases["unfixed"].outcome == "failed"  # the outcome stays


def _builtin_plugin_modules() -> set[str]:
    """Every built-in module that implements a pytest-swe hook."""
    import importlib

    found = set()
    for package in ("pytest_swe.families", "pytest_swe.providers", "pytest_swe.agents"):
        for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
            module = importlib.import_module(f"{package}.{info.name}")
            if any(
                callable(getattr(module, hook, None))
                for hook in ("pytest_swe_families", "pytest_swe_providers", "pytest_swe_agents")
            ):
                found.add(module.__name__)
    return found


def test_every_builtin_plugin_module_is_declared_in_the_entry_point_group() -> None:
    declared = {ep.value for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}
    pyproject = (REPO / "pyproject.toml").read_text()
    builtins = _builtin_plugin_modules()
    assert builtins, "no built-in plugin module found"
    for module in builtins:
        assert f'"{module}" = "{module}"' in pyproject, (
            f"{module}: add it to [project.entry-points.pytest_swe]"
        )
        assert module in declared, (
            f"{module}: reinstall the package (pip install -e .) to refresh its entry points"
        )


def test_the_command_sees_the_plugins_pytest_sees() -> None:
    registry = Registry(plugin_manager_for_tools())
    assert {"swe-bench", "swe-rebench", "multi-swe-bench"} <= set(registry.families)
    assert "docker" in registry.providers
    assert {"gold", "empty", "predictions"} <= set(registry.agents)


def _third_party(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str, body: str, names: tuple[str, ...] = ()
) -> None:
    """An installed third-party distribution whose ``pytest_swe`` entry point is ``module``;
    ``names`` (``"agent:mine"``) declared in the names group."""
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(body))
    dist = tmp_path / f"{module}-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
    declared = "".join(f"{name} = {module}\n" for name in names)
    (dist / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\n{module} = {module}\n" + (f"[{NAMES_GROUP}]\n{declared}" if names else "")
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(sys.modules, module, None)  # restored (absent) after the test
    del sys.modules[module]


def test_a_third_party_entry_point_adds_and_replaces_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _third_party(
        tmp_path,
        monkeypatch,
        "thirdagents",
        """\
        import pytest


        class Gold:
            name = "gold"
            needs_sandbox = False


        class Mine:
            name = "mine"
            needs_sandbox = False


        @pytest.hookimpl
        def pytest_swe_agents():
            return [Gold, Mine]
        """,
    )
    registry = Registry(plugin_manager_for_tools())
    assert "mine" in registry.agents
    assert registry.agents.get("gold").__module__ == "thirdagents"  # registered after the built-ins: it wins


def test_a_family_missing_protocol_members_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _third_party(
        tmp_path,
        monkeypatch,
        "thirdfamily",
        """\
        import pytest


        class Bare:
            name = "bare"

            def normalize(self, row, settings):
                return None

            def evaluate(self, task, patch, sandbox, ctx):
                return None


        @pytest.hookimpl
        def pytest_swe_families():
            return [Bare()]
        """,
    )
    with pytest.raises(
        ConfigError, match="lacks grader_version, id_fields, needs, prepare_agent_sandbox, providers, row_id"
    ):
        Registry(plugin_manager_for_tools())


def test_catalog_names_the_known_entries() -> None:
    class Named:
        def __init__(self, name: str) -> None:
            self.name = name

    catalog = Catalog("agent", [Named("gold"), Named("empty")])
    with pytest.raises(
        ConfigError, match=r"unknown agent 'golden' \(known: empty, gold\); did you mean gold"
    ):
        catalog.get("golden")


# -- names declared ahead of the import -------------------------------------------------------------


def _declared() -> dict[str, dict[str, set[str]]]:
    """pytest-swe's own ``pytest_swe.names`` declarations: module -> hook kind -> names."""
    declared: dict[str, dict[str, set[str]]] = {}
    for ep in importlib.metadata.entry_points(group=NAMES_GROUP):
        kind, _, name = ep.name.partition(":")
        declared.setdefault(ep.value, {}).setdefault(KINDS[kind], set()).add(name)
    return declared


def test_every_builtin_declares_exactly_the_names_it_returns() -> None:
    """A run imports a built-in only for a name it declares: a name returned but not declared
    would be unknown until some other name loaded the module, one declared but not returned an
    import for nothing. And a deferred module is never registered with pytest, so it may
    implement no hook but the catalog's."""
    declared = _declared()
    assert set(declared) == _builtin_plugin_modules()
    for module_name, kinds in declared.items():
        module = importlib.import_module(module_name)
        returned = {
            kind: {entry.name for entry in getattr(module, f"pytest_swe_{kind}")()}
            for kind in KINDS.values()
            if hasattr(module, f"pytest_swe_{kind}")
        }
        assert returned == kinds, module_name
        hooks = {name for name in vars(module) if name.startswith("pytest_")}
        assert hooks <= {f"pytest_swe_{kind}" for kind in KINDS.values()}, (module_name, hooks)


def test_a_declared_plugin_is_imported_only_for_its_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _third_party(
        tmp_path,
        monkeypatch,
        "lazyagents",
        """\
        import pytest

        IMPORTS = []
        IMPORTS.append(1)


        class Lazy:
            name = "lazy"
            needs_sandbox = False


        class Sleepy:
            name = "sleepy"
            needs_sandbox = False


        @pytest.hookimpl
        def pytest_swe_agents():
            return [Lazy, Sleepy]
        """,
        names=("agent:lazy", "agent:sleepy"),
    )
    registry = Registry(plugin_manager_for_tools())
    assert "lazyagents" not in sys.modules
    assert {"lazy", "sleepy", "gold"} <= set(registry.agents) and "lazy" in registry.agents
    with pytest.raises(ConfigError, match=r"unknown agent 'lazi'.*did you mean lazy"):
        registry.agents.get("lazi")
    assert "lazyagents" not in sys.modules  # naming the known ones imported nothing
    assert registry.agents.get("lazy").__module__ == "lazyagents"
    assert registry.agents.get("sleepy").__module__ == "lazyagents"
    assert sys.modules["lazyagents"].IMPORTS == [1]
    for name in ("swe-rebench", "swe-rebench-v2", "multi-swe-bench", "docker", "mini-swe-agent"):
        assert name in registry.families or name in registry.providers or name in registry.agents


def test_a_blocked_declared_plugin_provides_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _third_party(
        tmp_path,
        monkeypatch,
        "blockedagents",
        """\
        import pytest


        class Blocked:
            name = "blocked"
            needs_sandbox = False


        @pytest.hookimpl
        def pytest_swe_agents():
            return [Blocked]
        """,
        names=("agent:blocked",),
    )
    pm = pluggy.PluginManager("pytest")
    pm.add_hookspecs(hookspecs)
    pm.set_blocked("blockedagents")
    pm.set_blocked("pytest_swe.agents.mini")
    register_plugins(pm)
    registry = Registry(pm)
    assert "blocked" not in registry.agents and "mini-swe-agent" not in registry.agents
    assert "gold" in registry.agents
    assert "blockedagents" not in sys.modules


def test_an_undeclared_third_party_name_still_replaces_a_declared_builtin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A third-party plugin imported at start-up that returns a built-in's name wins it, though
    the built-in declared the name and was never imported."""
    _third_party(
        tmp_path,
        monkeypatch,
        "thirdprovider",
        """\
        import pytest


        class Podman:
            name = "podman"


        @pytest.hookimpl
        def pytest_swe_providers():
            return [Podman]
        """,
    )
    monkeypatch.delitem(sys.modules, "pytest_swe.providers.podman", raising=False)
    registry = Registry(plugin_manager_for_tools())
    assert registry.providers.get("podman").__module__ == "thirdprovider"
    assert "pytest_swe.providers.podman" not in sys.modules


def test_a_declared_plugin_that_cannot_be_imported_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _third_party(
        tmp_path, monkeypatch, "brokenagents", "import no_such_module_zzz\n", names=("agent:broken",)
    )
    registry = Registry(plugin_manager_for_tools())
    assert "broken" in registry.agents and registry.agents.get("gold").name == "gold"
    for _ in range(2):  # asked again (a fixture after collection): the same error, not "unknown agent"
        with pytest.raises(
            ConfigError, match=r"cannot import plugin 'brokenagents' \(it declares agents broken\): "
        ):
            registry.agents.get("broken")
