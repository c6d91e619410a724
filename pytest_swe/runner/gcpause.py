"""Garbage collection held off while benchmark files are collected.

Collecting a benchmark imports the plugins and their libraries (pydantic's models, OmegaConf) and
makes a node per row: objects that live for the whole run, which every collection the interpreter
starts meanwhile walks again to free next to nothing. Collection is paused from the first
benchmark file until the checks after collection are done, and only when it was running: a run
that collects no benchmark, or whose collector was already off, is left as it was.
"""

from __future__ import annotations

import gc

import pytest

_paused = pytest.StashKey[bool]()


def pause(config: pytest.Config) -> None:
    """Hold garbage collection off (once per run; nothing when it is off already)."""
    if config.stash.get(_paused, False) or not gc.isenabled():
        return
    gc.disable()
    config.stash[_paused] = True


def resume(config: pytest.Config) -> None:
    """Turn garbage collection back on if :func:`pause` turned it off."""
    if config.stash.get(_paused, False):
        config.stash[_paused] = False
        gc.enable()
