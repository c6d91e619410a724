"""Lua: plenary.nvim's busted output."""

from __future__ import annotations

import re

from .base import ANSI_SGR
from .base import FAILED
from .base import PASSED
from .base import SKIPPED
from .base import LineReader
from .base import make_rule
from .base import stripped_group

# --- Lua (plenary.nvim busted) --------------------------------------------------------------------

parse_lue_nvim = LineReader(
    (
        make_rule(r"(?!.*\|\|)[^\t]*:", None),
        make_rule(r"(?:Fail|Failed)\s*\|\|\s*(.+?)\s*$", FAILED, name=stripped_group()),
        make_rule(
            r"(?:Skip|Skipped)\s*\|\|\s*(.+?)\s*$",
            SKIPPED,
            "keep",
            flags=re.IGNORECASE,
            name=stripped_group(),
        ),
        make_rule(r"Success\s*\|\|\s*(.+?)\s*$", PASSED, "keep", name=stripped_group()),
    ),
    prepare=lambda line: ANSI_SGR.sub("", line).rstrip(),
)
"""plenary.nvim's ``Success || name`` / ``Fail || name`` lines; a failure wins over a pass or skip.
Counter lines (``Success: 3``) are skipped."""
