import re

_LINE = re.compile(r"^(PASSED|FAILED|SKIPPED|ERROR|XFAIL) (\S+)")
# pytest groups skips by reason: "SKIPPED [2] test_x.py:3: reason" stands for two tests.
_SKIP_COUNT = re.compile(r"^\[(\d+)\]$")


def summarize(output):
    """Outcome -> number of tests, read from the short test summary of ``pytest -rA`` output."""
    counts = {}
    for line in output.splitlines():
        match = _LINE.match(line)
        if match:
            outcome, name = match.groups()
            grouped = _SKIP_COUNT.match(name) if outcome == "SKIPPED" else None
            counts[outcome] = counts.get(outcome, 0) + (int(grouped.group(1)) if grouped else 1)
    return counts
