"""The item lifecycle as fixtures, so ``--setup-show`` shows each step and users can reuse them.

swe_settings -> swe_task -> swe_provider -> swe_deadline -> [swe_agent_sandbox] -> swe_agent_result
-> swe_eval_sandbox -> swe_verdict. Infrastructure faults raise in setup (JUnit ``<error>``);
an unresolved verdict fails the item's call (``<failure>``).

Outside benchmark items, mark a test ``@pytest.mark.swe_task("benchmarks/x.yaml", "<instance id>")``
to get the same fixtures for that task.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_swe.api.errors import ConfigError
from pytest_swe.api.errors import InfraError
from pytest_swe.api.errors import RowError
from pytest_swe.api.family import EvalContext
from pytest_swe.api.sandbox import DeferredClose
from pytest_swe.api.sandbox import ImageBuilder
from pytest_swe.api.sandbox import Located
from pytest_swe.api.sandbox import SandboxSpec
from pytest_swe.api.sandbox import SharedCapacity
from pytest_swe.runner import options
from pytest_swe.runner import prestart
from pytest_swe.runner.collect import SweItem
from pytest_swe.runner.deadline import ItemDeadline
from pytest_swe.runner.debugging import copied_key
from pytest_swe.runner.debugging import copy_eval_scripts
from pytest_swe.runner.debugging import eval_sandbox_key
from pytest_swe.runner.properties import Identity
from pytest_swe.runner.properties import get_record
from pytest_swe.runner.properties import instance_key
from pytest_swe.runner.session import get_session

if TYPE_CHECKING:
    from pytest_swe.agentkit.endpoint import EndpointBridge
    from pytest_swe.api.agent import Agent
    from pytest_swe.api.agent import AgentResult
    from pytest_swe.api.family import Family
    from pytest_swe.api.sandbox import Provider
    from pytest_swe.api.sandbox import Sandbox
    from pytest_swe.api.settings import BenchmarkSettings
    from pytest_swe.api.task import Task
    from pytest_swe.api.verdict import Verdict
    from pytest_swe.runner.dataset import RowRef

# The endpoint bridge an item's agent sandbox mounted, for the agent fixture to hand on.
bridge_key: pytest.StashKey[EndpointBridge | None] = pytest.StashKey()


def _source(request: pytest.FixtureRequest) -> tuple[BenchmarkSettings, RowRef, str | None]:
    node = request.node
    session = get_session(request.config)
    if isinstance(node, SweItem):
        return node.settings, node.ref, node.problem
    marker = node.get_closest_marker("swe_task")
    if marker is None or len(marker.args) != 2:
        raise ConfigError(
            f"{node.nodeid}: pytest-swe fixtures need a benchmark item or "
            "@pytest.mark.swe_task('<benchmark file>', '<instance id>')"
        )
    benchmark, instance_id = marker.args
    path = Path(benchmark)
    if not path.is_absolute():
        path = Path(request.config.rootpath, path)
    settings = session.settings_for(path)
    family = session.registry.families.get(settings.family)
    index = session.index_for(settings, family)
    for ref in index.refs():
        if ref.instance_id == instance_id:
            return settings, ref, None
    raise ConfigError(f"{node.nodeid}: instance {instance_id!r} not found in benchmark {settings.name!r}")


@pytest.fixture
def swe_settings(request: pytest.FixtureRequest) -> BenchmarkSettings:
    """The resolved configuration of this item's benchmark."""
    return _source(request)[0]


@pytest.fixture
def swe_family(request: pytest.FixtureRequest, swe_settings: BenchmarkSettings) -> Family:
    """The dataset family that reads and grades this item's row."""
    return get_session(request.config).registry.families.get(swe_settings.family)


@pytest.fixture
def swe_task(request: pytest.FixtureRequest, swe_settings: BenchmarkSettings, swe_family: Family) -> Task:
    """The item's row, loaded now (not at collection) and normalized by its family."""
    session = get_session(request.config)
    _, ref, problem = _source(request)
    record = get_record(request.node)
    row_name = f"{ref.position + 1}" + (f" ({ref.instance_id})" if ref.instance_id else "")
    record.identify(
        Identity(
            family=swe_settings.family,
            benchmark=swe_settings.name,
            instance_id=ref.instance_id or "",
            dataset=swe_settings.dataset.source,
            split=swe_settings.dataset.split,
            agent=swe_settings.agent.name,
            provider=swe_settings.provider.name,
            grader_version=swe_family.grader_version,
            run_id=session.run.run_id,
        )
    )
    if problem:
        raise RowError("instance_id", problem, row=row_name)
    index = session.index_for(swe_settings, swe_family)
    try:
        row = index.load_row(ref.locator)
        task = swe_family.normalize(row, swe_settings)
    except RowError as exc:
        raise RowError(exc.field, exc.args[0], row=f"{row_name} of {swe_settings.dataset.source}") from None
    record.task_read(task)
    return task


