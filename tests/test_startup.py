"""What the plugin costs a pytest run that has no benchmark in it.

Installed, pytest-swe loads in every pytest run of its environment: a project's own test runs,
each xdist worker, ``pytest --version``. Such a run must not import the families, providers and
agents, nor pydantic, OmegaConf or the Docker SDK; a run with benchmarks loads them when it first
needs them, and registers their markers then.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from conftest import SweProject

HEAVY = ("pydantic", "omegaconf", "docker", "yaml", "requests", "tenacity", "filelock", "psutil", "pyarrow")
LOADED_LATER = ("pytest_swe.families", "pytest_swe.providers", "pytest_swe.agents", "pytest_swe.grading")

_MODULES_PROBE = (
    "import json, sys\n"
    "def pytest_unconfigure(config):\n"
    "    who = getattr(config, 'workerinput', {}).get('workerid', 'controller')\n"
    "    with open(f'modules-{who}.json', 'w') as f:\n"
    "        json.dump(sorted(sys.modules), f)\n"
)


def _fresh_python(
    swe_project: SweProject, *argv: str, codes: tuple[int, ...] = (0,), env: dict[str, str] | None = None
) -> None:
    """Run ``python ARGV`` in the project, in a fresh interpreter as a user starts pytest; its exit
    status must be one of ``codes``."""
    done = subprocess.run(
        [sys.executable, *argv], cwd=swe_project.path, capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode in codes, done.stdout + done.stderr


def _modules_after(swe_project: SweProject, *args: str) -> dict[str, list[str]]:
    """Run pytest in a fresh interpreter: the modules each process (controller, workers) had
    imported when its session ended."""
    (swe_project.path / "conftest.py").write_text(_MODULES_PROBE)
    _fresh_python(swe_project, "-m", "pytest", *args, "-q", "-p", "no:cacheprovider")
    found = {}
    for path in swe_project.path.glob("modules-*.json"):
        found[path.stem.removeprefix("modules-")] = json.loads(path.read_text())
        path.unlink()
    return found


def _loaded(modules: list[str]) -> list[str]:
    return [
        m
        for m in modules
        if m.split(".")[0] in HEAVY or any(m == p or m.startswith(p + ".") for p in LOADED_LATER)
    ]


def test_a_run_without_benchmarks_loads_no_family_provider_agent_or_their_libraries(
    swe_project: SweProject,
) -> None:
    (swe_project.path / "test_plain.py").write_text("def test_plain():\n    pass\n")
    for args in (("test_plain.py",), ("test_plain.py", "-n", "1")):
        processes = _modules_after(swe_project, *args)
        assert "controller" in processes and (len(processes) == 2) == ("-n" in args), processes.keys()
        for who, modules in processes.items():
            assert "pytest_swe.runner.plugin" in modules  # the plugin did load
            assert _loaded(modules) == [], f"{who} with {args}: {_loaded(modules)}"


def _requirements(dist: str, seen: set[str]) -> None:
    """``dist`` and what it requires (no extras), recursively, by normalized name."""
    from importlib import metadata

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    name = canonicalize_name(dist)
    if name in seen:
        return
    seen.add(name)
    for line in metadata.requires(name) or []:
        requirement = Requirement(line)
        if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
            _requirements(requirement.name, seen)


def test_what_pytest_swe_installs_adds_no_pytest_plugin_but_xdist() -> None:
    """Every pytest run in the user's environment loads every installed plugin: a dependency that
    brings one (as an asyncio HTTP client's anyio does, 60-70 ms a run here) taxes each run and
    each xdist worker, benchmark or not. platformdirs' plugin only defines a fixture (about 4 ms,
    its package's import)."""
    from importlib import metadata

    from packaging.utils import canonicalize_name

    installed: set[str] = set()
    _requirements("pytest-swe", installed)
    assert {"pytest", "pydantic", "requests"} <= installed
    plugins = {
        canonicalize_name(ep.dist.name)
        for ep in metadata.entry_points(group="pytest11")
        if ep.dist is not None and canonicalize_name(ep.dist.name) in installed
    }
    assert plugins <= {"pytest-swe", "pytest-xdist", "platformdirs"}
    assert {"pytest-swe", "pytest-xdist"} <= plugins


def test_a_run_without_benchmarks_looks_up_the_version_only_for_a_junit_file(swe_project: SweProject) -> None:
    """The version is read from the package's metadata for the ledger and the JUnit file's run
    properties; a project's own test run with neither does not pay for the lookup."""
    (swe_project.path / "test_plain.py").write_text("def test_plain():\n    pass\n")
    (swe_project.path / "conftest.py").write_text(
        "import sys\n"
        "def pytest_unconfigure(config):\n"
        "    looked_up = '__version__' in vars(sys.modules['pytest_swe'])\n"
        "    open('looked-up', 'w').write(str(looked_up))\n"
    )
    for extra, expected in (((), "False"), (("--junitxml=out.xml",), "True")):
        _fresh_python(swe_project, "-m", "pytest", "test_plain.py", *extra, "-q", "-p", "no:cacheprovider")
        assert (swe_project.path / "looked-up").read_text() == expected, extra


def test_a_benchmark_run_loads_the_plugins_and_registers_their_markers(swe_project: SweProject) -> None:
    """Collecting a benchmark loads the family, provider and agent plugins; their markers are
    then registered, so ``--strict-markers`` accepts them, and ``pytest --markers`` lists them
    without collecting."""
    swe_project.demo()
    processes = _modules_after(
        swe_project, "benchmarks/", "--collect-only", "--strict-markers", "-m", "swe_bench"
    )
    assert "pytest_swe.families.swebench" in processes["controller"]
    listed = swe_project.run("--markers").result.stdout.str()
    assert "@pytest.mark.swe_bench:" in listed and "@pytest.mark.docker:" in listed, listed[-2000:]


def test_a_benchmark_run_imports_only_the_family_provider_and_agent_it_names(swe_project: SweProject) -> None:
    """The others are known by the names they declare: their markers are registered and a
    misspelt name is still told which exist, but their modules are not imported."""
    swe_project.demo()
    processes = _modules_after(
        swe_project, "benchmarks/", "--collect-only", "--strict-markers", "-m", "swe_bench or multi_swe_bench"
    )
    plugins = {
        m
        for m in processes["controller"]
        if m.count(".") == 2
        and m.startswith(("pytest_swe.families.", "pytest_swe.providers.", "pytest_swe.agents."))
    }
    used = {"pytest_swe.families.swebench", "pytest_swe.providers.docker", "pytest_swe.agents.gold"}
    others = {"pytest_swe.families.multiswe", "pytest_swe.families.rebench", "pytest_swe.providers.podman"}
    assert used <= plugins and not plugins & others, sorted(plugins)
    listed = swe_project.run("--markers").result.stdout.str()
    assert "@pytest.mark.multi_swe_bench:" in listed and "@pytest.mark.kubernetes:" in listed, listed[-2000:]


def test_strict_markers_accept_family_and_provider_markers_in_a_test_module(swe_project: SweProject) -> None:
    """A test module may name a family's or provider's marker before any benchmark is collected:
    under strict markers the plugins are loaded at start-up, so the name is known."""
    (swe_project.path / "test_marked.py").write_text(
        "import pytest\n@pytest.mark.swe_bench\n@pytest.mark.bubblewrap\ndef test_marked():\n    pass\n"
    )
    for strict in (["--strict-markers"], ["--strict"], ["-o", "strict_markers=true"]):
        if strict[0] == "-o" and int(pytest.__version__.split(".")[0]) < 9:
            continue  # the strict_markers ini key came with pytest 9
        run = swe_project.run("test_marked.py", *strict, subprocess=True)
        run.result.assert_outcomes(passed=1)


@pytest.mark.docker
def test_a_run_replayed_from_the_verdict_cache_loads_no_docker_sdk(
    swe_project: SweProject, demo_images: list[str], docker_engine: Any, tmp_path: Path
) -> None:
    """Every verdict from the cache: the engine is asked only for the images' ids (and a ping, its
    version, the run's containers), over its socket without the SDK, no model client loads, and
    neither does the grading pipeline."""
    swe_project.demo()
    args = ("benchmarks/", "-k", "envfile or slugkit", f"--swe-cache={tmp_path / 'verdicts'}")
    first = swe_project.run(*args)
    assert first.cases and all("cached" not in case.properties for case in first.cases)
    replayed = _modules_after(swe_project, *args, "--junitxml=replayed.xml")["controller"]
    cached = [
        p.get("value")
        for p in ET.parse(swe_project.path / "replayed.xml").iter("property")
        if p.get("name") == "cached"
    ]
    assert len(cached) == len(first.cases) and set(cached) == {"true"}
    assert "pytest_swe.providers.docker" in replayed
    # psutil is not in the list: the run's start reaps orphans, and when the engine holds other
    # runs' sandboxes (as it does while the suite runs in parallel) it asks whether their owners live.
    # Nor OmegaConf (the demo's file is plain data), the pool (no hosts:) or another language's parsers.
    library = ("docker", "requests", "urllib3", "tenacity", "omegaconf")
    assert [m for m in replayed if m.split(".")[0] in library] == []
    assert "pytest_swe.providers.docker.pool" not in replayed
    assert "pytest_swe.families.logparsers.java" not in replayed
    # Nor the grading pipeline: a hit needs the key's names (pytest_swe.grading.spec), not the rules.
    assert "pytest_swe.grading.spec" in replayed
    assert [
        m for m in replayed if m.startswith(("pytest_swe.grading.pipeline", "pytest_swe.grading.probe"))
    ] == []


_LOADERS_PROBE = (
    "import json, sys\n"
    "def pytest_unconfigure(config):\n"
    "    who = getattr(config, 'workerinput', {}).get('workerid', 'controller')\n"
    "    loaders = {name: type(getattr(module, '__loader__', None)).__name__\n"
    "               for name, module in list(sys.modules.items()) if name.startswith('pytest_swe')}\n"
    "    with open(f'loaders-{who}.json', 'w') as f:\n"
    "        json.dump(loaders, f)\n"
)


def test_pytest_swe_is_not_assertion_rewritten_when_pytest_marks_it(swe_project: SweProject) -> None:
    """Installed from a wheel, pytest marks every module of pytest-swe's distribution for
    assertion rewriting (an editable install escapes that by accident): each would then be parsed
    and compiled from source in every process whose rewritten bytecode cannot be cached. Marked
    the same way here (a ``-p`` plugin that loads before the entry points, as the mark does), only
    the packages imported before :mod:`pytest_swe.runner` takes it out go through the rewriting hook; the plugin, families, grading and
    providers load as plain modules, in the controller and in an xdist worker."""
    swe_project.demo()
    (swe_project.path / "mark_swe.py").write_text(
        "import pytest\npytest.register_assert_rewrite('pytest_swe')\n"
    )
    (swe_project.path / "conftest.py").write_text(_LOADERS_PROBE)
    _fresh_python(
        swe_project,
        *("-m", "pytest", "-p", "mark_swe", "benchmarks/", "-k", "no_such_instance", "-q", "-n", "1"),
        codes=(5,),  # every item deselected
        env={**os.environ, "PYTHONPATH": str(swe_project.path)},
    )
    processes = {
        p.stem.removeprefix("loaders-"): json.loads(p.read_text())
        for p in swe_project.path.glob("loaders-*.json")
    }
    assert set(processes) == {"controller", "gw0"}, processes.keys()
    for who, loaders in processes.items():
        rewritten = sorted(name for name, loader in loaders.items() if loader == "AssertionRewritingHook")
        # The mark was in force for what loads before the package that takes it out.
        assert rewritten and set(rewritten) <= {"pytest_swe", "pytest_swe.runner"}, f"{who}: {rewritten}"
        assert loaders.get("pytest_swe.runner.plugin") == "SourceFileLoader", f"{who}: {loaders}"
    # The worker collected the benchmark: the family, its parsers and the config loaded there.
    for name in (
        "pytest_swe.runner.config",
        "pytest_swe.families.swebench",
        "pytest_swe.families.logparsers",
    ):
        assert processes["gw0"].get(name) == "SourceFileLoader", f"{name}: {processes['gw0'].get(name)}"


def test_skipping_rewriting_takes_out_only_pytest_swe(pytester: pytest.Pytester) -> None:
    """Against the rewriting hook of the pytest in use: pytest-swe's modules stop being found by it,
    another package marked beside it still is, and with no mark there is nothing to take out."""
    from _pytest.assertion import install_importhook

    from pytest_swe.runner import skip_assertion_rewriting

    config = pytester.parseconfig()
    hook = install_importhook(config)
    try:
        hook.mark_rewrite("pytest_swe", "rewritten_elsewhere")
        grading = importlib.import_module("pytest_swe.grading").__path__
        assert hook.find_spec("pytest_swe.grading.pipeline", grading) is not None
        assert skip_assertion_rewriting() is True
        assert hook.find_spec("pytest_swe.grading.pipeline", grading) is None
        assert hook.find_spec("pytest_swe", None) is None
        assert "rewritten_elsewhere" in hook._must_rewrite
        assert skip_assertion_rewriting() is False
    finally:
        config._ensure_unconfigure()
        if hook in sys.meta_path:
            sys.meta_path.remove(hook)


_GC_PROBE = (
    "import gc, json\n"
    "import pytest\n"
    "seen = {}\n"
    "@pytest.hookimpl(trylast=True)\n"
    "def pytest_collection_modifyitems(items):\n"
    "    seen['collecting'] = gc.isenabled()\n"
    "def pytest_sessionfinish(session):\n"
    "    seen['after'] = gc.isenabled()\n"
    "    with open('gc.json', 'w') as f:\n"
    "        json.dump(seen, f)\n"
)


@pytest.mark.parametrize(
    "args, off_before, collecting, after",
    [
        (("benchmarks/", "--collect-only"), False, False, True),
        (("test_plain.py",), False, True, True),
        (("benchmarks/", "--collect-only"), True, False, False),
        (("benchmarks/", "-k", "no_such_instance"), False, False, True),
    ],
    ids=["benchmark", "no-benchmark", "collector-off-already", "all-deselected"],
)
def test_garbage_collection_is_held_off_while_benchmarks_are_collected(
    swe_project: SweProject, args: tuple[str, ...], off_before: bool, collecting: bool, after: bool
) -> None:
    """The collector is off from the first benchmark file to the end of collection and on again
    after; a run with no benchmark is not touched, and one that started with it off ends with it
    off, in a fresh interpreter as a user runs pytest."""
    swe_project.demo()
    (swe_project.path / "test_plain.py").write_text("def test_plain():\n    pass\n")
    (swe_project.path / "conftest.py").write_text(_GC_PROBE)
    start = "import gc, sys, pytest; gc.disable() if sys.argv[1] == 'off' else None; "
    _fresh_python(
        swe_project,
        *("-c", start + "sys.exit(pytest.main(sys.argv[2:]))", "off" if off_before else "on"),
        *(*args, "-q", "-p", "no:cacheprovider"),
        codes=(0, 5),
    )
    seen = json.loads((swe_project.path / "gc.json").read_text())
    assert seen == {"collecting": collecting, "after": after}
