#!/bin/bash
set -e

cd /home/ledgerline
python3 -m pytest -v -rA -p no:cacheprovider --continue-on-collection-errors tests
