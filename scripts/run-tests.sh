#!/usr/bin/env bash
# Runs pytest with the given interpreter and arguments: run-tests.sh PYTHON [PYTEST ARGS...].
# pytest's exit code 5 ("no tests ran": every test of a selection deselected or absent here) is
# reported and counted as success, so a selection that matches nothing in this environment
# cannot fail CI; every other exit code is pytest's own.
set -uo pipefail
python="$1"
shift
"$python" -m pytest "$@"
status=$?
if [ "$status" -eq 5 ]; then
  echo "run-tests: no tests ran for: pytest $* (exit code 5, counted as success)" >&2
  exit 0
fi
exit "$status"
