"""The ``pytest-swe`` command: reports from ledgers, sandbox reaping, image building, provider checks."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from pytest_swe.api.sandbox import Provider
from pytest_swe.tools import report


def _cmd_report(args: argparse.Namespace) -> int:
    cases: list[report.Case] = []
    for path in args.files:
        try:
            cases += report.read_cases(Path(path))
        except report.LEDGER_ERRORS as exc:
            print(f"pytest-swe report: cannot read {report.describe_error(path, exc)}", file=sys.stderr)
            return 2
    if not cases:
        print("pytest-swe report: no pytest-swe testcases (with a 'reward' property) found", file=sys.stderr)
        return 1
    cases, dropped = report.unique_cases(cases)  # an instance in several files (shards, retries) counts once
    if dropped:
        print(
            f"pytest-swe report: {len(dropped)} instance(s) found more than once; counted once "
            "(a graded outcome beats an error, an error beats a skip, later files win ties)",
            file=sys.stderr,
        )
    summary = report.summarize(cases, by=args.by)
    if args.json:
        print(json.dumps(summary, indent=2, sort_keys=True))
        return 0
    print(report.format_stats("overall", summary["overall"]))
    for name, stats in summary.get(f"by_{args.by}", {}).items():
        print(report.format_stats(f"  {name}", stats))
    return 0


def _provider(name: str, host: str | None, options: list[str] | None = None) -> Provider:
    """The provider ``name`` from the plugins' ``pytest_swe_providers`` hook, as a run builds it;
    ``options`` are ``KEY=VALUE`` settings of its ``provider`` section (``namespace=swe``)."""
    from pytest_swe.api.errors import ConfigError
    from pytest_swe.api.sandbox import this_run
    from pytest_swe.runner.registry import Registry
    from pytest_swe.runner.registry import plugin_manager_for_tools

    settings: dict[str, object] = {"name": name, **({"host": host} if host else {})}
    for option in options or []:
        key, sep, value = option.partition("=")
        if not sep or not key:
            raise ConfigError(f"--provider-option {option!r}: expected KEY=VALUE")
        settings[key] = value
    factory = Registry(plugin_manager_for_tools()).providers.get(name)
    return factory(settings, this_run())


def _cmd_reap(args: argparse.Namespace) -> int:
    try:
        provider = _provider(args.provider, args.host, args.provider_option)
        if args.all:
            removed = provider.reap(run_id=args.run, kept=None)
        elif args.kept:
            removed = provider.reap(run_id=args.run, kept=True)
        elif args.run:
            removed = provider.reap(run_id=args.run)
        else:
            removed = provider.reap(orphans=True)
    except Exception as exc:  # any provider plugin's failure: reported in one line, not a traceback
        print(f"pytest-swe reap: {exc}", file=sys.stderr)
        return 2
    print(f"removed {len(removed)} sandbox(es)" + (": " + " ".join(removed) if removed else ""))
    return 0


def provider_status(name: str, timeout: float = 10.0) -> tuple[bool, str]:
    """Whether provider ``name`` works on this machine, and what it runs on or why it does not."""
    from pytest_swe.api.sandbox import Preflight
    from pytest_swe.api.sandbox import Versioned

    try:
        provider = _provider(name, None)
    except Exception as exc:  # any provider plugin's failure: reported in its line
        return False, f"cannot be built: {exc}"
    try:
        if isinstance(provider, Preflight):
            provider.preflight(timeout=timeout)
        version = provider.version() if isinstance(provider, Versioned) else "no version reported"
        return True, version
    except Exception as exc:  # the reason this provider cannot work here, whatever raised it
        return False, str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    finally:
        provider.close()


def _cmd_doctor(args: argparse.Namespace) -> int:
    from pytest_swe.runner.registry import Registry
    from pytest_swe.runner.registry import plugin_manager_for_tools

    names = args.provider or sorted(Registry(plugin_manager_for_tools()).providers)
    working = 0
    for name in names:
        ok, detail = provider_status(name)
        working += ok
        print(f"{name}: {'works' if ok else 'unavailable'}: {detail}")
    return 0 if working else 1


def _load_benchmark(path: str) -> tuple[Any, Any, list[dict[str, Any]]]:
    """Settings, family and rows of a local benchmark file, outside pytest."""
    from pytest_swe.api.errors import ConfigError
    from pytest_swe.runner.config import load_benchmark
    from pytest_swe.runner.dataset import open_local
    from pytest_swe.runner.registry import Registry
    from pytest_swe.runner.registry import plugin_manager_for_tools

    settings = load_benchmark(Path(path))
    family = Registry(plugin_manager_for_tools()).families.get(settings.family, where=path)
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


IMAGE_ACTIONS = ("build", "pull", "check", "prune")


def _selection_args(args: argparse.Namespace, benchmarks: list[str]) -> list[str]:
    out = list(benchmarks)
    if args.keyword:
        out += ["-k", args.keyword]
    if args.marker:
        out += ["-m", args.marker]
    for item in args.swe_set or []:
        out += ["--swe-set", item]
    return out


def _selected_providers(selection: Any) -> list[tuple[Any, Any, dict[str, str]]]:
    """Each provider of a selection (built as a run builds it), its settings and its items' images."""
    from pytest_swe.api.sandbox import this_run
    from pytest_swe.runner.registry import Registry
    from pytest_swe.runner.registry import plugin_manager_for_tools

    registry = Registry(plugin_manager_for_tools())
    out = []
    for settings, needs in selection.groups.values():
        factory = registry.providers.get(settings.provider.name)
        out.append((factory(settings.provider.model_dump(), this_run()), settings, needs))
    return out