@pytest.fixture
def swe_artifacts(request: pytest.FixtureRequest, swe_settings: BenchmarkSettings, swe_task: Task) -> Path:
    """This item's directory in the run directory (patch, eval script, logs, verdict)."""
    return get_session(request.config).artifacts_dir(swe_settings.name, swe_task.instance_id)


@pytest.fixture
def swe_provider(
    request: pytest.FixtureRequest, swe_settings: BenchmarkSettings, swe_family: Family
) -> Provider:
    """The sandbox provider; skips the item when its family cannot run there (not a provider it
    supports, or one lacking a capability it needs)."""
    name = swe_settings.provider.name
    supported = swe_family.providers
    if supported is not None and name not in supported:
        pytest.skip(
            f"family {swe_family.name!r} cannot run on provider {name!r} (it supports: {', '.join(sorted(supported))})"
        )
    session = get_session(request.config)
    capabilities = session.registry.providers.get(name, where=swe_settings.file).capabilities
    missing = swe_family.needs - capabilities
    if missing:
        pytest.skip(
            f"family {swe_family.name!r} needs provider capability {', '.join(sorted(missing))}, which provider "
            f"{name!r} lacks (it has: {', '.join(sorted(capabilities)) or 'none'})"
        )
    return session.provider_for(swe_settings)


@pytest.fixture
def swe_agent(request: pytest.FixtureRequest, swe_settings: BenchmarkSettings) -> Agent:
    """The agent chosen by ``--swe-agent`` or the benchmark."""
    factory = get_session(request.config).registry.agents.get(swe_settings.agent.name)
    return factory(swe_settings.agent.model_dump())


@pytest.fixture
def swe_deadline(request: pytest.FixtureRequest, swe_settings: BenchmarkSettings) -> Iterator[ItemDeadline]:
    """The item's deadline (``timeouts.item``, none when unset); set up before any sandbox and torn
    down after them all, its watchdog covers create, agent, eval and teardown."""
    deadline = ItemDeadline(swe_settings.timeouts.item, keep=get_session(request.config).keep)
    try:
        yield deadline
    finally:
        deadline.finish()


def sandbox_spec(task: Task, settings: BenchmarkSettings, *, role: str, keep: bool) -> SandboxSpec:
    timeout = settings.timeouts.agent if role == "agent" else settings.timeouts.eval
    return SandboxSpec(
        image=task.image,
        workdir=task.workdir,
        role=role,
        env=dict(task.eval_env) if role == "eval" else {},
        network=settings.network.agent if role == "agent" else settings.network.eval,
        memory=settings.limits.memory,
        cpus=settings.limits.cpus,
        pids=settings.limits.pids,
        ttl=timeout + settings.timeouts.sandbox + 600,
        start_timeout=settings.timeouts.sandbox,
        labels={"pytest-swe.instance": task.instance_id, "pytest-swe.benchmark": settings.name},
        keep=keep,
    )


def _open_sandbox(
    request: pytest.FixtureRequest, provider: Provider, spec: SandboxSpec, deadline: ItemDeadline
) -> Sandbox:
    record = get_record(request.node)
    spec.start_timeout = deadline.cap(spec.start_timeout)
    with deadline.during("create"), record.timed("sandbox"):
        started = (
            prestart.prestarts(request.config).claim(request.node.nodeid, spec)
            if spec.role == "eval"
            else None
        )
        if started is None:
            ensure_image(provider, spec.image, request.node)
        sandbox = started or provider.create(spec)
        deadline.watch(sandbox)  # removed at once if the deadline passed while it started
    record.sandbox_opened(spec.role, sandbox.enter_command())
    if isinstance(sandbox, Located):
        record.sandbox_placed(sandbox.sandbox_host)
    return sandbox


def ensure_image(provider: Provider, image: str, node: pytest.Item) -> None:
    """With ``images.mirrors``, a missing image is pulled from its mirror (with retries) before the
    provider would pull it from its own registry."""
    from pytest_swe.runner import images

    settings = node.settings if isinstance(node, SweItem) else None
    mirrors = images.mirrors_of(settings) if settings is not None else {}
    if (
        not mirrors
        or settings is None
        or settings.provider.pull == "never"
        or not isinstance(provider, ImageBuilder)
    ):
        return
    if not provider.image_exists(image):
        why = images.fetch(provider, image, mirrors)
        if why is not None:
            raise InfraError("image_missing", f"image {image} is not here and could not be pulled: {why}")


