"""Sandbox cost per provider, as ratios to ``docker run --rm IMAGE true`` measured in the same run.

For each provider (any name the registry knows: docker, podman, bubblewrap, ...), it measures:

* one sandbox's life through the provider protocol: ``create`` + ``exec("true")`` + ``close``,
  ``--repeat`` times, interleaved round by round with ``docker run --rm IMAGE true`` (so both see
  the same load on a shared machine), and prints the median of each and their ratio;
* with ``--demo``, the wall time of ``pytest benchmarks/demo.yaml --swe-provider NAME -n 2`` with the
  gold agent (after ``pytest-swe images benchmarks/demo.yaml --provider NAME``), and its resolved count.

Usage: python scripts/bench_providers.py [--providers docker,podman] [--repeat 10] [--demo]
       [--image TAG] [--image-for NAME=TAG]
A provider that does not work here is listed with the reason and skipped.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pytest_swe.api.sandbox import ImageBuilder
from pytest_swe.api.sandbox import Provider
from pytest_swe.api.sandbox import SandboxSpec
from pytest_swe.api.sandbox import this_run
from pytest_swe.runner.registry import Registry
from pytest_swe.runner.registry import plugin_manager_for_tools
from pytest_swe.tools import report
from pytest_swe.tools.cli import main as cli
from pytest_swe.tools.cli import provider_status
from pytest_swe.tools.images import BASE_IMAGE

REPO = Path(__file__).resolve().parents[1]


def sandbox_life(provider: Provider, image: str) -> float:
    started = time.perf_counter()
    sandbox = provider.create(SandboxSpec(image=image))
    try:
        result = sandbox.exec("true", timeout=60)
        if result.exit_code != 0:
            raise RuntimeError(
                f"`true` exited {result.exit_code} in a {provider.name} sandbox: {result.output}"
            )
    finally:
        removed = sandbox.close()
    if not removed.removed:
        raise RuntimeError(f"a {provider.name} sandbox was not removed: {removed.error}")
    return time.perf_counter() - started


def docker_run(image: str) -> float:
    started = time.perf_counter()
    subprocess.run(
        ["docker", "run", "--rm", "--network", "none", image, "true"], check=True, capture_output=True
    )
    return time.perf_counter() - started


def demo_gold(name: str) -> tuple[float, int]:
    """Wall time of the demo benchmark with gold on ``name`` (-n 2), and how many items resolved."""
    with tempfile.TemporaryDirectory(prefix="pytest-swe-bench-providers-") as tmp:
        junit = Path(tmp) / "junit.xml"
        started = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "benchmarks/demo.yaml",
                "--swe-provider",
                name,
                "--swe-agent",
                "gold",
                "-n",
                "2",
                "-q",
                "-p",
                "no:cacheprovider",
                f"--junitxml={junit}",
                f"--swe-run-dir={Path(tmp) / 'run'}",
            ],
            cwd=REPO,
            capture_output=True,
            check=False,
        )
        elapsed = time.perf_counter() - started
        cases = report.read_cases(junit) if junit.exists() else []
    return elapsed, sum(case.outcome == "passed" for case in cases)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--providers", help="comma-separated provider names (default: every registered one)")
    parser.add_argument("--repeat", type=int, default=10, help="sandbox lives per provider (default 10)")
    parser.add_argument("--image", default=BASE_IMAGE, help=f"image of every sandbox (default {BASE_IMAGE})")
    parser.add_argument(
        "--image-for", action="append", default=[], metavar="NAME=TAG", help="another image for one provider"
    )
    parser.add_argument(
        "--demo", action="store_true", help="also time the demo benchmark with gold per provider"
    )
    args = parser.parse_args(argv)

    registry = Registry(plugin_manager_for_tools())
    names = args.providers.split(",") if args.providers else sorted(registry.providers)
    images = {name: args.image for name in names} | dict(item.split("=", 1) for item in args.image_for)

    providers: dict[str, Provider] = {}
    for name in names:
        ok, detail = provider_status(name)
        print(f"{name}: {'works' if ok else 'unavailable'}: {detail}")
        if not ok:
            continue
        provider = registry.providers.get(name)({"name": name}, this_run(run_id=run_id(name)))
        if isinstance(provider, ImageBuilder) and not provider.image_exists(images[name]):
            print(f"{name}: image {images[name]} is missing (pytest-swe images --provider {name})")
            continue
        sandbox_life(provider, images[name])  # warm-up: first connection, image caches
        providers[name] = provider
    docker_run(args.image)

    lives: dict[str, list[float]] = {name: [] for name in providers}
    baseline: list[float] = []
    for _ in range(args.repeat):
        baseline.append(docker_run(args.image))
        for name, provider in providers.items():
            lives[name].append(sandbox_life(provider, images[name]))
    base = statistics.median(baseline)
    print(f"\nsandbox create + exec `true` + close, median of {args.repeat} (same run, interleaved):")
    print(f"  {'docker run --rm IMAGE true':34} {base:6.3f} s   1.00x")
    for name, times in lives.items():
        median = statistics.median(times)
        print(f"  {name + ' (provider protocol)':34} {median:6.3f} s   {median / base:.2f}x")

    if args.demo:
        print("\ndemo benchmark, gold agent, -n 2 (wall time):")
        for name in providers:
            if cli(["images", str(REPO / "benchmarks" / "demo.yaml"), "--provider", name]) != 0:
                print(f"  {name}: pytest-swe images failed")
                continue
            elapsed, resolved = demo_gold(name)
            print(f"  {name:34} {elapsed:6.1f} s   resolved {resolved}/8")
    for provider in providers.values():
        provider.reap(run_id=run_id(provider.name), kept=None)
        provider.close()
    return 0


def run_id(name: str) -> str:
    """The run id of the benchmark's sandboxes on provider ``name`` (removed at the end)."""
    return f"bench-providers-{name}"


if __name__ == "__main__":
    sys.exit(main())
