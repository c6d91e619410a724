"""Collection cost on a large dataset: wall time and peak memory, printed as figures and ratios.

Generates a JSONL dataset of N rows with realistic sizes (patches, test patches and problem
statements of several KB, F2P/P2P lists), then measures, in one run on one machine:

* ``pytest --collect-only -q`` on a benchmark over it (cold index cache, then warm);
* one xdist worker collecting it (``-n 2``; every worker records its own peak RSS);
* a baseline pytest that collects nothing (alone and with ``-n 2``), and a plain script that
  loads every row, so the figures can be read as what pytest-swe adds and as ratios;
* pytest collecting N items of its own (one test function with N parameters): what pytest itself
  spends per item, which no plugin that makes N items can spend less than.

Each case runs ``--repeat`` times, interleaved, and the least of each figure is reported: load
from other processes on a shared machine only ever adds time.

Usage: python scripts/bench_collect.py [--rows 25000] [--repeat 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import string
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

RSS_CONFTEST = """
import os, resource, json, time
_start = time.monotonic()
_collect = []

_items = []

def pytest_collection(session):
    _collect.append(time.monotonic())

import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    _items.append(len(items))  # before -k deselects

def pytest_collection_finish(session):
    who = os.environ.get("PYTEST_XDIST_WORKER", "main")
    out = os.environ["BENCH_RSS_DIR"]
    now = time.monotonic()
    with open(os.path.join(out, f"{who}-{os.getpid()}.json"), "w") as fh:
        json.dump({"who": who, "items": _items[0] if _items else 0, "seconds": now - _start,
                   "collect_seconds": now - (_collect[0] if _collect else _start),
                   "max_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}, fh)
"""


def words(rng: random.Random, n: int) -> str:
    return " ".join("".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(n))


def fake_patch(rng: random.Random, files: int, lines: int) -> str:
    out = []
    for f in range(files):
        path = f"src/pkg_{rng.randint(0, 99)}/module_{f}.py"
        out += [
            f"diff --git a/{path} b/{path}",
            f"--- a/{path}",
            f"+++ b/{path}",
            f"@@ -1,{lines} +1,{lines} @@",
        ]
        for _ in range(lines):
            sign = rng.choice(" +-")
            out.append(f"{sign}    value = compute({words(rng, 6)!r})")
    return "\n".join(out) + "\n"


def make_row(i: int, rng: random.Random) -> dict:
    repo = f"org{i % 40}/project{i % 40}"
    instance_id = f"{repo.replace('/', '__')}-{10000 + i}"
    f2p = [f"tests/test_mod{i % 7}.py::test_case_{k}" for k in range(rng.randint(1, 5))]
    p2p = [f"tests/test_mod{i % 7}.py::test_other_{k}" for k in range(rng.randint(5, 60))]
    return {
        "repo": repo,
        "instance_id": instance_id,
        "base_commit": f"{rng.getrandbits(160):040x}",
        "patch": fake_patch(rng, rng.randint(1, 3), rng.randint(20, 60)),
        "test_patch": fake_patch(rng, 1, rng.randint(20, 60)),
        "problem_statement": words(rng, rng.randint(300, 900)),
        "hints_text": words(rng, rng.randint(0, 200)),
        "created_at": "2024-05-01T12:00:00Z",
        "version": "1.0",
        "FAIL_TO_PASS": json.dumps(f2p),
        "PASS_TO_PASS": json.dumps(p2p),
        "environment_setup_commit": f"{rng.getrandbits(160):040x}",
        "image": f"example/sweb.eval.x86_64.{instance_id.replace('__', '_1776_')}:latest",
        "eval_script": "#!/bin/bash\n: '>>>>> Start Test Output'\npytest -rA\n: '>>>>> End Test Output'\n",
        "log_parser": "parse_log_pytest",
        "eval_type": "pass_and_fail",
    }


# Runs a command and reports the peak RSS of its process tree: a fresh launcher per measurement,
# because RUSAGE_CHILDREN only ever grows within one process.
LAUNCHER = (
    "import resource, subprocess, sys\n"
    "rc = subprocess.run(sys.argv[1:]).returncode\n"
    "use = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print('PEAK_RSS_KB', use.ru_maxrss, file=sys.stderr)\n"
    "print('CPU_SECONDS', use.ru_utime + use.ru_stime, file=sys.stderr)\n"
    "sys.exit(rc)\n"
)


@dataclass
class Figure:
    wall: float
    cpu: float
    rss_kb: int
    last: str
    workers: list[dict]


def run(cmd: list[str], cwd: Path, env: dict[str, str], rss_dir: Path) -> Figure:
    """One measurement: wall and CPU seconds and peak RSS of the command, and what its pytest
    processes recorded (per xdist worker, its collection time and peak RSS)."""
    for old in rss_dir.glob("*.json"):
        old.unlink()
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", LAUNCHER, *cmd], cwd=cwd, env=env, capture_output=True, text=True
    )
    wall = time.monotonic() - start
    if proc.returncode not in (0, 5):
        raise SystemExit(
            f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
    marks = dict(
        line.split()[:2]
        for line in proc.stderr.splitlines()
        if line.startswith(("PEAK_RSS_KB", "CPU_SECONDS"))
    )
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    workers = [json.loads(p.read_text()) for p in sorted(rss_dir.glob("*.json"))]
    return Figure(
        wall, float(marks["CPU_SECONDS"]), int(marks["PEAK_RSS_KB"]), lines[-1] if lines else "", workers
    )


def best(figures: list[Figure]) -> Figure:
    """The least of each figure over the repeats: noise on a shared machine only ever adds."""
    return Figure(
        min(f.wall for f in figures),
        min(f.cpu for f in figures),
        min(f.rss_kb for f in figures),
        figures[-1].last,
        figures[-1].workers,
    )


def main() -> None:
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user runs it: with Python's bytecode cache
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=25_000)
    parser.add_argument("--repeat", type=int, default=3, help="measure each case N times, report the least")
    parser.add_argument("--keep", help="keep the generated project in this directory")
    args = parser.parse_args()

    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="pytest-swe-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    (root / "benchmarks").mkdir(exist_ok=True)
    data = root / "rows.jsonl"
    rng = random.Random(1234)
    with open(data, "w") as fh:
        for i in range(args.rows):
            fh.write(json.dumps(make_row(i, rng)) + "\n")
    size_mb = data.stat().st_size / 1e6
    (root / "benchmarks" / "big.yaml").write_text(f"name: big\nfamily: swe-bench\ndataset: {data}\n")
    (root / "conftest.py").write_text(textwrap.dedent(RSS_CONFTEST))
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "empty").mkdir(exist_ok=True)
    (root / "plain").mkdir(exist_ok=True)
    (root / "plain" / "test_plain.py").write_text(
        f"import pytest\n\n@pytest.mark.parametrize('n', range({args.rows}))\ndef test_row(n):\n    pass\n"
    )
    rss_dir = root / "rss"
    rss_dir.mkdir(exist_ok=True)
    cache = root / "cache"
    env = {**os.environ, "PYTEST_SWE_CACHE": str(cache), "BENCH_RSS_DIR": str(rss_dir)}
    base = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]
    naive_code = f"import json; rows=[json.loads(l) for l in open({str(data)!r})]; print(len(rows))"
    cases = {
        "baseline: pytest collecting nothing": ([*base, "--collect-only", "empty"], False),
        "collect-only, cold index cache": ([*base, "--collect-only", "benchmarks/"], True),
        "collect-only, warm index cache": ([*base, "--collect-only", "benchmarks/"], False),
        "-n 2, baseline (nothing to collect)": ([*base, "-n", "2", "empty"], False),
        "-n 2 (workers collect, nothing selected)": (
            [*base, "-n", "2", "benchmarks/", "-k", "no_such_instance_zzz"],
            False,
        ),
        "plain script: json-load every row": ([sys.executable, "-c", naive_code], False),
        "pytest's own items: one test, N parameters": ([*base, "--collect-only", "plain"], False),
    }
    figures: dict[str, list[Figure]] = {name: [] for name in cases}
    for _ in range(args.repeat):  # interleaved, so a burst of load hits every case alike
        for name, (cmd, cold) in cases.items():
            if cold:
                shutil.rmtree(cache / "index", ignore_errors=True)
            figures[name].append(run(cmd, root, env, rss_dir))

    print(f"dataset: {args.rows} rows, {size_mb:.1f} MB ({size_mb * 1e3 / args.rows:.1f} KB per row)")
    print(f"least of {args.repeat} interleaved runs of each:")
    got = {name: best(f) for name, f in figures.items()}
    for name, fig in got.items():
        print(
            f"{name:<44} wall {fig.wall:6.2f} s  cpu {fig.cpu:6.2f} s  peak RSS {fig.rss_kb / 1024:6.1f} MB  ({fig.last})"
        )

    b, cold, warm = (
        got["baseline: pytest collecting nothing"],
        got["collect-only, cold index cache"],
        got["collect-only, warm index cache"],
    )
    nb, workers = got["-n 2, baseline (nothing to collect)"], got["-n 2 (workers collect, nothing selected)"]
    naive = got["plain script: json-load every row"]
    plain = got["pytest's own items: one test, N parameters"]
    items = cold.workers[0]["items"] if cold.workers else 0
    print()
    print(f"items collected: {items}")
    for w in workers.workers:
        print(
            f"xdist worker {w['who']}: {w['items']} items, collection {w['collect_seconds']:.2f} s, peak RSS {w['max_rss_kb'] / 1024:.1f} MB"
        )
    worker_rss = max((w["max_rss_kb"] for w in workers.workers), default=0)
    worker_collect = max((w["collect_seconds"] for w in workers.workers), default=0.0)
    base_worker_rss = max((w["max_rss_kb"] for w in nb.workers), default=0)
    print()
    print("what pytest-swe adds above pytest collecting nothing (same run; target: <= 1 s, <= 100 MB):")
    print(
        f"  cold: wall +{cold.wall - b.wall:5.2f} s   cpu +{cold.cpu - b.cpu:5.2f} s   RSS +{(cold.rss_kb - b.rss_kb) / 1024:5.1f} MB"
    )
    print(
        f"  warm: wall +{warm.wall - b.wall:5.2f} s   cpu +{warm.cpu - b.cpu:5.2f} s   RSS +{(warm.rss_kb - b.rss_kb) / 1024:5.1f} MB"
    )
    print(
        f"  -n 2: wall +{workers.wall - nb.wall:5.2f} s (the slower worker collects in {worker_collect:.2f} s)"
        f"   worker RSS +{(worker_rss - base_worker_rss) / 1024:5.1f} MB"
    )
    print()
    print("ratios (same run, same machine):")
    print(
        f"  collect-only RSS above baseline / dataset size     {(cold.rss_kb - b.rss_kb) / 1024 / size_mb:5.2f}"
    )
    print(
        f"  collect-only RSS above baseline / json-load-all RSS above baseline "
        f"{(cold.rss_kb - b.rss_kb) / max(naive.rss_kb - b.rss_kb, 1):5.2f}"
    )
    print(f"  warm / cold collection wall time                   {warm.wall / cold.wall:5.2f}")
    print(f"  collect-only cold wall / baseline wall             {cold.wall / b.wall:5.2f}")
    print(
        f"  per item: {1e3 * (warm.wall - b.wall) / max(items, 1):.3f} ms, "
        f"{(warm.rss_kb - b.rss_kb) / max(items, 1):.2f} KB above baseline"
    )
    print(f"  json-load-all wall / collect-only cold wall        {naive.wall / cold.wall:5.2f}")
    print(
        f"  pytest's own {args.rows} parametrized items above baseline: wall +{plain.wall - b.wall:5.2f} s; "
        f"pytest-swe's warm collection / that: {(warm.wall - b.wall) / max(plain.wall - b.wall, 1e-9):4.2f}"
    )
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
