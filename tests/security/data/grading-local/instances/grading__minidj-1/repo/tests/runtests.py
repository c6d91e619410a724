#!/usr/bin/env python3
"""Run the test suite as Django's tests/runtests.py does: dotted labels relative to tests/,
a settings module, unittest's output at the given verbosity."""

import argparse
import importlib
import os
import sys
import unittest

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("labels", nargs="*")
    parser.add_argument("--verbosity", type=int, default=1)
    parser.add_argument("--settings", default="test_sqlite")
    parser.add_argument("--parallel", default="1")
    args = parser.parse_args()
    sys.path.insert(0, TESTS_DIR)
    os.environ["MINIDJ_SETTINGS_MODULE"] = args.settings
    importlib.import_module(args.settings)
    import minidj

    where = os.path.dirname(minidj.__file__)
    print(f"Testing against minidj installed in '{where}' with up to {args.parallel} processes")
    print("System check identified no issues (0 silenced).")
    labels = args.labels or sorted(
        name for name in os.listdir(TESTS_DIR) if os.path.isdir(os.path.join(TESTS_DIR, name))
    )
    suite = unittest.defaultTestLoader.loadTestsFromNames(labels)
    result = unittest.TextTestRunner(verbosity=args.verbosity).run(suite)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
