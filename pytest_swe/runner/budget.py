"""The run's images: one check before any item runs, and the disk budget kept as items finish.

Before items run (on the controller, with the other run-wide checks) every image the selected
items need is looked for once: missing ones are pulled (mirrors, bounded concurrency, retries),
and what is still missing is one error listing them, not one error per item. With
``--swe-image-budget`` the controller, which sees every item finish, removes images no
remaining item needs while the selection's images exceed the budget; missing images are then
pulled as items need them, not all at once.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from dataclasses import field
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_swe.api.errors import SweError
from pytest_swe.api.sandbox import ImageBuilder
from pytest_swe.api.sandbox import ImageStore
from pytest_swe.api.sizes import parse_size
from pytest_swe.runner import images
from pytest_swe.runner import options

if TYPE_CHECKING:
    from pytest_swe.api.sandbox import Provider
    from pytest_swe.api.settings import BenchmarkSettings
    from pytest_swe.runner.preflight import Target
    from pytest_swe.runner.session import SweSession

PREFLIGHT_ATTEMPTS = 2
PREFLIGHT_BACKOFF = 1.0


@dataclass
class Plan:
    """The images one provider (one set of provider settings) must have for the run's items."""

    provider: Provider
    settings: BenchmarkSettings
    benchmarks: list[str] = field(default_factory=list)
    needs: dict[str, str] = field(default_factory=dict)
    """item node id -> image."""


def limit_of(config: pytest.Config) -> int | None:
    value = options.get(config, "--swe-image-budget")
    if not value:
        return None
    try:
        return parse_size(value, "--swe-image-budget")
    except SweError as exc:
        raise pytest.UsageError(str(exc)) from None


def plan(session: SweSession, targets: list[Target]) -> list[Plan]:
    """Each provider's items and their images (rows that cannot be read are left out)."""
    by_benchmark: dict[str, list[Target]] = {}
    for target in targets:
        by_benchmark.setdefault(target.settings.name, []).append(target)
    plans: dict[str, Plan] = {}
    for group in by_benchmark.values():
        settings = group[0].settings
        try:
            provider = session.provider_for(settings)
        except SweError:
            continue  # the provider's own fault is reported with the providers' check, or per item
        if not isinstance(provider, ImageBuilder):
            continue
        key = repr(sorted(settings.provider.model_dump().items()))
        entry = plans.setdefault(key, Plan(provider, settings))
        entry.benchmarks.append(settings.name)
        found = images.images_of(session, settings, [t.instance_id for t in group])
        entry.needs.update(
            {t.nodeid or t.instance_id: found[t.instance_id] for t in group if t.instance_id in found}
        )
    return list(plans.values())


def check_images(plans: list[Plan], *, budgeted: bool) -> list[str]:
    """Problems with the images the items need: one line per provider, listing every image."""
    problems = []
    for entry in plans:
        builder = entry.provider
        assert isinstance(builder, ImageBuilder)
        names = ", ".join(entry.benchmarks)
        try:
            absent = images.missing(builder, entry.needs.values())
        except SweError:
            continue  # the engine's own fault: reported by the providers' check
        if not absent:
            continue
        pull = entry.settings.provider.pull
        if pull == "never":
            problems.append(
                f"{len(absent)} image(s) of benchmark {names} are not here and provider.pull is never: "
                f"{images.listed(absent)}; build or pull them first (pytest-swe images pull BENCHMARK...)"
            )
            continue
        if budgeted:
            continue  # pulled as the items need them, within the budget
        failed = images.fetch_all(
            builder,
            absent,
            images.mirrors_of(entry.settings),
            attempts=PREFLIGHT_ATTEMPTS,
            backoff=PREFLIGHT_BACKOFF,
        )
        if failed:
            shown = images.listed([f"{tag} ({why})" for tag, why in failed.items()], limit=5)
            problems.append(
                f"{len(failed)} image(s) of benchmark {names} are not here and could not be pulled: {shown}"
            )
    return problems


def _workers(config: pytest.Config) -> int:
    count = getattr(config.option, "numprocesses", None)
    if count == "auto" or count == "logical":
        return os.cpu_count() or 1
    return int(count) if isinstance(count, int) and count > 0 else 1


def start(config: pytest.Config, session: SweSession, plans: list[Plan]) -> None:
    """With ``--swe-image-budget``: keep each provider's images within it from now on."""
    limit = limit_of(config)
    if limit is None:
        return
    budgets = []
    for entry in plans:
        if isinstance(entry.provider, ImageStore) and entry.needs:
            budget = images.Budget(entry.provider, limit, dict(entry.needs), in_flight=_workers(config))
            budget.enforce()
            budgets.append(budget)
    if budgets:
        config.pluginmanager.register(BudgetKeeper(budgets, limit), "swe-image-budget")


class BudgetKeeper:
    """The controller's plugin: each finished item lets its image go once no other item needs it."""

    def __init__(self, budgets: list[images.Budget], limit: int) -> None:
        self.budgets = budgets
        self.limit = limit

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "teardown":
            return
        for budget in self.budgets:
            if report.nodeid in budget.needs:
                with contextlib.suppress(SweError):  # the engine did not answer: the next item checks again
                    budget.finished(report.nodeid)

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        removed = sum(len(b.removed) for b in self.budgets)
        peak = max((b.peak for b in self.budgets), default=0)
        terminalreporter.write_line(
            f"pytest-swe images: budget {_gib(self.limit)}, {removed} image(s) removed as the run went, "
            f"at most {_gib(peak)} of the run's images here at a check"
        )


def _gib(size: int) -> str:
    return f"{size / 1024**3:.2f} GiB"