def _cmd_image_selection(args: argparse.Namespace, action: str, benchmarks: list[str]) -> int:
    """``pytest-swe images pull|check|prune``: the images of a run's selection of items."""
    from pytest_swe.api.sandbox import ImageBuilder
    from pytest_swe.api.sandbox import ImageStore
    from pytest_swe.runner import images as runimages
    from pytest_swe.tools import images

    selection = images.select_images(_selection_args(args, benchmarks))
    if not selection.groups:
        print("no item selected")
        return 0
    status = 0
    for provider, settings, needs in _selected_providers(selection):
        if not isinstance(provider, ImageBuilder):
            print(f"provider {settings.provider.name!r} cannot tell which images it has", file=sys.stderr)
            return 2
        wanted = list(dict.fromkeys(needs.values()))
        if action == "prune":
            if not isinstance(provider, ImageStore):
                print(f"provider {settings.provider.name!r} cannot remove images", file=sys.stderr)
                return 2
            every = images.select_images(
                _selection_args(
                    argparse.Namespace(keyword=None, marker=None, swe_set=args.swe_set), benchmarks
                )
            )
            universe = [img for s, n in every.groups.values() for img in n.values()]
            here = set(provider.image_sizes())
            present = [img for img in dict.fromkeys(universe) if runimages.local_name(img) in here]
            removed = runimages.prune(provider, present, wanted)
            print(
                f"removed {len(removed)} image(s) no selected item needs"
                + "".join(f"\n  {t}" for t in removed)
            )
            continue
        absent = runimages.missing(provider, wanted)
        if action == "check":
            print(f"{len(wanted)} image(s) for {len(needs)} item(s): {len(absent)} missing")
            for tag in absent:
                print(f"  missing {tag}")
            status = status or (1 if absent else 0)
            continue
        failed = runimages.fetch_all(
            provider, absent, runimages.mirrors_of(settings), parallel=args.parallel, attempts=args.attempts
        )
        print(
            f"{len(wanted)} image(s) for {len(needs)} item(s): {len(absent) - len(failed)} pulled, {len(failed)} failed"
        )
        for tag, why in failed.items():
            print(f"  failed {tag}: {why}")
        status = status or (1 if failed else 0)
    return status


