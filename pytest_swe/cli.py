"""The ``pytest-swe`` command: reports from JUnit ledgers, sandbox reaping, image building."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pytest_swe import report


def _cmd_report(args: argparse.Namespace) -> int:
    cases: list[report.Case] = []
    for path in args.files:
        try:
            cases += report.read_cases(Path(path))
        except Exception as exc:
            print(f"pytest-swe report: cannot read {path}: {exc}", file=sys.stderr)
            return 2
    if not cases:
        print("pytest-swe report: no pytest-swe testcases (with a 'reward' property) found", file=sys.stderr)
        return 1
    summary = report.summarize(cases, by=args.by)
    if args.json:
        print(json.dumps(summary, indent=2, sort_keys=True))
        return 0
    print(report.format_stats("overall", summary["overall"]))
    for name, stats in summary.get(f"by_{args.by}", {}).items():
        print(report.format_stats(f"  {name}", stats))
    return 0


def _docker_provider(host: str | None) -> Any:
    from pytest_swe.providers.docker import DockerProvider
    from pytest_swe.providers.docker import this_run

    return DockerProvider({"name": "docker", **({"host": host} if host else {})}, this_run())


def _cmd_reap(args: argparse.Namespace) -> int:
    provider = _docker_provider(args.host)
    try:
        removed = provider.reap(run_id=args.run) if args.all or args.run else provider.reap(orphans=True)
    except Exception as exc:
        print(f"pytest-swe reap: {exc}", file=sys.stderr)
        return 2
    print(f"removed {len(removed)} sandbox(es)" + (": " + " ".join(removed) if removed else ""))
    return 0


def _load_benchmark(path: str) -> tuple[Any, Any, list[dict[str, Any]]]:
    """Settings, family and rows of a local benchmark file, outside pytest."""
    import pluggy

    from pytest_swe import hookspecs
    from pytest_swe.config import load_benchmark
    from pytest_swe.dataset import open_local
    from pytest_swe.errors import ConfigError
    from pytest_swe.registry import Catalog

    settings = load_benchmark(Path(path))
    pm = pluggy.PluginManager("pytest")
    pm.add_hookspecs(hookspecs)
    import importlib

    from pytest_swe.plugin import builtin_plugin_modules

    for name in builtin_plugin_modules():
        if name.startswith("pytest_swe.families."):
            pm.register(importlib.import_module(name), name)
    pm.load_setuptools_entrypoints("pytest_swe")
    families = Catalog("family", [f for result in pm.hook.pytest_swe_families() for f in result or []])
    family = families.get(settings.family, where=path)
    if not settings.dataset_is_local:
        raise ConfigError(f"{path}: images can be built only for local datasets")
    custom = family.row_id if family.id_fields[0] != "instance_id" else None
    index = open_local(Path(settings.dataset.source), id_fields=family.id_fields, id_of=custom)
    rows = [index.load_row(ref.locator) for ref in index.refs()]
    return settings, family, rows


def _benchmark_paths(args: list[str]) -> list[Path]:
    """Benchmark files named directly, plus the ones in named directories (not ``_`` bases)."""
    paths: list[Path] = []
    for arg in args:
        path = Path(arg)
        if path.is_dir():
            paths += sorted(p for p in path.glob("*.y*ml") if not p.name.startswith("_"))
        else:
            paths.append(path)
    return paths


def _cmd_images(args: argparse.Namespace) -> int:
    import docker

    from pytest_swe import images
    from pytest_swe.errors import SweError

    try:
        client = docker.from_env(timeout=600)
        client.ping()
    except Exception as exc:
        print(f"pytest-swe images: cannot reach the Docker daemon: {exc}", file=sys.stderr)
        return 2
    try:
        images.build_base(client, args.base_tag, force=args.force_base)
        from pytest_swe.config import load_benchmark

        for path in _benchmark_paths(args.benchmarks):
            if load_benchmark(path).build is None:
                if path not in map(Path, args.benchmarks):
                    continue  # found in a directory: not every benchmark builds locally
                print(f"{path}: no 'build' section, nothing to build")
                continue
            settings, family, rows = _load_benchmark(str(path))
            built = images.build_benchmark_images(client, settings, family, rows, force=args.force)
            print(f"{settings.name}: {len(built)} image(s) built, {len(rows)} row(s)")
    except SweError as exc:
        print(f"pytest-swe images: {exc}", file=sys.stderr)
        return 2
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pytest-swe", description="pytest-swe: SWE benchmark harness tools")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("report", help="resolved rates from JUnit reward ledgers")
    p.add_argument("files", nargs="+", help="JUnit XML files written with --junitxml")
    p.add_argument("--by", default="family", help="group by this property (family, benchmark, repo, agent, ...)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_cmd_report)

    p = sub.add_parser("reap", help="remove orphaned pytest-swe sandboxes (owner gone or past their ttl)")
    p.add_argument("--run", help="remove every sandbox of this run id instead")
    p.add_argument("--all", action="store_true", help="remove every pytest-swe sandbox (with --run: of that run)")
    p.add_argument("--host", help="Docker host (default: DOCKER_HOST or the local socket)")
    p.set_defaults(func=_cmd_reap)

    p = sub.add_parser("images", help="build the base image and the images of local benchmarks")
    p.add_argument(
        "benchmarks", nargs="*", help="benchmark files (or directories of them) whose 'build' section says how to build"
    )
    p.add_argument("--force", action="store_true", help="rebuild the benchmarks' images even if present")
    p.add_argument("--force-base", action="store_true", help="rebuild the base image even if present")
    p.add_argument("--base-tag", default=None, help="base image tag (default: PYTEST_SWE_BASE_IMAGE or pytest-swe/base:bookworm)")
    p.set_defaults(func=_cmd_images)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "base_tag", "unset") is None:
        from pytest_swe.images import BASE_IMAGE

        args.base_tag = BASE_IMAGE
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