def _close_sandbox(request: pytest.FixtureRequest, sandbox: Sandbox) -> None:
    record = get_record(request.node)
    if get_session(request.config).keep:
        record.sandbox_kept(sandbox.spec.role, sandbox.enter_command())
        return
    with record.timed("teardown"):
        if isinstance(sandbox, DeferredClose):  # removed while the next item starts
            record.sandbox_closing(sandbox.spec.role, sandbox.close_soon())
        else:
            record.sandbox_closed(sandbox.spec.role, sandbox.close())


@pytest.fixture
def swe_agent_sandbox(
    request: pytest.FixtureRequest,
    swe_task: Task,
    swe_settings: BenchmarkSettings,
    swe_provider: Provider,
    swe_family: Family,
    swe_agent: Agent,
    swe_deadline: ItemDeadline,
) -> Iterator[Sandbox]:
    """A sandbox from the task's image for the agent, with the evaluation's hidden files removed."""
    from pytest_swe.agentkit.endpoint import open_bridge

    spec = sandbox_spec(swe_task, swe_settings, role="agent", keep=get_session(request.config).keep)
    bridge = open_bridge(swe_agent, spec)  # mounts the model endpoint socket when the agent asks for it
    request.node.stash[bridge_key] = bridge
    try:
        sandbox = _open_sandbox(request, swe_provider, spec, swe_deadline)
        try:
            with swe_deadline.during("create"):
                swe_family.prepare_agent_sandbox(swe_task, sandbox, swe_settings)
            yield sandbox
        finally:
            _close_sandbox(request, sandbox)
    finally:
        if bridge is not None:
            bridge.close()


@pytest.fixture
def swe_agent_result(
    request: pytest.FixtureRequest,
    swe_deadline: ItemDeadline,
    swe_task: Task,
    swe_settings: BenchmarkSettings,
    swe_agent: Agent,
    swe_artifacts: Path,
) -> AgentResult:
    """Run the agent and take its patch (``git diff`` of the sandbox unless it returned one);
    see :func:`pytest_swe.runner.agentrun.run_agent`."""
    from pytest_swe.runner.agentrun import agent_context
    from pytest_swe.runner.agentrun import run_agent
    from pytest_swe.runner.agentrun import take_patch

    record = get_record(request.node)
    sandbox: Sandbox | None = (
        request.getfixturevalue("swe_agent_sandbox") if swe_agent.needs_sandbox else None
    )
    agent_dir = swe_artifacts / "agent"
    agent_dir.mkdir(parents=True, exist_ok=True)
    ctx = agent_context(
        swe_task,
        swe_settings,
        artifacts=agent_dir,
        sandbox=sandbox,
        endpoint=request.node.stash.get(bridge_key, None),
        run_dir=get_session(request.config).run_dir,
        deadline=swe_deadline,
    )
    with swe_deadline.during("agent"):
        result = run_agent(swe_agent, ctx, record)
        take_patch(result, ctx, swe_settings, swe_artifacts, record)
    request.config.hook.pytest_swe_agent_finished(item=request.node, task=swe_task, result=result)
    return result


@pytest.fixture
def swe_eval_sandbox(
    request: pytest.FixtureRequest,
    swe_task: Task,
    swe_settings: BenchmarkSettings,
    swe_provider: Provider,
    swe_agent_result: AgentResult,
    swe_deadline: ItemDeadline,
) -> Iterator[Sandbox]:
    """A fresh sandbox from the task's image for grading (never the agent's)."""
    spec = sandbox_spec(swe_task, swe_settings, role="eval", keep=get_session(request.config).keep)
    sandbox = _open_sandbox(request, swe_provider, spec, swe_deadline)
    request.node.stash[eval_sandbox_key] = sandbox
    try:
        yield sandbox
    finally:
        _close_sandbox(request, sandbox)


