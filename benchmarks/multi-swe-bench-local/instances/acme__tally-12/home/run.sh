#!/bin/bash
set -e

cd /home/tally
python3 -m pytest -v -rA -p no:cacheprovider --continue-on-collection-errors tests
