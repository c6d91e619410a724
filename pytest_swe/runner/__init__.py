"""The pytest side of pytest-swe: the plugin's hooks (:mod:`.plugin`) and the modules they call.

Importing this package takes pytest-swe out of pytest's assertion rewriting (see
:func:`skip_assertion_rewriting`): pytest imports it first of everything the plugin loads.
"""

from __future__ import annotations

import sys

PACKAGE = "pytest_swe"


def skip_assertion_rewriting(package: str = PACKAGE) -> bool:
    """Take ``package`` out of the assertion rewriting of the pytest now running; whether it was in.

    pytest rewrites the asserts of every module of an installed plugin's distribution: it reads,
    parses and compiles each one from source, and only the rewritten bytecode it caches in a
    writable ``__pycache__`` spares the next process that work. With PYTHONDONTWRITEBYTECODE set
    or a read-only install, every run (and every xdist worker) pays it again for a hundred
    modules that hold no tests. pytest offers no public switch for a whole package
    (``PYTEST_DONT_REWRITE`` is read from each module after that parse), so the rewriting hook's
    set of marked names is edited; with a pytest that keeps it elsewhere nothing changes but speed.
    """
    rewrite = sys.modules.get("_pytest.assertion.rewrite")
    hook_class: type | None = getattr(rewrite, "AssertionRewritingHook", None)
    if hook_class is None:  # pytest's rewriting is not loaded: nothing marked anything
        return False
    found = False
    for finder in list(sys.meta_path):
        marked = getattr(finder, "_must_rewrite", None)
        if not isinstance(finder, hook_class) or not isinstance(marked, set) or package not in marked:
            continue
        marked.discard(package)
        cache = getattr(finder, "_marked_for_rewrite_cache", None)
        if isinstance(cache, dict):
            cache.clear()  # a memo of the marks, as pytest's own mark_rewrite clears it
        found = True
    return found


skip_assertion_rewriting()
