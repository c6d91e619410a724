"""The layer rules of ARCHITECTURE.md, checked by reading every module's imports.

A rule broken here is a concept leaking into a layer that should not know it: a provider that
knows families, a contract that depends on the runner, a core that names Docker.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Source folders and the package each ships as (pyproject's package-dir).
SOURCES = {
    "pytest_swe": "pytest_swe",
    "families": "pytest_swe.families",
    "providers": "pytest_swe.providers",
    "agents": "pytest_swe.agents",
}
# The probe's start-up hook, shipped into eval sandboxes as it is.
SHIPPED = ("pytest_swe/grading/probe/hook.py",)


@dataclass(frozen=True)
class Import:
    module: str
    """The importing module, e.g. ``pytest_swe.runner.plugin``."""
    target: str
    """The imported module (or ``package.name`` for ``from package import name``)."""
    path: Path
    line: int


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    parts[0] = SOURCES[parts[0]]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files() -> list[Path]:
    files = []
    for folder in SOURCES:
        files += [p for p in sorted((ROOT / folder).rglob("*.py")) if "__pycache__" not in p.parts]
    return files


def imports_of(path: Path) -> list[Import]:
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            # ``from pkg import name`` may import a submodule: count it as ``pkg.name``.
            targets = [f"{source}.{alias.name}" for alias in node.names]
        else:
            continue
        found += [Import(module, target, path, node.lineno) for target in targets]
    return found


ALL_IMPORTS = [imp for path in source_files() for imp in imports_of(path)]


def project(imp: Import) -> bool:
    return imp.target == "pytest_swe" or imp.target.startswith("pytest_swe.")


def layer_of(name: str) -> str:
    """``pytest_swe.runner.plugin`` -> ``runner``; ``pytest_swe.families.rebench.v2`` -> ``families``."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


# What each layer may import of the project (besides itself). The public re-exports in
# ``pytest_swe/__init__.py`` count as api.
ALLOWED = {
    "api": set(),
    "grading": {"api"},
    "agentkit": {"api"},
    "providers": {"api"},
    "families": {"api", "grading"},
    "agents": {"api", "agentkit"},
    "tools": {"api", "grading", "runner", "agentkit"},
    "runner": {"api", "grading", "agentkit", "agents", "families", "tools"},
}


def target_layer(target: str) -> str:
    parts = target.split(".")
    if parts == ["pytest_swe"]:
        return "api"
    if (len(parts) == 2 and parts[1][:1].isupper()) or parts[1:] == ["__version__"]:
        return "api"  # a public name re-exported by pytest_swe/__init__.py
    return layer_of(target)


def violations() -> list[str]:
    found = []
    for imp in ALL_IMPORTS:
        source = layer_of(imp.module)
        if not project(imp) or source not in ALLOWED:
            continue
        target = target_layer(imp.target)
        if target != source and target not in ALLOWED[source]:
            where = f"{imp.path.relative_to(ROOT)}:{imp.line}"
            found.append(f"{where}: {source}/ imports {imp.target} ({target}/ is not allowed)")
    return found


def test_the_scan_sees_every_layer() -> None:
    """The rules below are only as good as the scan: it must see each layer and its imports."""
    layers = {layer_of(imp.module) for imp in ALL_IMPORTS if project(imp)}
    assert set(ALLOWED) <= layers
    assert len(ALL_IMPORTS) > 300


def test_layers_import_only_what_the_rules_allow() -> None:
    assert violations() == []


def test_a_broken_rule_is_reported(tmp_path: Path) -> None:
    """The checker itself fails on a provider importing a family (a guard against a vacuous scan)."""
    fake = ROOT / "providers" / "_layer_rule_probe.py"
    fake.write_text("from pytest_swe.families.swebench import SweBench\n", encoding="utf-8")
    try:
        found = [
            f"{imp.path.name}: {imp.target}"
            for imp in imports_of(fake)
            if target_layer(imp.target) not in ALLOWED["providers"]
        ]
    finally:
        fake.unlink()
    assert found == ["_layer_rule_probe.py: pytest_swe.families.swebench.SweBench"]


# Which family may import which (lineages and their ``__all__``): tests/families/test_lineage_imports.py.


@pytest.mark.parametrize("layer", ["api", "grading", "runner", "tools", "agentkit", "families", "agents"])
def test_only_providers_know_a_container_engine(layer: str) -> None:
    """The core knows no provider by name: no Docker SDK and no provider module outside providers/."""
    found = [
        f"{imp.path.relative_to(ROOT)}:{imp.line}: {imp.target}"
        for imp in ALL_IMPORTS
        if layer_of(imp.module) == layer
        and (imp.target.split(".")[0] == "docker" or layer_of(imp.target) == "providers")
    ]
    assert found == []


def test_pytest_internals_stay_in_runner_and_tools_with_a_reason() -> None:
    """``_pytest`` is private API: only the runner and tools may use it, each use saying why in a
    comment right above it."""
    found = []
    for imp in ALL_IMPORTS:
        if imp.target.split(".")[0] != "_pytest":
            continue
        where = f"{imp.path.relative_to(ROOT)}:{imp.line}"
        if layer_of(imp.module) not in ("runner", "tools"):
            found.append(f"{where}: {imp.target} outside runner/ and tools/")
            continue
        lines = imp.path.read_text(encoding="utf-8").splitlines()
        first = imp.line - 1  # the import block this line belongs to starts at ``first``
        while first > 0 and lines[first - 1].lstrip().startswith(("from _pytest", "import _pytest")):
            first -= 1
        if not lines[max(0, first - 1)].lstrip().startswith("#"):
            found.append(f"{where}: {imp.target} without a comment above it saying why")
    assert found == []


@pytest.mark.parametrize("name", ["hook.py", "channel.py", "unitchannel.py", "equality.py"])
def test_shipped_probe_scripts_import_nothing_of_the_project(name: str) -> None:
    """In the eval sandbox nothing of pytest-swe is importable: a shipped script, as shipped,
    imports only the standard library (and pytest, for the pytest channel)."""
    from pytest_swe.grading import probe

    source = probe._shipped(name) if name != "hook.py" else (ROOT / SHIPPED[0]).read_text(encoding="utf-8")
    tree = ast.parse(source)
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and not n.level}
    assert (
        sorted(m for m in imported if m.split(".")[0] in ("pytest_swe", "families", "providers", "agents"))
        == []
    )
    assert "write_record" not in source or "def write_record" in source


def test_the_public_api_names_exist() -> None:
    import pytest_swe

    assert pytest_swe.__all__
    missing = [name for name in pytest_swe.__all__ if not hasattr(pytest_swe, name)]
    assert missing == []
