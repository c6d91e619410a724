#!/bin/sh
# Runs at image build: commits the upstream change (the fix and the tests, copied to
# /opt/upstream/fix and /opt/upstream/test) on top of the base commit of the repository in $1,
# keeps it on the branch "upstream" and returns the checkout to the base commit. The rows'
# before_repo_set_cmd checks the test files out of that commit, as SWE-bench Pro images allow.
# The fixed identity and date make the commit id the one make_rows.py computes.
set -e
cd "$1"
export GIT_AUTHOR_NAME=pytest-swe GIT_AUTHOR_EMAIL=pytest-swe@localhost
export GIT_COMMITTER_NAME=pytest-swe GIT_COMMITTER_EMAIL=pytest-swe@localhost
export GIT_AUTHOR_DATE=2024-01-01T00:00:00+0000 GIT_COMMITTER_DATE=2024-01-01T00:00:00+0000
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
base=$(git rev-parse HEAD)
cp -a /opt/upstream/fix/. .
cp -a /opt/upstream/test/. .
git add -A
git commit -q -m upstream
git branch upstream
git reset -q --hard "$base"
