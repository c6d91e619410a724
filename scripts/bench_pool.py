"""Throughput of the demo benchmark on a Docker pool of 1, 2 and 3 hosts, and what the controller
pays per concurrent remote sandbox.

    sudo python scripts/bench_pool.py [--hosts 1,2,3] [--capacity 2] [--json FILE]

Starts three Docker engines in network namespaces over TLS (``scripts/pool_hosts.py``), loads the
demo images into each (build them first: ``pytest-swe images benchmarks/demo.yaml``), then in one
run of this script runs the demo with the gold agent on the first 1, 2 and 3 hosts, with
``capacity`` slots per host and as many xdist workers as slots. It reports items per minute and
the ratio to one host, and for each run the controller's and the workers' memory (peak USS: what
each process adds) and CPU seconds. Last it measures one sandbox's cost to the process that drives
it: CPU while a command runs remotely, and memory per open sandbox.

On one machine the "hosts" share its cores: the ratios measure the pool's scheduling, not added
hardware, and flatten once the engines' work fills the CPU (on 2 cores, quickly).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
import pool_hosts  # noqa: E402  (a script beside this one)

FIRST_ENGINE = 50
"""Engine numbers of this script (10.213.50.0/30 ...), apart from the tests' (20 and up)."""
FAST = {"health_interval": 2, "health_timeout": 5, "request_timeout": 60}


def demo_images() -> list[str]:
    rows = [
        json.loads(line) for line in (REPO / "benchmarks/demo/demo.jsonl").read_text().splitlines() if line
    ]
    names = [
        f"pytest-swe-demo/sweb.eval.x86_64.{r['instance_id'].replace('__', '_1776_')}:latest" for r in rows
    ]
    absent = [
        n for n in names if subprocess.run(["docker", "image", "inspect", n], capture_output=True).returncode
    ]
    if absent:
        sys.exit(
            f"bench_pool: build the demo images first (pytest-swe images benchmarks/demo.yaml): {absent[0]}"
        )
    return names


def benchmark_file(project: Path, hosts: list[dict[str, Any]]) -> None:
    (project / "benchmarks").mkdir(parents=True, exist_ok=True)
    provider = {"name": "docker", "pull": "never", "hosts": hosts, **FAST}
    body = {
        "name": "demo",
        "family": "swe-bench",
        "dataset": {"source": str(REPO / "benchmarks/demo/demo.jsonl"), "split": "test"},
        "agent": "gold",
        "markers": ["demo"],
        "timeouts": {"agent": 600, "eval": 300},
        "limits": {"memory": "1g", "cpus": 1, "pids": 512},
        "provider": provider,
    }
    (project / "benchmarks" / "demo.yaml").write_text(json.dumps(body, indent=2))


