import re

_LINE = re.compile(r"^(PASSED|FAILED) (\S+)")


def summarize(output):
    """Outcome -> number of tests, read from the short test summary of ``pytest -rA`` output."""
    counts = {}
    for line in output.splitlines():
        match = _LINE.match(line)
        if match:
            counts[match.group(1)] = counts.get(match.group(1), 0) + 1
    return counts
