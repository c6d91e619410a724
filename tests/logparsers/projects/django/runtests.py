"""A miniature of Django's tests/runtests.py: its banner, then Django's test runner.

SWE-bench runs ``./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1``; this
script takes the same options so the sample log has the same shape.
"""

import argparse
import os
import sys

import django
from django.conf import settings
from django.test.utils import get_runner


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("labels", nargs="*")
    parser.add_argument("--verbosity", type=int, default=1)
    parser.add_argument("--settings", default="test_sqlite")
    parser.add_argument("--parallel", type=int, default=1)
    args = parser.parse_args()
    os.environ["DJANGO_SETTINGS_MODULE"] = args.settings
    django.setup()
    print(
        f"Testing against Django installed in '{os.path.dirname(django.__file__)}' "
        f"with up to {args.parallel} processes"
    )
    runner = get_runner(settings)(verbosity=args.verbosity, parallel=args.parallel)
    return 1 if runner.run_tests(args.labels) else 0


if __name__ == "__main__":
    sys.exit(main())
