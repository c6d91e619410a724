"""One instance, described generically: what the corpus generators may know about it.

Generators only read these fields, never an instance id, so a generator written for one
repository applies to every one (a new local row gets the whole corpus for free).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from dataclasses import field
from functools import cached_property
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]
DEMO_YAML = REPO / "benchmarks" / "demo.yaml"
DEMO_ROWS = REPO / "benchmarks" / "demo" / "demo.jsonl"
DEMO_REPOS = REPO / "benchmarks" / "demo" / "instances"
GRADING_YAML = REPO / "tests" / "security" / "data" / "grading-local.yaml"
GRADING_ROWS = REPO / "tests" / "security" / "data" / "grading-local" / "rows.jsonl"
GRADING_REPOS = REPO / "tests" / "security" / "data" / "grading-local" / "instances"

#: The runner a log parser reads: which test-status formats an attacker must forge.
RUNNERS = {"parse_log_django": "django", "parse_log_sympy": "sympy"}
_START = ": '>>>>> Start Test Output'"
_END = ": '>>>>> End Test Output'"
_DIFF_PATHS = re.compile(r"^diff --git a/(\S+) b/(\S+)$", re.MULTILINE)


@dataclass(frozen=True)
class InstanceContext:
    """An instance as the generators see it."""

    instance_id: str
    repo_dir: Path
    """The repository at its base commit (a plain directory)."""
    row: dict[str, Any] = field(repr=False)
    """The dataset row, copied (under another id) for each case."""
    gold_patch: str = field(repr=False)
    test_patch: str = field(repr=False)
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    log_parser: str
    test_command: str
    """The command the eval script runs between its markers (directives included)."""
    reinstalls: bool
    """Whether the eval script re-installs the package (``pip install -e .``) before the tests."""

    @property
    def runner(self) -> str:
        """``pytest``, ``django`` or ``sympy``: which runner prints the log the reader parses."""
        return RUNNERS.get(self.log_parser, "pytest")

    @property
    def required(self) -> tuple[str, ...]:
        return self.fail_to_pass + self.pass_to_pass

    @cached_property
    def files(self) -> tuple[str, ...]:
        """Every regular file of the repository at base (POSIX paths, sorted)."""
        return tuple(
            sorted(p.relative_to(self.repo_dir).as_posix() for p in self.repo_dir.rglob("*") if p.is_file())
        )

    def read(self, path: str) -> str:
        return (self.repo_dir / path).read_text(encoding="utf-8")

    @cached_property
    def test_files(self) -> tuple[str, ...]:
        """The files the test patch touches (the graded test files)."""
        return tuple(dict.fromkeys(b for _, b in _DIFF_PATHS.findall(self.test_patch)))

    @cached_property
    def gold_files(self) -> tuple[str, ...]:
        """The files the gold patch touches (the fix site)."""
        return tuple(dict.fromkeys(b for _, b in _DIFF_PATHS.findall(self.gold_patch)))

    @cached_property
    def packages(self) -> tuple[str, ...]:
        """Import names of the repository's top-level packages, test directories excluded."""
        names = {
            path.split("/", 1)[0]
            for path in self.files
            if path.count("/") == 1 and path.endswith("/__init__.py")
        }
        return tuple(sorted(n for n in names if n not in ("tests", "test", "testing", "bin")))

    @property
    def package(self) -> str:
        """The package the tests import (the one the gold patch fixes, else the first)."""
        for path in self.gold_files:
            top = path.split("/", 1)[0]
            if top in self.packages:
                return top
        return self.packages[0]

    @property
    def package_init(self) -> str:
        return f"{self.package}/__init__.py"

    @property
    def build_files(self) -> tuple[str, ...]:
        """The packaging files at the root (``pyproject.toml``, ``setup.py``, ``setup.cfg``)."""
        return tuple(p for p in ("pyproject.toml", "setup.py", "setup.cfg") if p in self.files)

    @property
    def runs_python_m_pytest(self) -> bool:
        """Whether the runner is started as ``python -m pytest`` (the repository root then comes
        first on ``sys.path`` before pytest is imported)."""
        return bool(re.search(r"\bpython3? -m pytest\b", self.test_command))


def _test_command(eval_script: str) -> str:
    lines = eval_script.splitlines()
    start, end = lines.index(_START), lines.index(_END)
    return "\n".join(lines[start + 1 : end]).strip()


def context_from_row(row: dict[str, Any], repo_dir: Path) -> InstanceContext:
    """The context of a v5-form row (one with an ``eval_script``) whose base tree is ``repo_dir``."""

    def ids(value: Any) -> tuple[str, ...]:
        return tuple(json.loads(value) if isinstance(value, str) else value)

    script = row["eval_script"]
    return InstanceContext(
        instance_id=row["instance_id"],
        repo_dir=repo_dir,
        row=dict(row),
        gold_patch=row["patch"],
        test_patch=row["test_patch"],
        fail_to_pass=ids(row["FAIL_TO_PASS"]),
        pass_to_pass=ids(row["PASS_TO_PASS"]),
        log_parser=row["log_parser"],
        test_command=_test_command(script),
        reinstalls=bool(re.search(r"^python3? -m pip install -e", script, re.MULTILINE)),
    )


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_contexts(rows_file: Path, repos_dir: Path) -> list[InstanceContext]:
    """The contexts of a local benchmark: each row with ``<repos_dir>/<instance_id>/repo``."""
    return [context_from_row(r, repos_dir / r["instance_id"] / "repo") for r in _read_jsonl(rows_file)]


def demo_contexts() -> list[InstanceContext]:
    return load_contexts(DEMO_ROWS, DEMO_REPOS)


def grading_contexts() -> list[InstanceContext]:
    return load_contexts(GRADING_ROWS, GRADING_REPOS)


def all_contexts() -> list[InstanceContext]:
    return demo_contexts() + grading_contexts()


@dataclass(frozen=True)
class Case:
    """One patch of a corpus, for one instance."""

    name: str
    """Short, unique per instance; it becomes the suffix of the row's id (``<id>__<name>``)."""
    mechanism: str
    """The class of trick (attacks) or of legitimate change (honest cases)."""
    patch: str = field(repr=False)
    description: str
