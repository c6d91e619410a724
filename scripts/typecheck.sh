#!/usr/bin/env bash
# mypy over the installed package layout: families/, providers/ and agents/ ship as
# pytest_swe.families, .providers and .agents (pyproject's package-dir), which mypy cannot map,
# so the check runs on a tree of symlinks with that shape. Usage: typecheck.sh [PYTHON].
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
python="${1:-python3}"
# The check runs from the symlink tree: a relative interpreter path must become absolute first.
case "$python" in */*) python="$(cd "$(dirname "$python")" && pwd)/$(basename "$python")" ;; esac
tree="$(mktemp -d)"
trap 'rm -rf "$tree"' EXIT
mkdir "$tree/pytest_swe"
for entry in "$root"/pytest_swe/*; do ln -s "$entry" "$tree/pytest_swe/"; done
for layer in families providers agents; do ln -s "$root/$layer" "$tree/pytest_swe/$layer"; done
cd "$tree"
"$python" -m mypy --config-file "$root/pyproject.toml" -p pytest_swe
