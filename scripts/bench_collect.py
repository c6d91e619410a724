"""Collection cost on a large dataset: wall time and peak memory, printed as figures and ratios.

Generates a JSONL dataset of N rows with realistic sizes (patches, test patches and problem
statements of several KB, F2P/P2P lists), then measures, in one run on one machine:

* ``pytest --collect-only -q`` on a benchmark over it (cold index cache, then warm);
* one xdist worker collecting it (``-n 2``; every worker records its own peak RSS);
* a baseline pytest that collects nothing, and a plain script that loads every row,
  so the figures can be read as ratios rather than absolute numbers on a noisy machine.

Usage: python scripts/bench_collect.py [--rows 25000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import string
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

RSS_CONFTEST = """
import os, resource, json, time
_start = time.monotonic()

def pytest_collection_finish(session):
    who = os.environ.get("PYTEST_XDIST_WORKER", "main")
    out = os.environ["BENCH_RSS_DIR"]
    with open(os.path.join(out, f"{who}-{os.getpid()}.json"), "w") as fh:
        json.dump({"who": who, "items": session.testscollected, "seconds": time.monotonic() - _start,
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
    "print('PEAK_RSS_KB', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(rc)\n"
)


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int, str]:
    """Wall seconds, peak RSS (KB) of the command's largest process, and the last output line."""
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", LAUNCHER, *cmd], cwd=cwd, env=env, capture_output=True, text=True
    )
    wall = time.monotonic() - start
    peak = int(next(line.split()[1] for line in proc.stderr.splitlines() if line.startswith("PEAK_RSS_KB")))
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    if proc.returncode not in (0, 5):
        raise SystemExit(
            f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
    return wall, peak, lines[-1] if lines else ""


def worker_figures(rss_dir: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(rss_dir.glob("*.json"))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=25_000)
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

    env = {**os.environ, "PYTEST_SWE_CACHE": str(root / "cache"), "BENCH_RSS_DIR": str(root / "rss")}
    base = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]

    def measure(label: str, cmd: list[str]) -> tuple[float, int, list[dict]]:
        rss_dir = root / "rss"
        for p in rss_dir.glob("*.json") if rss_dir.exists() else []:
            p.unlink()
        rss_dir.mkdir(exist_ok=True)
        wall, peak, last = run(cmd, root, env)
        print(f"{label:<46} wall {wall:7.2f} s   peak RSS {peak / 1024:7.1f} MB   ({last})")
        return wall, peak, worker_figures(rss_dir)

    print(f"dataset: {args.rows} rows, {size_mb:.1f} MB ({size_mb * 1e3 / args.rows:.1f} KB per row)")
    base_wall, base_rss, _ = measure(
        "baseline: pytest collecting nothing", [*base, "--collect-only", "empty"]
    )
    cold_wall, cold_rss, cold = measure(
        "collect-only, cold index cache", [*base, "--collect-only", "benchmarks/"]
    )
    warm_wall, warm_rss, _ = measure(
        "collect-only, warm index cache", [*base, "--collect-only", "benchmarks/"]
    )
    _, _, workers = measure(
        "-n 2 (workers collect, nothing selected)",
        [*base, "-n", "2", "benchmarks/", "-k", "no_such_instance_zzz"],
    )
    naive_code = f"import json; rows=[json.loads(l) for l in open({str(data)!r})]; print(len(rows))"
    naive_wall, naive_rss, _ = measure(
        "plain script: json-load every row", [sys.executable, "-c", naive_code]
    )

    items = cold[0]["items"] if cold else 0
    print()
    print(f"items collected: {items}")
    for w in workers:
        print(
            f"xdist worker {w['who']}: {w['items']} items, collection {w['seconds']:.2f} s, peak RSS {w['max_rss_kb'] / 1024:.1f} MB"
        )
    worker_rss = max((w["max_rss_kb"] for w in workers), default=0)
    print()
    print("ratios (same run, same machine):")
    print(f"  collect-only peak RSS / baseline pytest RSS        {cold_rss / base_rss:5.2f}")
    print(
        f"  collect-only RSS above baseline / dataset size     {(cold_rss - base_rss) / 1024 / size_mb:5.2f}"
    )
    print(
        f"  collect-only RSS above baseline / json-load-all RSS above baseline "
        f"{(cold_rss - base_rss) / max(naive_rss - base_rss, 1):5.2f}"
    )
    print(f"  xdist worker peak RSS / collect-only peak RSS      {worker_rss / cold_rss:5.2f}")
    print(f"  warm / cold collection wall time                   {warm_wall / cold_wall:5.2f}")
    print(f"  collect-only wall / baseline wall                  {cold_wall / base_wall:5.2f}")
    print(
        f"  per item: {1e3 * (warm_wall - base_wall) / max(items, 1):.3f} ms, "
        f"{(warm_rss - base_rss) / max(items, 1):.2f} KB above baseline"
    )
    print(f"  json-load-all wall / collect-only cold wall        {naive_wall / cold_wall:5.2f}")
    if not args.keep:
        import shutil

        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
