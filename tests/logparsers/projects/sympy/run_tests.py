"""Runs the sample tests through SymPy's own test runner and reporter, as ``bin/test -C --verbose`` does.

SymPy's runner looks for tests inside the installed sympy package, so the sample files are
handed to it directly and paths are reported relative to this directory.
"""

import os
import sys

os.environ["SYMPY_USE_CACHE"] = "no"  # bin/test -C

from sympy.testing.runtests import PyTestReporter
from sympy.testing.runtests import SymPyTests

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> int:
    reporter = PyTestReporter(verbose=True, tb="short", colors=False)
    tests = SymPyTests(reporter, seed=42)
    reporter.root_dir(HERE)
    test_dir = os.path.join(HERE, "sympy_demo", "tests")
    tests._testfiles.extend(
        sorted(os.path.join(test_dir, name) for name in os.listdir(test_dir) if name.startswith("test_"))
    )
    return 0 if tests.test(sort=True) else 1


if __name__ == "__main__":
    sys.exit(main())
