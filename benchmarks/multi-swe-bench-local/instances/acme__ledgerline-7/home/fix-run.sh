#!/bin/bash
set -e

cd /home/ledgerline
git apply --whitespace=nowarn /home/test.patch /home/fix.patch
python3 -m pytest -v -rA -p no:cacheprovider --continue-on-collection-errors tests
