"""What the strict policy costs an item, in a small environment and in one of real size.

An official SWE-bench image holds a conda environment of tens of thousands of files, and the
strict policy's probe looks at the site directories before and after the eval script's install
step. The demo images hold a bare Debian Python, so their figures say nothing about that. This
script builds (once) a large-environment image from a demo row's image: real wheels from the
package index (numpy, scipy, matplotlib, pandas, sympy, django, astropy, sphinx, hypothesis,
...) unpacked and compiled where an official image keeps its ``testbed`` environment (about
26,000 files, 760 MB), and a few of them where it keeps the conda base. The row's tests still run
on the image's own Python; the probe looks at every site directory either way. A second image
holds a repository of real size instead: Django's source distribution (6,809 files) committed
into the row's repository, the row's base commit moved to that commit. Then it runs the row with
the gold agent on the three images, under ``strict`` and under ``eval.policy=official``, the six
interleaved for N rounds, and prints the medians of the apply (``time_apply``), of the eval phase
(``time_script``) and of the item, and what ``strict`` adds to the eval phase on each image.

Needs the Docker engine, the demo images (``scripts/setup.sh``) and, to build the image once,
the package index (the sandboxes themselves have no network).

Usage: python scripts/bench_probe.py [--row demo__calc-1] [--rounds 5] [--rebuild] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import PYTEST  # scripts/benchutil.py, beside this script
from benchutil import pytest_env

REPO = Path(__file__).resolve().parents[1]
DEMO_ROWS = REPO / "benchmarks" / "demo" / "demo.jsonl"
WHEELS = [
    "numpy",
    "scipy",
    "matplotlib",
    "pandas",
    "sympy",
    "django",
    "hypothesis",
    "jinja2",
    "pygments",
    "sphinx",
    "requests",
    "setuptools",
    "pip",
    "wheel",
    "astropy",
    "pyyaml",
    "attrs",
    "lxml",
]
CONDA_BASE = ("requests", "urllib3", "idna", "certifi", "setuptools", "pip", "charset", "packaging", "pyyaml")
SITE_DIRS = ("/opt/miniconda3/envs/testbed/lib/python{v}/site-packages",)
CONDA_SITE = "/opt/miniconda3/lib/python{v}/site-packages"
BENCHMARK = """\
name: {name}
family: swe-bench
dataset: {{source: {rows}, split: test}}
agent: gold
provider: docker
timeouts: {{agent: 600, eval: 300}}
limits: {{memory: 2g, cpus: 1, pids: 512}}
"""


def docker(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]


def python_version(image: str) -> str:
    out = docker(
        "run",
        "--rm",
        "--network",
        "none",
        image,
        "python3",
        "-c",
        "import sys; print('%d.%d' % sys.version_info[:2])",
    )
    if out.returncode != 0:
        raise SystemExit(f"cannot run python3 in {image}: {out.stderr.strip()}")
    return out.stdout.strip()


def download_wheels(version: str) -> Path:
    cache = (
        Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
        / "pytest-swe"
        / f"bench-wheels-{version}"
    )
    if cache.is_dir() and any(cache.glob("*.whl")):
        return cache
    cache.mkdir(parents=True, exist_ok=True)
    platforms = ["manylinux2014_x86_64", "manylinux_2_17_x86_64", "manylinux_2_28_x86_64"]
    command = [sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:", "--implementation", "cp"]
    command += ["--python-version", version, "-d", str(cache), *WHEELS]
    for platform in platforms:
        command += ["--platform", platform]
    subprocess.run(command, check=True)
    return cache


def build(context: Path, name: str) -> None:
    out = docker("build", "-q", "-t", name, str(context))
    if out.returncode != 0:
        raise SystemExit(f"building {name} failed:\n{out.stderr[-2000:]}")


def build_large(base: str, name: str) -> None:
    version = python_version(base)
    wheels = download_wheels(version)
    site = " ".join(d.format(v=version) for d in SITE_DIRS)
    conda = CONDA_SITE.format(v=version)
    base_wheels = " ".join(f"/tmp/whl/{prefix}*" for prefix in CONDA_BASE)
    with tempfile.TemporaryDirectory(prefix="bench-probe-") as tmp:
        context = Path(tmp)
        (context / "whl").mkdir()
        for wheel in wheels.glob("*.whl"):
            try:
                os.link(wheel, context / "whl" / wheel.name)
            except OSError:  # another file system
                shutil.copyfile(wheel, context / "whl" / wheel.name)
        (context / "Dockerfile").write_text(
            f"FROM {base}\nCOPY whl /tmp/whl\n"
            f"RUN set -e; for d in {site}; do mkdir -p $d; "
            "for w in /tmp/whl/*.whl; do python3 -m zipfile -e $w $d; done; "
            "python3 -m compileall -q -j 0 $d >/dev/null 2>&1 || true; done; "
            f"mkdir -p {conda}; for w in {base_wheels}; do [ -f $w ] && python3 -m zipfile -e $w {conda}; done; "
            f"python3 -m compileall -q -j 0 {conda} >/dev/null 2>&1 || true; rm -rf /tmp/whl\n"
        )
        build(context, name)


def build_large_repo(base: str, name: str) -> None:
    """``base`` with Django's source distribution committed into its repository (/testbed), and a
    commit of one line on top."""
    with tempfile.TemporaryDirectory(prefix="bench-probe-") as tmp:
        context = Path(tmp)
        command = [sys.executable, "-m", "pip", "download", "-q", "--no-binary=:all:", "--no-deps"]
        subprocess.run([*command, "-d", str(context), "django==5.1.4"], check=True)
        archive = next(context.glob("*.tar.gz"))
        shutil.unpack_archive(archive, context)
        next(p for p in context.iterdir() if p.is_dir()).rename(context / "vendor")
        (context / "Dockerfile").write_text(
            f"FROM {base}\nCOPY vendor /testbed/vendor/django\n"
            "RUN cd /testbed && git config user.name bench && git config user.email bench@localhost "
            "&& git add -A vendor && git commit -q -m vendor "
            # a last commit of one line, as a real base commit is (the eval script runs `git show`)
            "&& echo >> README.md && git commit -qam 'a line' && git config --unset user.name "
            "&& git config --unset user.email && git rev-parse HEAD > /base_commit\n"
        )
        build(context, name)


def repo_size(image: str) -> str:
    out = docker("run", "--rm", "--network", "none", image, "sh", "-c", "cd /testbed && git ls-files | wc -l")
    return f"{out.stdout.strip()} files in the repository"


def environment_size(image: str) -> str:
    """Files and size of the site directories the probe finds in ``image`` (as its globs do)."""
    dirs = "/usr/lib/python3/dist-packages /usr/lib/python*/*-packages /usr/local/lib/python*/*-packages "
    dirs += "/opt/*/lib/python*/site-packages /opt/*/envs/*/lib/python*/site-packages"
    script = (
        f'set -- $(ls -d {dirs} 2>/dev/null | sort -u); find "$@" -type f | wc -l; du -sch "$@" | tail -1'
    )
    out = docker("run", "--rm", "--network", "none", image, "sh", "-c", script)
    files, size = ([*out.stdout.split("\n"), "", ""])[:2]
    return f"{files.strip()} files, {size.split()[0] if size else '?'}"


def run_once(benchmark: Path, work: Path, extra: list[str]) -> dict[str, float]:
    junit = work / "junit.xml"
    command = [
        *PYTEST, str(benchmark), "--swe-no-cache", f"--junitxml={junit}", f"--swe-run-dir={work / 'run'}",
        "-p", "no:cacheprovider", "-q", *extra,
    ]  # fmt: skip
    out = subprocess.run(command, cwd=REPO, env=pytest_env(), capture_output=True, text=True, check=False)
    if out.returncode != 0 or not junit.exists():
        raise SystemExit(f"{benchmark.name} {' '.join(extra)}: exit {out.returncode}\n{out.stdout[-2000:]}")
    case = next(ET.parse(junit).iter("testcase"))
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    if props.get("resolved") != "true":
        raise SystemExit(f"{benchmark.name} {' '.join(extra)}: not resolved ({props.get('outcome')})")
    return {
        "apply": float(props["time_apply"] or 0),
        "script": float(props["time_script"] or 0),
        "item": float(case.get("time") or 0),
    }


def main(argv: list[str] | None = None) -> int:
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user runs it
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--row", default="demo__calc-1", help="the demo row (instance id)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rebuild", action="store_true", help="build the large-environment image again")
    parser.add_argument("--json", help="write the figures as JSON here")
    args = parser.parse_args(argv)
    rows = {
        json.loads(line)["instance_id"]: json.loads(line)
        for line in DEMO_ROWS.read_text().splitlines()
        if line.strip()
    }
    if args.row not in rows:
        raise SystemExit(f"--row: no demo row {args.row!r} (there are {', '.join(sorted(rows))})")
    row = rows[args.row]
    large = f"pytest-swe-bench/large-env-{args.row.lower().replace('__', '-')}:latest"
    big_repo = f"pytest-swe-bench/large-repo-{args.row.lower().replace('__', '-')}:latest"
    if args.rebuild or docker("image", "inspect", large).returncode != 0:
        print(f"building {large} from {row['image']} ...", flush=True)
        build_large(row["image"], large)
    if args.rebuild or docker("image", "inspect", big_repo).returncode != 0:
        print(f"building {big_repo} from {row['image']} ...", flush=True)
        build_large_repo(row["image"], big_repo)
    print(f"small: {row['image']} ({environment_size(row['image'])}; {repo_size(row['image'])})")
    print(f"large environment: {large} ({environment_size(large)})")
    print(f"large repository: {big_repo} ({repo_size(big_repo)})", flush=True)
    base = docker("run", "--rm", "--network", "none", big_repo, "cat", "/base_commit").stdout.strip()
    rows_of = {
        "small": row,
        "large-env": {**row, "image": large},
        # the eval script names the base commit too: the row moves to the commit that adds the tree
        "large-repo": {**json.loads(json.dumps(row).replace(row["base_commit"], base)), "image": big_repo},
    }
    results: dict[str, list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-probe-") as tmp:
        root = Path(tmp)
        benchmarks = {}
        for env, env_row in rows_of.items():
            (root / f"{env}.jsonl").write_text(json.dumps(env_row) + "\n")
            benchmarks[env] = root / f"{env}.yaml"
            benchmarks[env].write_text(BENCHMARK.format(name=f"probe-{env}", rows=f"{env}.jsonl"))
        for n in range(args.rounds):
            for env in rows_of:
                for policy, extra in (("strict", []), ("official", ["--swe-set", "eval.policy=official"])):
                    work = root / f"{env}-{policy}-{n}"
                    results.setdefault(f"{env} {policy}", []).append(run_once(benchmarks[env], work, extra))
            print(f"round {n + 1}/{args.rounds} done", flush=True)
    medians = {
        k: {p: statistics.median(r[p] for r in runs) for p in ("apply", "script", "item")}
        for k, runs in results.items()
    }
    print(
        f"\n{'image, policy':24} {'apply':>8} {'eval phase':>10} {'item':>8}   (medians of {args.rounds}, seconds)"
    )
    for key, m in medians.items():
        print(f"{key:24} {m['apply']:8.3f} {m['script']:10.3f} {m['item']:8.3f}")
    for env in rows_of:
        added = medians[f"{env} strict"]["script"] - medians[f"{env} official"]["script"]
        print(f"strict adds to the eval phase, {env}: {added:.3f} s")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"rounds": args.rounds, "medians": medians, "runs": results}, indent=2)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
