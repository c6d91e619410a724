"""SWE-rebench, in its two shapes: V1 (``nebius/SWE-rebench``) and V2 (``nebius/SWE-rebench-V2``).

V1 rows are SWE-bench rows that carry their own specs: ``install_config`` names the test command,
the install step and the log parser, as the SWE-rebench fork of the SWE-bench harness reads them.
Each instance has its own image, ``swerebench/sweb.eval.x86_64.<id, __ -> _1776_>``, with the conda
env ``testbed`` at ``/testbed``, and grading is SWE-bench's (F2P and P2P all pass).

V2 rows span about twenty languages. The image is the row's ``image_name``, the repository sits at
``/<repo name>``, the test commands are a list and the log has no markers: the parser named by
``install_config.log_parser`` reads all of it. A row is resolved when every FAIL_TO_PASS and
PASS_TO_PASS test is PASSED, after both sides drop timing suffixes from test names.
"""

from __future__ import annotations

from typing import Any

import pytest

from .v1 import V1_FAMILY
from .v2 import V2_FAMILY

__all__ = ["V1_FAMILY", "V2_FAMILY"]


@pytest.hookimpl
def pytest_swe_families() -> list[Any]:
    return [V1_FAMILY, V2_FAMILY]
