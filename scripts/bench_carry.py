"""The eval's files written before its command, or carried inside it: both ways side by side.

In one Docker sandbox of a demo image, alternately:

* **upload, then exec**: the probe's hook, a plan the size of a demo row's and an eval script
  written in one archive (``write_files``), then ``/bin/bash /eval.sh`` run;
* **carried**: the same files written by the command that runs the script
  (``grading.inline.command_with_files``), one exec.

Prints the median of each and their ratio. Needs the Docker engine and the demo images
(``scripts/setup.sh`` builds them).

Usage: python scripts/bench_carry.py [--image IMAGE] [--pairs N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_IMAGE = "pytest-swe-demo/sweb.eval.x86_64.demo_1776_pager-1:latest"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--image", default=DEFAULT_IMAGE)
    parser.add_argument("--pairs", type=int, default=30)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from pytest_swe.api.sandbox import SandboxSpec
    from pytest_swe.api.sandbox import this_run
    from pytest_swe.api.sandbox import write_files
    from pytest_swe.grading import probe
    from pytest_swe.grading.inline import command_with_files
    from pytest_swe.grading.inline import written
    from pytest_swe.providers.docker.provider import DockerProvider

    hook = (Path(probe.__file__).parent / "hook.py").read_bytes()
    plan = b'{"plan": "' + b"p" * 14_000 + b'"}\n'  # a demo row's plan.json is about 14 KB
    script = b"#!/bin/bash\necho ran\n" + b"# " + b"s" * 3_000 + b"\n"
    files = {
        "/tmp/pytest-swe/g-bench/hook.py": (hook, 0o600),
        "/tmp/pytest-swe/g-bench/plan.json": (plan, 0o600),
        "/eval.sh": (script, 0o755),
    }
    provider = DockerProvider({}, this_run())
    sandbox = provider.create(SandboxSpec(image=args.image, workdir="/"))
    uploaded: list[float] = []
    carried: list[float] = []
    try:
        command = command_with_files(sandbox, files, "/bin/bash /eval.sh")
        if command is None:
            print("this sandbox cannot carry the files in a command")
            return 2
        for _ in range(args.pairs):
            start = time.perf_counter()
            write_files(sandbox, files)
            first = sandbox.exec("/bin/bash /eval.sh", timeout=60)
            uploaded.append(time.perf_counter() - start)
            start = time.perf_counter()
            second = sandbox.exec(command, timeout=60)
            carried.append(time.perf_counter() - start)
            ok, output = written(second.output)
            if not (first.output.startswith("ran") and ok and output.startswith("ran")):
                print(f"unexpected output: {first.output[:200]!r} / {second.output[:200]!r}")
                return 1
    finally:
        sandbox.close()
        provider.close()
    up, inline = statistics.median(uploaded), statistics.median(carried)
    size = sum(len(data) for data, _ in files.values())
    print(f"{args.pairs} alternating pairs, {size / 1024:.0f} KiB of files, image {args.image}")
    print(f"upload, then exec: median {up * 1000:.1f} ms")
    print(f"carried in the exec: median {inline * 1000:.1f} ms")
    print(f"carried / upload-then-exec: {inline / up:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
