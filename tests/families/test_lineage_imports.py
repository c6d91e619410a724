"""Families are self-contained: each imports the contracts (``api``), the grading pipeline, the
shared log parsers and its own lineage, and takes from another lineage member only the names that
member publishes in ``__all__``. Read from the source, so a new import cannot slip past."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

FAMILIES = Path(__file__).resolve().parents[2] / "families"
PACKAGE = "pytest_swe.families"
SHARED = ("pytest_swe.api", "pytest_swe.grading", f"{PACKAGE}.logparsers")
LINEAGES = {
    "swebench": {"rebench", "swesmith"},
    "swebench_ext": {"nv_internal"},
}
"""A lineage's head (the module whose ``__all__`` is the lineage's API) and its other members."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(FAMILIES).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


def _imports(source: str, module: str, is_package: bool) -> list[tuple[str, list[str], int]]:
    """``(module, names, line)`` for every import of the project, relative ones resolved."""
    tree = ast.parse(source)
    package = module if is_package else module.rsplit(".", 1)[0]
    found: list[tuple[str, list[str], int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [
                (alias.name, [], node.lineno) for alias in node.names if alias.name.startswith("pytest_swe")
            ]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if base == "pytest_swe":  # ``from pytest_swe import grading``: a subpackage, by name
                found += [(f"{base}.{alias.name}", [], node.lineno) for alias in node.names]
            elif base.startswith("pytest_swe"):
                found.append((base, [alias.name for alias in node.names], node.lineno))
    return found


def _member(module: str) -> str:
    return module.removeprefix(f"{PACKAGE}.").split(".")[0]


def _violations(path: Path, source: str | None = None) -> list[str]:
    text = path.read_text(encoding="utf-8") if source is None else source
    own = _member(_module_name(path))
    problems = []
    for module, names, line in _imports(text, _module_name(path), path.name == "__init__.py"):
        where = f"{path.relative_to(FAMILIES.parent)}:{line} imports {module}"
        if module.startswith(SHARED) or (module == PACKAGE and not names):
            continue
        # ``from pytest_swe.families import x``: x is a module.
        targets = [(f"{PACKAGE}.{name}", []) for name in names] if module == PACKAGE else [(module, names)]
        for target, imported in targets:
            if not target.startswith(f"{PACKAGE}."):
                problems.append(f"{where}: outside api, grading and the families")
                continue
            head = _member(target)
            if head == own:
                continue
            if own not in LINEAGES.get(head, set()):
                problems.append(f"{where}: {head} is not in {own}'s lineage")
            elif target != f"{PACKAGE}.{head}":
                problems.append(f"{where}: lineage members import {head}'s public names, not its modules")
            else:
                public = set(importlib.import_module(target).__all__)
                unknown = sorted(set(imported) - public)
                if unknown:
                    problems.append(f"{where}: {unknown} not in {head}.__all__")
    return problems


SOURCES = sorted(FAMILIES.rglob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(FAMILIES)) for p in SOURCES])
def test_family_imports_stay_in_their_lineage(path: Path) -> None:
    assert _violations(path) == []


def test_lineage_members_use_only_published_attributes() -> None:
    """``from pytest_swe.families import swebench`` then ``swebench.x``: x must be published."""
    for member in LINEAGES["swebench"]:
        for path in [FAMILIES / f"{member}.py", *sorted((FAMILIES / member).rglob("*.py"))]:
            if not path.exists():
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            used = {
                node.attr
                for node in ast.walk(tree)
                if isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "swebench"
            }
            assert used <= set(importlib.import_module(f"{PACKAGE}.swebench").__all__), path


@pytest.mark.parametrize(
    ("path", "line", "words"),
    [
        (
            FAMILIES / "swesmith.py",
            "from pytest_swe.families.swebench.grading import settle",
            "not its modules",
        ),
        (
            FAMILIES / "swesmith.py",
            "from pytest_swe.families.swebench import grading",
            "not in swebench.__all__",
        ),
        (
            FAMILIES / "nv_internal.py",
            "from .swebench_ext import parse_output",
            "not in swebench_ext.__all__",
        ),
        (FAMILIES / "r2egym.py", "from pytest_swe.families import swesmith", "not in r2egym's lineage"),
        (
            FAMILIES / "multiswe.py",
            "from pytest_swe.runner.session import get_session",
            "outside api, grading",
        ),
        (FAMILIES / "rebench" / "v2.py", "from ..swebench_ext import row_fields", "not in rebench's lineage"),
        (FAMILIES / "multiswe.py", "from pytest_swe import runner", "outside api, grading"),
    ],
)
def test_the_check_reports_a_reach_past_the_lineage(path: Path, line: str, words: str) -> None:
    source = path.read_text(encoding="utf-8") + f"\n{line}\n"
    problems = _violations(path, source)
    assert len(problems) == 1 and words in problems[0], problems
