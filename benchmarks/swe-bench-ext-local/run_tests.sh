#!/bin/bash
# The repositories' test runner, installed at /workspace/run_tests.sh: pytest with the -rA
# summary, in the repository. Extra arguments select tests.
cd /workspace/repo || exit 3
exec python3 -m pytest -rA -p no:cacheprovider "$@"
