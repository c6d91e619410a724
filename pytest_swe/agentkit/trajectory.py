"""Trajectories written so that a run killed at any moment leaves a readable file.

Every save writes a temp file and renames it over the old one: a reader (or a run killed
with SIGTERM or SIGKILL mid-save) sees the previous complete trajectory or the new one,
never half of one.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

FORMAT = "pytest-swe-trajectory-1"


def save_json(path: Path, data: Any) -> None:
    """Replace ``path`` with ``data`` as JSON, atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1, ensure_ascii=False, default=str)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


class Trajectory:
    """An agent's messages and steps, saved after every change the caller marks with :meth:`save`."""

    def __init__(self, path: Path, **info: Any) -> None:
        self.path = path
        self.started = time.time()
        # The same lists live in ``data``: appending to them is what the next save writes.
        self.messages: list[dict[str, Any]] = []
        self.steps: list[dict[str, Any]] = []
        self.data: dict[str, Any] = {
            "format": FORMAT,
            "info": {"started": self.started, "exit_status": None, "message": "", **info},
            "usage": {},
            "steps": self.steps,
            "messages": self.messages,
        }

    def finish(self, exit_status: str, message: str = "", **info: Any) -> None:
        self.data["info"].update(exit_status=exit_status, message=message, finished=time.time(), **info)
        self.save()

    def save(self) -> None:
        self.data["info"]["saved"] = time.time()
        save_json(self.path, self.data)
