"""Every option on the command line (group ``swe``) and as an ini key of the same name.

The ini key is the option without its leading dashes, dashes as underscores
(``--swe-provider`` -> ``swe_provider``). The command line wins over the ini file;
``--swe-set`` items from both are applied, ini first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from typing import Literal

import pytest

DEFAULT_BENCHMARK_FILES = ["benchmarks/*.yaml", "benchmarks/*.yml"]


@dataclass(frozen=True)
class Option:
    flag: str
    help: str
    kind: str = "string"  # string | int | bool | list
    metavar: str | None = None
    default: Any = None

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


OPTIONS: tuple[Option, ...] = (
    Option(
        "--swe-agent",
        "agent for every item: gold, empty, predictions, ... (default: the benchmark's)",
        metavar="NAME",
    ),
    Option(
        "--swe-predictions",
        "predictions file for the predictions agent (.json, .jsonl, preds.json)",
        metavar="FILE",
    ),
    Option(
        "--swe-predictions-duplicates",
        "an instance id given more than once in the predictions file: error (default), or the first or last counts",
        metavar="error|first|last",
    ),
    Option("--swe-provider", "sandbox provider for every item (default: the benchmark's)", metavar="NAME"),
    Option(
        "--swe-set", "OmegaConf dotlist override of the benchmark config, repeatable", "list", "KEY=VALUE", []
    ),
    Option("--swe-config", "an extra config file merged over every benchmark file", metavar="FILE"),
    Option("--swe-run-dir", "where artifacts and the ledger go (default: swe-runs/<run id>)", metavar="DIR"),
    Option("--swe-resume", "resume an interrupted run from its run directory", metavar="DIR"),
    Option("--swe-retries", "retry items that ended in an infrastructure error N times", "int", "N", 0),
    Option(
        "--swe-shard",
        "run only shard I of N (1 <= I <= N), deterministic by benchmark and instance id",
        metavar="I/N",
    ),
    Option(
        "--swe-cache",
        "verdict cache directory: an evaluation whose inputs were graded before is re-emitted "
        "without a sandbox (default: $PYTEST_SWE_VERDICT_CACHE, else <pytest-swe cache>/verdicts)",
        metavar="DIR",
    ),
    Option("--swe-no-cache", "neither read nor write the verdict cache", "bool", default=False),
    Option(
        "--swe-image-budget",
        "keep the images of the run's items within SIZE (e.g. 100G): an image no remaining item needs "
        "is removed while they exceed it",
        metavar="SIZE",
    ),
    Option("--swe-keep", "keep sandboxes after each item and print how to enter them", "bool", default=False),
    Option(
        "--swe-strict-datasets",
        "a benchmark whose dataset cannot be loaded is a collection error, not a skip",
        "bool",
        default=False,
    ),
    Option(
        "--swe-progress",
        "the live status line: auto (redrawn on a terminal, a line every N items otherwise), live, lines, none",
        metavar="auto|live|lines|none",
    ),
    Option(
        "--swe-progress-every",
        "print the status line every N finished items when it is not redrawn in place",
        "int",
        "N",
        10,
    ),
    Option(
        "--swe-html",
        "write a self-contained HTML report of the run (plots, items, patches, logs, trajectories) to FILE",
        metavar="FILE",
    ),
    Option(
        "--swe-benchmark-files",
        "glob patterns of benchmark files to collect (besides files named on the command line)",
        "list",
        "GLOB",
        DEFAULT_BENCHMARK_FILES,
    ),
)

_INI_TYPES: dict[str, Literal["string", "bool", "linelist"]] = {
    "string": "string",
    "int": "string",
    "bool": "bool",
    "list": "linelist",
}


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("swe", "pytest-swe: SWE benchmark harness")
    for opt in OPTIONS:
        kwargs: dict[str, Any] = {"dest": opt.dest, "help": f"{opt.help} [ini: {opt.dest}]"}
        if opt.kind == "bool":
            kwargs.update(action="store_true", default=None)
        elif opt.kind == "list":
            kwargs.update(action="append", default=None, metavar=opt.metavar)
        else:
            kwargs.update(default=None, metavar=opt.metavar)
            if opt.kind == "int":
                kwargs["type"] = int
        group.addoption(opt.flag, **kwargs)
        parser.addini(opt.dest, opt.help, type=_INI_TYPES[opt.kind], default=opt.default)


def get(config: pytest.Config, flag: str) -> Any:
    """The effective value of an option: command line, else ini, else default."""
    opt = next(o for o in OPTIONS if o.flag == flag)
    cli = config.getoption(opt.dest, None)
    ini = config.getini(opt.dest)
    if opt.kind == "list":
        if opt.flag == "--swe-set":
            return [*(ini or []), *(cli or [])]
        return list(cli) if cli else list(ini or opt.default)
    if cli is not None:
        return cli
    if opt.kind == "bool":
        return bool(ini)
    if opt.kind == "int":
        if ini in (None, ""):
            return opt.default
        try:
            return int(ini)
        except ValueError:
            raise pytest.UsageError(f"ini key {opt.dest} = {ini!r}: expected an integer") from None
    return ini or None


def parse_shard(value: str | None) -> tuple[int, int] | None:
    """``I/N`` -> (I, N), 1-based; a clear error for anything else."""
    if not value:
        return None
    try:
        index, total = (int(part) for part in value.split("/"))
    except ValueError:
        raise pytest.UsageError(f"--swe-shard {value!r}: expected I/N, e.g. 1/4") from None
    if total < 1 or not 1 <= index <= total:
        raise pytest.UsageError(f"--swe-shard {value!r}: I must be between 1 and N (shards are 1-based)")
    return index, total
