"""Removing a run's sandboxes: at the end of the run, for a crashed worker, and on Ctrl-C."""

from __future__ import annotations

import signal
from typing import TYPE_CHECKING
from typing import Any

from pytest_swe.runner import prestart
from pytest_swe.runner.session import get_session

if TYPE_CHECKING:
    import pytest

    from pytest_swe.api.sandbox import Provider
    from pytest_swe.runner.session import SweSession


def reap(config: pytest.Config, *, worker: str | None = None) -> list[str]:
    """Remove this run's sandboxes (all, or one worker's), except kept ones; never raises."""
    session = get_session(config)
    removed: list[str] = []
    providers = session.providers() or _reapers(session)
    for provider in providers:
        try:
            removed += provider.reap(run_id=session.run.run_id, worker=worker)
        except Exception:  # a provider that cannot reap must not stop the others (nor the run's end)
            continue
    return removed


def _reapers(session: SweSession) -> list[Provider]:
    """Providers built only to reap (the controller under xdist creates no sandboxes itself): the
    defaults of each provider this process loaded (one no benchmark named has no sandbox of this
    run), and the providers of the benchmarks the controller read (a pool's hosts)."""
    settings: dict[str, tuple[str, dict[str, Any]]] = {}
    for loaded in session.loaded_settings():
        options = loaded.provider.model_dump()
        settings.setdefault(repr(sorted(options.items())), (loaded.provider.name, options))
    defaults: list[tuple[str, dict[str, Any]]] = [
        (name, {"name": name}) for name in session.registry.providers.entries
    ]
    out = []
    for name, options in [*defaults, *settings.values()]:
        try:
            out.append(session.registry.providers.get(name)(options, session.run))
        except Exception:  # an unusable provider has no sandboxes of this run to remove
            continue
    return out


def end_of_run(config: pytest.Config, *, ran: bool) -> None:
    """Remove the run's sandboxes (unless kept) when the run ``ran`` anything, then close providers.

    A second Ctrl-C must not stop this cleanup: SIGINT is ignored while it reaps.
    """
    session = get_session(config)
    prestart.close(config)  # before the reap: no sandbox may still be starting when it lists them
    if ran and not session.keep:
        try:
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        except (ValueError, OSError):
            previous = None
        try:
            reap(config, worker=session.run.worker if session.is_worker else None)
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
    session.close()