def _cmd_images(args: argparse.Namespace) -> int:
    from pytest_swe.api.errors import SweError
    from pytest_swe.api.sandbox import ImageBuilder
    from pytest_swe.tools import images

    if args.benchmarks and args.benchmarks[0] in IMAGE_ACTIONS and args.benchmarks[0] != "build":
        try:
            return _cmd_image_selection(args, args.benchmarks[0], args.benchmarks[1:])
        except SweError as exc:
            print(f"pytest-swe images: {exc}", file=sys.stderr)
            return 2
    if args.benchmarks and args.benchmarks[0] == "build":
        args.benchmarks = args.benchmarks[1:]
    try:
        builder = _provider(args.provider, args.host)
        if not isinstance(builder, ImageBuilder):
            print(f"pytest-swe images: provider {args.provider!r} cannot build images", file=sys.stderr)
            return 2
        images.build_base(builder, args.base_tag, force=args.force_base)
        from pytest_swe.runner.config import load_benchmark

        for path in _benchmark_paths(args.benchmarks):
            if load_benchmark(path).build is None:
                if path not in map(Path, args.benchmarks):
                    continue  # found in a directory: not every benchmark builds locally
                print(f"{path}: no 'build' section, nothing to build")
                continue
            settings, family, rows = _load_benchmark(str(path))
            built = images.build_benchmark_images(builder, settings, family, rows, force=args.force)
            print(f"{settings.name}: {len(built)} image(s) built, {len(rows)} row(s)")
    except SweError as exc:
        print(f"pytest-swe images: {exc}", file=sys.stderr)
        return 2
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from pytest_swe.api.errors import SweError
    from pytest_swe.tools import export

    # ExportError, a bad ledger, a report file not written:
    failures: tuple[type[Exception], ...] = (SweError, *report.LEDGER_ERRORS)

    try:
        data = export.build_export(
            [Path(f) for f in args.files], model=args.model, run_id=args.run_id, benchmark=args.benchmark
        )
        run = export.run_report(data)
        if args.logs:
            written = export.write_instance_logs(data, Path(args.logs))
            print(
                f"wrote {len(written)} per-instance report(s) under {Path(args.logs) / 'run_evaluation' / data.run_id}"
            )
        if args.predictions:
            rows = export.predictions(data)
            Path(args.predictions).write_text("".join(json.dumps(row) + "\n" for row in rows))
            print(f"wrote {len(rows)} prediction(s) to {args.predictions}")
    except BrokenPipeError:
        raise
    except failures as exc:
        print(f"pytest-swe export: {exc}", file=sys.stderr)
        return 2
    for warning in data.warnings:
        print(f"pytest-swe export: warning: {warning}", file=sys.stderr)
    output = Path(args.output or export.report_file_name(data))
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(run, indent=4) + "\n")
    print("\n".join(export.summary_lines(run)))
    print(f"Report written to {output}")
    return 0


def _cmd_diff(args: argparse.Namespace) -> int:
    from pytest_swe.tools import ledger_tools

    sides = []
    for path in (args.a, args.b):
        try:
            sides.append(report.read_cases(Path(path)))
        except report.LEDGER_ERRORS as exc:
            print(f"pytest-swe diff: cannot read {report.describe_error(path, exc)}", file=sys.stderr)
            return 2
    a_cases, b_cases = sides
    diff = ledger_tools.diff_cases(a_cases, b_cases, a_name=args.a, b_name=args.b)
    if args.json:
        print(json.dumps(diff.as_dict(), indent=2, sort_keys=True))
    else:
        print("\n".join(ledger_tools.format_diff(diff)))
    return 1 if diff.flips else 0


def _cmd_merge(args: argparse.Namespace) -> int:
    from pytest_swe.tools import ledger_tools

    try:
        result = ledger_tools.merge_ledgers([Path(f) for f in args.inputs], Path(args.output))
    except report.LEDGER_ERRORS as exc:  # the output not written is an OSError too
        print(f"pytest-swe merge: {exc}", file=sys.stderr)
        return 2
    for kept, dropped in result.replaced:
        print(
            f"duplicate {kept.properties.get('benchmark', '')}/{kept.instance_id}: kept {kept.outcome}, "
            f"dropped {dropped.outcome}",
            file=sys.stderr,
        )
    for name, values in result.conflicting_properties.items():
        print(f"suite property {name} differs between inputs: {', '.join(values)} (joined)", file=sys.stderr)
    extra = f" and {result.other_testcases} other testcase(s)" if result.other_testcases else ""
    print(
        f"merged {len(args.inputs)} ledger(s) into {args.output}: {result.cases} instance(s){extra}, "
        f"{len(result.replaced)} duplicate(s) settled"
    )
    return 0


