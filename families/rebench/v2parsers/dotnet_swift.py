"""XCTest (Swift on Linux) and ``dotnet test`` (C#)."""

from __future__ import annotations

from .base import FAILED
from .base import PASSED
from .base import SKIPPED
from .base import LineReader
from .base import make_rule

# --- Swift, C# ------------------------------------------------------------------------------------

parse_log_swift = LineReader(
    (
        make_rule(
            r"Test Case '([^']+)'\s+(passed|failed)\s+\([0-9.]+\s+seconds\)$",
            lambda m: PASSED if m.group(2) == "passed" else FAILED,
        ),
    )
)
"""XCTest on Linux: ``Test Case 'Suite.testX' passed (0.001 seconds)``. Skips are not read; macOS's
trailing period stops a line from being read."""

parse_log_csharp = LineReader(
    (
        make_rule(r"\[xUnit\.net\s+[\d:\.]+\]\s+(.+?)\s+\[FAIL\]$", FAILED),
        make_rule(r"\s+Failed\s+(.+?)\s+\[.+?\]$", FAILED),
        make_rule(r"\s+Skipped\s+(.+?)(?:\s+\[.+?\])?$", SKIPPED),
        make_rule(r"\s+Passed\s+(.+?)\s+\[.+?\]$", PASSED, "keep"),
    ),
    prepare=str.rstrip,
)
"""``dotnet test`` detailed console lines (``  Passed Ns.Class.Test [3 ms]``) and xUnit's
``[xUnit.net 00:00:01.23]     Ns.Class.Test [FAIL]``. Names end at their first `` [``."""
