"""Turns a test run's stdout and stderr into output.json.

Usage: python parsing_script.py STDOUT_LOG STDERR_LOG OUTPUT_JSON

The output is {"tests": [{"name": <test id>, "status": PASSED|FAILED|SKIPPED|ERROR}, ...]}, the
shape the grader reads; names are pytest node ids, as the row's test lists spell them.
"""

import json
import re
import sys
from pathlib import Path

# pytest -v: "tests/test_x.py::test_a PASSED   [ 50%]"
RESULT_LINE = re.compile(r"^(\S+::\S+) (PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)\b")
STATUSES = {
    "PASSED": "PASSED",
    "XPASS": "PASSED",
    "FAILED": "FAILED",
    "ERROR": "ERROR",
    "SKIPPED": "SKIPPED",
    "XFAIL": "SKIPPED",
}
VALID = {"PASSED", "FAILED", "SKIPPED", "ERROR"}


def parse(stdout: str, stderr: str) -> dict[str, str]:
    """Test id -> status; a later line about the same test (a teardown error) wins."""
    results: dict[str, str] = {}
    for line in (stdout + "\n" + stderr).splitlines():
        match = RESULT_LINE.match(line.strip())
        if match:
            results[match.group(1)] = STATUSES[match.group(2)]
    return results


def main(stdout_path: Path, stderr_path: Path, output_path: Path) -> int:
    results = parse(stdout_path.read_text(errors="replace"), stderr_path.read_text(errors="replace"))
    tests = [{"name": name, "status": status} for name, status in results.items()]
    output_path.write_text(json.dumps({"tests": tests}, indent=2))
    bad = [t for t in tests if t["status"] not in VALID]
    if bad:
        print(f"invalid statuses: {bad}", file=sys.stderr)
        return 1
    if not tests:
        print("warning: no test results found in the logs", file=sys.stderr)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print("usage: python parsing_script.py STDOUT_LOG STDERR_LOG OUTPUT_JSON", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])))
