#!/bin/bash
# Runs the repository's tests: all of them, or the test files given as one comma-separated
# argument (or as separate arguments). Results go to stdout for parsing_script.py.
set -e

run_all_tests() {
  python -m pytest -v -p no:cacheprovider tests
}

run_selected_tests() {
  python -m pytest -v -p no:cacheprovider "$@"
}

if [ $# -eq 0 ]; then
  run_all_tests
  exit $?
fi

if [[ "$1" == *","* ]]; then
  IFS=',' read -r -a TEST_FILES <<< "$1"
else
  TEST_FILES=("$@")
fi

run_selected_tests "${TEST_FILES[@]}"