class Sampler:
    """Peak USS and last CPU times of a process tree, sampled while it runs (a worker's figures
    must be read before it exits)."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.uss: dict[int, int] = {}
        self.cpu: dict[int, float] = {}

    def sample(self) -> None:
        try:
            root = psutil.Process(self.root)
            processes = [root, *root.children(recursive=True)]
        except psutil.Error:
            return
        for process in processes:
            try:
                uss = process.memory_full_info().uss
                times = process.cpu_times()
            except psutil.Error:
                continue
            self.uss[process.pid] = max(self.uss.get(process.pid, 0), uss)
            self.cpu[process.pid] = times.user + times.system

    def split(self) -> dict[str, Any]:
        workers = [pid for pid in self.uss if pid != self.root]
        return {
            "controller_uss_mb": round(self.uss.get(self.root, 0) / 2**20, 1),
            "controller_cpu_s": round(self.cpu.get(self.root, 0.0), 2),
            "workers": len(workers),
            "worker_uss_mb": round(sum(self.uss[p] for p in workers) / max(len(workers), 1) / 2**20, 1),
            "workers_cpu_s": round(sum(self.cpu[p] for p in workers), 2),
        }


def run_demo(project: Path, workers: int, label: str) -> dict[str, Any]:
    junit = project / f"junit-{label}.xml"
    argv = [sys.executable, "-m", "pytest", "benchmarks", "-n", str(workers), "-q", "-p", "no:cacheprovider"]
    argv += [f"--junitxml={junit}", f"--swe-run-dir={project / ('run-' + label)}"]
    started = time.monotonic()
    process = subprocess.Popen(argv, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sampler = Sampler(process.pid)
    while process.poll() is None:
        sampler.sample()
        time.sleep(0.2)
    wall = time.monotonic() - started
    output = process.stdout.read() if process.stdout else ""
    cases = ET.parse(junit).getroot().iter("testcase") if junit.exists() else iter(())
    resolved, hosts, total = 0, {}, 0
    for case in cases:
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        total += 1
        resolved += props.get("resolved") == "true"
        host = props.get("sandbox_host", "?")
        hosts[host] = hosts.get(host, 0) + 1
    if resolved != total or not total:
        print(output[-3000:], file=sys.stderr)
    return {
        "wall_s": round(wall, 1),
        "items": total,
        "resolved": resolved,
        "items_per_min": round(60 * total / wall, 2),
        "by_host": hosts,
        **sampler.split(),
    }


def sandbox_costs(root: Path, engine: Any) -> dict[str, Any]:
    """What one remote sandbox costs the process driving it: CPU while a command runs there, memory
    per open sandbox (the provider's client, the container's objects)."""
    from pytest_swe.api.sandbox import SandboxSpec
    from pytest_swe.api.sandbox import this_run
    from pytest_swe.providers.docker import DockerPool

    image = demo_images()[0]
    pool = DockerPool(
        {"name": "docker", "pull": "never", "hosts": [engine.host_entry(root / "certs", capacity=8)], **FAST},
        this_run(run_id="bench-costs"),
    )
    me = psutil.Process()
    try:
        first = pool.create(SandboxSpec(image=image, labels={"pytest-swe.instance": "cost-0"}, ttl=600))
        first.exec("true", timeout=30)
        before = me.memory_full_info().uss
        opened = [
            pool.create(SandboxSpec(image=image, labels={"pytest-swe.instance": f"cost-{n}"}, ttl=600))
            for n in range(1, 7)
        ]
        for sandbox in opened:
            sandbox.exec("true", timeout=30)
        per_sandbox = (me.memory_full_info().uss - before) / len(opened)
        cpu0, wall0 = me.cpu_times(), time.monotonic()
        first.exec("sleep 20", timeout=60)
        cpu1, wall1 = me.cpu_times(), time.monotonic()
        busy = (cpu1.user + cpu1.system - cpu0.user - cpu0.system) / (wall1 - wall0)
        for sandbox in [first, *opened]:
            sandbox.close()
    finally:
        pool.close()
    return {
        "memory_per_open_sandbox_kb": round(per_sandbox / 1024, 1),
        "cpu_share_while_a_command_runs_remotely": round(busy, 4),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", default="1,2,3", help="host counts to measure (at most 3)")
    parser.add_argument("--capacity", type=int, default=2, help="slots per host (= xdist workers per host)")
    parser.add_argument("--json", help="write the figures to this file too")
    args = parser.parse_args()
    missing = pool_hosts.missing_tools()
    if missing:
        sys.exit(f"bench_pool: needs {', '.join(missing)} (.ci/install-pool.sh)")
    images = demo_images()
    counts = [int(n) for n in args.hosts.split(",")]
    root = Path(tempfile.mkdtemp(prefix="pytest-swe-bench-pool-"))
    figures: dict[str, Any] = {"cores": os.cpu_count(), "capacity": args.capacity, "runs": {}}
    try:
        print(f"starting {max(counts)} engines under {root} and loading the demo images ...", flush=True)
        engines = pool_hosts.up(root, max(counts), first=FIRST_ENGINE)
        pool_hosts.load_images(root, images, engines)
        for count in counts:
            project = root / f"project-{count}"
            benchmark_file(
                project, [e.host_entry(root / "certs", capacity=args.capacity) for e in engines[:count]]
            )
            result = run_demo(project, count * args.capacity, f"{count}hosts")
            figures["runs"][count] = result
            print(f"{count} host(s): {json.dumps(result)}", flush=True)
        figures["sandbox"] = sandbox_costs(root, engines[0])
    finally:
        pool_hosts.down(root)
    base = figures["runs"][counts[0]]["items_per_min"]
    print(
        f"\nthroughput (demo, gold, capacity {args.capacity} per host, {figures['cores']} cores shared by every engine)"
    )
    print("hosts  workers  wall     items/min  ratio  resolved  worker USS  workers CPU  controller USS")
    for count, run in figures["runs"].items():
        ratio = run["items_per_min"] / base if base else 0.0
        run["ratio"] = round(ratio, 2)
        print(
            f"{count:<6} {run['workers']:<8} {run['wall_s']:>5.1f}s  {run['items_per_min']:>9.2f}  {ratio:>5.2f}  "
            f"{run['resolved']}/{run['items']:<6}  {run['worker_uss_mb']:>7.1f} MB  {run['workers_cpu_s']:>9.2f} s  "
            f"{run['controller_uss_mb']:>9.1f} MB"
        )
    sandbox = figures["sandbox"]
    print(
        f"one remote sandbox: {sandbox['memory_per_open_sandbox_kb']} KB per open sandbox in its process; "
        f"{100 * sandbox['cpu_share_while_a_command_runs_remotely']:.2f}% of a core while a command runs in it"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
