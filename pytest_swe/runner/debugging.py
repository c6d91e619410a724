"""``--pdb`` and ``--swe-keep`` on pytest-swe items: what is left to look at, and how to reach it.

The eval scripts that ran are copied into the eval sandbox at :data:`SANDBOX_DIR` (the run
itself reverts the test files and leaves only its instrumented script); when the debugger opens
on an item, a short help says how to enter its sandboxes, what is in scope and where the logs
are. The help is printed, never stored: it is true only while the sandboxes live.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_swe.api.sandbox import Sandbox
from pytest_swe.runner.properties import get_record

if TYPE_CHECKING:
    from pytest_swe.runner.properties import ItemRecord

SANDBOX_DIR = "/tmp/pytest-swe"
"""Where the eval scripts are copied in the eval sandbox (beside the patch the pipeline applied)."""

#: The item the debugger is about to open on, and the phase that failed (set by the exception hook).
pdb_item_key = pytest.StashKey[tuple[pytest.Item, str]]()
#: The eval scripts copied into an item's eval sandbox, by sandbox path.
copied_key = pytest.StashKey[list[str]]()
eval_sandbox_key = pytest.StashKey[Sandbox]()
"""The item's eval sandbox once started, for the ``--pdb`` frame (a cached verdict starts none)."""


def copy_eval_scripts(sandbox: Sandbox, saved: Mapping[str, str]) -> list[str]:
    """Copy each saved eval script (``*.sh``) into the sandbox; the sandbox paths written.

    A sandbox that no longer takes files (it died, the deadline removed it) is left as it is:
    the copy is for a person to look at, never part of the grade.
    """
    written = []
    for name, path in saved.items():
        if not name.endswith(".sh"):
            continue
        target = f"{SANDBOX_DIR}/{name}"
        try:
            sandbox.write_file(target, Path(path).read_bytes(), mode=0o755)
        except Exception:  # any provider's failure to write: the sandbox is gone or unusable
            continue
        written.append(target)
    return written


def help_lines(item: pytest.Item, when: str) -> list[str]:
    """What the debugger's user needs first: the sandboxes, the names in scope, the logs."""
    record: ItemRecord = get_record(item)
    lines = [f"pytest-swe: {item.nodeid}: its sandboxes stay up until you continue (c) or quit (q)"]
    lines += [f"  enter the {line}" for line in record.sandboxes]
    for script in item.stash.get(copied_key, []):
        lines.append(
            f"  the eval script, copied into the eval sandbox: {script} (bash {script} runs the tests "
            "again as graded, the harness's probe and its canary tests included)"
        )
    if when == "call":
        lines.append(
            "  in scope: swe_task, swe_verdict, swe_eval_sandbox "
            '(e.g. print(swe_eval_sandbox.exec("git status", timeout=60).output))'
        )
    logs = next(
        (
            Path(record.properties[k]).parent
            for k in ("eval_log_path", "patch_path")
            if record.properties.get(k)
        ),
        None,
    )
    if logs is not None:
        names = sorted(p.name for p in logs.iterdir()) if logs.is_dir() else []
        lines.append(f"  logs: {logs}" + (f" ({', '.join(names)})" if names else ""))
    return lines