def _cmd_regrade(args: argparse.Namespace) -> int:
    from pytest_swe.api.errors import SweError
    from pytest_swe.runner.ledger import LEDGER_NAME
    from pytest_swe.runner.registry import Registry
    from pytest_swe.runner.registry import plugin_manager_for_tools
    from pytest_swe.tools import regrade

    run_dir = Path(args.run_dir).resolve()
    output = Path(args.output).resolve() if args.output else regrade.default_output(run_dir)
    try:
        result = regrade.regrade_run(run_dir, output, Registry(plugin_manager_for_tools()))
    except (SweError, OSError) as exc:
        print(f"pytest-swe regrade: {exc}", file=sys.stderr)
        return 2
    for family, why in sorted(result.cannot.items()):
        print(f"cannot regrade family {family}: {why}", file=sys.stderr)
    for line in result.changed:
        print(f"changed {line}")
    counts = result.counts
    print(
        f"regraded {counts['regraded']} item(s) ({counts['changed']} changed), kept {counts['kept']} as they were; "
        f"ledger {output / LEDGER_NAME}, JUnit {output / regrade.JUNIT_NAME}"
    )
    return 0


def _cmd_slurm(args: argparse.Namespace) -> int:
    import time

    from pytest_swe.api.errors import SweError
    from pytest_swe.tools import slurm

    directory = Path(args.dir or Path("swe-slurm") / time.strftime("%Y%m%d-%H%M%S"))
    try:
        plan = slurm.SlurmPlan(
            benchmarks=args.benchmarks,
            shards=args.shards,
            directory=directory,
            workdir=Path.cwd(),
            pytest_args=list(args.pytest_args),
            provider=args.provider,
            python=args.python,
            job_name=args.job_name,
            sbatch_args=list(args.sbatch_arg),
            shard_args=list(args.shard_arg),
        )
        if args.dry_run:
            print(slurm.dry_run(plan, sbatch=args.sbatch, wait=args.wait), end="")
            return 0
        done = slurm.submit(plan, sbatch=args.sbatch, wait=args.wait)
    except SweError as exc:
        print(f"pytest-swe slurm: {exc}", file=sys.stderr)
        return 2
    if done.shards:
        print(
            f"submitted shard(s) {slurm.array_spec(done.shards)} of {plan.shards} as array job {done.array_job}"
        )
    else:
        print(f"every shard of {plan.directory} has finished: merging only")
    print(f"merge job {done.merge_job} writes {plan.merged}")
    print(f"to resume: pytest-swe slurm ... --dir {plan.directory} (the same benchmarks and --shards)")
    return done.merge_status or 0