def _start_next_eval_sandbox(request: pytest.FixtureRequest) -> None:
    """Start the next item's eval sandbox while this item is graded (see ``runner.prestart``):
    only when the next item's agent needs no sandbox, nothing is kept, and its row normalizes."""
    upcoming = request.node.stash.get(prestart.next_item_key, None)
    session = get_session(request.config)
    if not isinstance(upcoming, SweItem) or upcoming.problem or session.keep:
        return
    if session.resumed.get(instance_key(upcoming.benchmark, upcoming.instance_id, upcoming.nodeid)):
        return  # replayed from the ledger, never evaluated
    settings = upcoming.settings
    try:
        if getattr(session.registry.agents.get(settings.agent.name), "needs_sandbox", True):
            return
        family = session.registry.families.get(settings.family)
        name = settings.provider.name
        capabilities = session.registry.providers.get(name, where=settings.file).capabilities
        if (family.providers is not None and name not in family.providers) or family.needs - capabilities:
            return  # the item will be skipped
        task = family.normalize(session.index_for(settings, family).load_row(upcoming.ref.locator), settings)
        provider = session.provider_for(settings)
    except Exception:  # the next item's own fixtures report what is wrong with it
        return
    if isinstance(provider, SharedCapacity):
        return  # a sandbox started ahead would hold a slot of the shared capacity
    if options.get(request.config, "--swe-image-budget"):
        return  # the next item's image would be on disk an item early, past the budget
    spec = sandbox_spec(task, settings, role="eval", keep=False)
    prestart.prestarts(request.config).offer(upcoming.nodeid, spec, provider.create)


TASK_NAME = "task.json"
SETTINGS_NAME = "settings.json"


def save_grading_inputs(artifacts: Path, task: Task, settings: BenchmarkSettings) -> None:
    """The normalized task and the benchmark settings beside the verdict: with the saved eval log,
    what ``pytest-swe regrade`` grades again without the dataset or a sandbox. Of the agent's
    settings only its name is kept: grading never reads the rest, which may hold anything."""
    artifacts.mkdir(parents=True, exist_ok=True)
    (artifacts / TASK_NAME).write_text(task.model_dump_json(indent=2))
    data = {**settings.model_dump(mode="json"), "agent": {"name": settings.agent.name}}
    (artifacts / SETTINGS_NAME).write_text(json.dumps(data, indent=2))


@pytest.fixture
def swe_verdict(
    request: pytest.FixtureRequest,
    swe_task: Task,
    swe_settings: BenchmarkSettings,
    swe_family: Family,
    swe_provider: Provider,
    swe_agent_result: AgentResult,
    swe_artifacts: Path,
    swe_deadline: ItemDeadline,
) -> Verdict:
    """Grade the agent's patch by the family's rules in the eval sandbox (``swe_eval_sandbox``,
    started only when the verdict cache has no entry for these inputs)."""
    from pytest_swe import grading
    from pytest_swe.runner.agentrun import PATCH_NAME
    from pytest_swe.runner.cache import verdict_of

    record = get_record(request.node)
    ctx = EvalContext(
        settings=swe_settings,
        artifacts=swe_artifacts,
        timeout=swe_deadline.cap(swe_settings.timeouts.eval),
        output_limit=swe_settings.limits.output_bytes,
        # The next item's eval sandbox starts when this item's eval script does: only an item
        # graded in a sandbox starts one (a run of cache hits starts none), and not while this
        # one's patch is applied, which the engine's work of starting a container slowed.
        on_script=functools.partial(_start_next_eval_sandbox, request),
    )
    save_grading_inputs(swe_artifacts, swe_task, swe_settings)
    patch = swe_agent_result.patch or ""

    def evaluate() -> Verdict:
        sandbox: Sandbox = request.getfixturevalue("swe_eval_sandbox")
        try:
            with swe_deadline.during("eval"), record.timed("eval"):
                return grading.decide(swe_family.evaluate(swe_task, patch, sandbox, ctx), ctx)
        finally:
            if request.config.getoption("usepdb", False) or get_session(request.config).keep:
                request.node.stash[copied_key] = copy_eval_scripts(sandbox, ctx.saved)

    cache = get_session(request.config).verdict_cache
    try:
        verdict, replayed = verdict_of(
            cache, swe_task, patch, swe_settings, swe_family, swe_provider, ctx, evaluate
        )
    finally:
        record.artifacts_saved(ctx.saved)
        record.add_timings(ctx.timings)
    if replayed:
        record.cached()
    verdict.artifacts = {"patch": str(swe_artifacts / PATCH_NAME), **ctx.saved}
    verdict_path = swe_artifacts / "verdict.json"
    verdict.artifacts["verdict"] = str(verdict_path)
    verdict_path.write_text(json.dumps(verdict.model_dump(mode="json"), indent=2))
    record.graded(verdict, verdict_path)
    request.config.hook.pytest_swe_verdict(item=request.node, task=swe_task, verdict=verdict)
    return verdict


__all__ = [
    "swe_agent",
    "swe_agent_result",
    "swe_agent_sandbox",
    "swe_artifacts",
    "swe_deadline",
    "swe_eval_sandbox",
    "swe_family",
    "swe_provider",
    "swe_settings",
    "swe_task",
    "swe_verdict",
]