def _cmd_html(args: argparse.Namespace) -> int:
    from pytest_swe.tools import html

    try:
        written = html.write_report(
            [Path(f) for f in args.files], Path(args.output), title=args.title, labels=args.label
        )
    except report.LEDGER_ERRORS as exc:  # the output not written is an OSError too
        print(f"pytest-swe html: {exc}", file=sys.stderr)
        return 2
    if not written.items:
        print("pytest-swe html: no pytest-swe testcases (with a 'reward' property) found", file=sys.stderr)
    print(f"wrote {written.path}: {written.items} item(s) of {written.runs} run(s), {written.bytes} bytes")
    return 0 if written.items else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pytest-swe", description="pytest-swe: SWE benchmark harness tools")
    sub = parser.add_subparsers(dest="command", required=True)

    ledgers = "JUnit XML files (--junitxml), ledger.jsonl files or run directories"
    p = sub.add_parser("report", help="resolved rates from ledgers")
    p.add_argument("files", nargs="+", help=ledgers)
    p.add_argument(
        "--by",
        default="family",
        choices=report.GROUP_BY,
        help="group by this property of the items (default: family)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_cmd_report)

    p = sub.add_parser("reap", help="remove orphaned pytest-swe sandboxes (owner gone or past their ttl)")
    p.add_argument(
        "--run", help="remove the sandboxes of this run id instead (not the kept ones: see --kept, --all)"
    )
    p.add_argument(
        "--kept",
        action="store_true",
        help="remove the sandboxes kept with --swe-keep (with --run: that run's)",
    )
    p.add_argument(
        "--all",
        action="store_true",
        help="remove every pytest-swe sandbox, kept ones too (with --run: of that run)",
    )
    p.add_argument("--provider", default="docker", help="sandbox provider (default: docker)")
    p.add_argument("--host", help="the provider's host (Docker: default DOCKER_HOST or the local socket)")
    p.add_argument(
        "--provider-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a setting of the provider section, e.g. namespace=swe or context=gke (repeatable)",
    )
    p.set_defaults(func=_cmd_reap)

    p = sub.add_parser(
        "doctor", help="which sandbox providers work on this machine, and why not (one line each)"
    )
    p.add_argument("--provider", action="append", help="check only this provider (repeatable)")
    p.set_defaults(func=_cmd_doctor)

    p = sub.add_parser(
        "images",
        help="build the base image and local benchmarks' images; pull, check or prune a selection's images",
        description="pytest-swe images [build] BENCHMARK...: build the base image and the local benchmarks' "
        "images. pytest-swe images pull|check|prune BENCHMARK... [-k EXPR] [-m EXPR]: the images of the items "
        "a run with these arguments would run: pull the missing ones, list the missing ones (exit 1 when any), "
        "or remove the images of these benchmarks that no selected item needs.",
    )
    p.add_argument(
        "benchmarks",
        nargs="*",
        help="[build|pull|check|prune] then benchmark files (or directories of them)",
    )
    p.add_argument("-k", dest="keyword", help="select items as pytest -k does (pull, check, prune)")
    p.add_argument("-m", dest="marker", help="select items as pytest -m does (pull, check, prune)")
    p.add_argument("--swe-set", action="append", help="a config override, as for a run (repeatable)")
    p.add_argument("--parallel", type=int, default=4, help="pulls at once (default: 4)")
    p.add_argument("--attempts", type=int, default=3, help="attempts per image pull (default: 3)")
    p.add_argument("--force", action="store_true", help="rebuild the benchmarks' images even if present")
    p.add_argument("--force-base", action="store_true", help="rebuild the base image even if present")
    p.add_argument(
        "--base-tag",
        default=None,
        help="base image tag (default: PYTEST_SWE_BASE_IMAGE or pytest-swe/base:bookworm)",
    )
    p.add_argument("--provider", default="docker", help="sandbox provider that builds them (default: docker)")
    p.add_argument("--host", help="the provider's host (Docker: default DOCKER_HOST or the local socket)")
    p.set_defaults(func=_cmd_images)

    p = sub.add_parser("export", help="write the official SWE-bench run report (and per-instance reports)")
    p.add_argument("files", nargs="+", help=f"{ledgers} of one model's run (shards are joined)")
    p.add_argument(
        "--format", default="swebench", choices=["swebench"], help="report format (default: swebench)"
    )
    p.add_argument(
        "-o",
        "--output",
        help="report file (default: <model>.<run id>.json, as the official harness names it)",
    )
    p.add_argument("--model", help="model name of the report (default: the ledger's model property)")
    p.add_argument("--run-id", help="run id of the report (default: the ledger's run id)")
    p.add_argument("--benchmark", help="export only this benchmark's testcases")
    p.add_argument(
        "--logs",
        metavar="DIR",
        help="also write DIR/run_evaluation/<run id>/<model>/<instance>/report.json (with the eval log, "
        "patch and eval script) in the official layout",
    )
    p.add_argument(
        "--predictions", metavar="FILE", help="also write the patches as an official predictions .jsonl"
    )
    p.set_defaults(func=_cmd_export)

    p = sub.add_parser("diff", help="instances that flipped between two ledgers (exit 1 when any did)")
    p.add_argument("a", help="ledger of run A (before): a JUnit XML file, a ledger.jsonl or a run directory")
    p.add_argument("b", help="ledger of run B (after)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_cmd_diff)

    p = sub.add_parser("merge", help="join shard ledgers into one JUnit file")
    p.add_argument("output", help="the merged JUnit XML file to write")
    p.add_argument(
        "inputs",
        nargs="+",
        help=f"{ledgers}; for an instance repeated by one agent a graded outcome beats "
        "an error, an error beats a skip, and a later file wins ties",
    )
    p.set_defaults(func=_cmd_merge)

    p = sub.add_parser(
        "regrade", help="grade a run's saved eval logs again with today's parsers and rules (no sandbox)"
    )
    p.add_argument("run_dir", help="the run directory (it holds ledger.jsonl and the items' artifacts)")
    p.add_argument(
        "-o", "--output", help="directory of the new ledger (default: RUN_DIR/regrade-<timestamp>)"
    )
    p.set_defaults(func=_cmd_regrade)

    p = sub.add_parser(
        "html", help="a self-contained HTML report of ledgers (two or more: compared, the first as baseline)"
    )
    p.add_argument("files", nargs="+", help=ledgers)
    p.add_argument(
        "-o", "--output", default="swe-report.html", help="the HTML file (default: swe-report.html)"
    )
    p.add_argument("--title", help="the page's title")
    p.add_argument(
        "--label", action="append", help="a name for each ledger, in order (default: its run id), repeatable"
    )
    p.set_defaults(func=_cmd_html)

    p = sub.add_parser(
        "slurm",
        help="submit a run as a Slurm array job of --swe-shard runs and a dependent merge job",
        description="Arguments after -- go to every shard's pytest command.",
    )
    p.add_argument("benchmarks", nargs="+", help="benchmark files (as pytest is given them)")
    p.add_argument("--shards", type=int, required=True, help="number of shards (array tasks)")
    p.add_argument(
        "--dir",
        help="directory of the shards' run directories, JUnit files, logs and merged.xml "
        "(default: swe-slurm/<timestamp>); the same --dir again resumes the unfinished shards",
    )
    p.add_argument(
        "--provider", help="the sandbox provider on the nodes, e.g. docker (default: the benchmark's)"
    )
    p.add_argument(
        "--python", default=sys.executable, help="the nodes' Python with pytest-swe (default: this one)"
    )
    p.add_argument("--job-name", default="pytest-swe", help="the jobs' name (default: pytest-swe)")
    p.add_argument(
        "--sbatch-arg",
        action="append",
        default=[],
        metavar="OPTION",
        help="an #SBATCH option of both jobs, e.g. --sbatch-arg=--partition=cpu (repeatable)",
    )
    p.add_argument(
        "--shard-arg",
        action="append",
        default=[],
        metavar="OPTION",
        help="an #SBATCH option of the array tasks only, e.g. --shard-arg=--cpus-per-task=8 (repeatable)",
    )
    p.add_argument("--sbatch", default="sbatch", help="the sbatch command (default: sbatch)")
    p.add_argument("--wait", action="store_true", help="return when the merge job ends, with its exit status")
    p.add_argument(
        "--dry-run", action="store_true", help="print the job scripts and sbatch commands; submit nothing"
    )
    p.set_defaults(func=_cmd_slurm, pytest_args=[])
    return parser


#: The exit status of a command whose reader went away (a shell's 128 + SIGPIPE).
BROKEN_PIPE_EXIT = 141


def _parse(argv: list[str] | None) -> argparse.Namespace:
    """The command's arguments; for ``slurm``, what follows ``--`` is the shards' pytest arguments."""
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["slurm"] and "--" in words:
        at = words.index("--")
        args = parser.parse_args(words[:at])
        args.pytest_args = words[at + 1 :]
        return args
    return parser.parse_args(words)


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    if getattr(args, "base_tag", "unset") is None:
        from pytest_swe.tools.images import BASE_IMAGE

        args.base_tag = BASE_IMAGE
    try:
        status = int(args.func(args))
        sys.stdout.flush()
        return status
    except BrokenPipeError:  # e.g. `pytest-swe report ... | head`: the reader has all it wanted
        _silence_stdout()
        return BROKEN_PIPE_EXIT


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
