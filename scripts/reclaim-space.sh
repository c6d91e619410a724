#!/usr/bin/env bash
# Gives back disk space that pytest-swe and its set-up left on this machine, all of it rebuilt on
# demand: pip's download cache, Docker's build cache and dangling images, stopped pytest-swe
# sandboxes, bubblewrap root filesystems no image tag points to any more (and the layer stacks
# kept for sharing; equal files of the others are linked), and pytest's temporary directories of
# runs that ended over an hour ago.
# Images a benchmark needs are kept.
#
#   bash scripts/reclaim-space.sh [PYTHON]     # PYTHON: the venv's interpreter, if there is one
#   bash scripts/reclaim-space.sh --bwrap-root # only print the bubblewrap cache it would look at
#
# scripts/setup.sh runs it when the disk holds less than the set-up needs.
set -uo pipefail
# The bubblewrap provider's default root (providers/bubblewrap/provider.py: default_root).
if [ -n "${PYTEST_SWE_BWRAP_ROOT:-}" ]; then
  bwrap="$PYTEST_SWE_BWRAP_ROOT"
elif [ "$(id -u)" -eq 0 ]; then
  bwrap=/var/lib/pytest-swe/bubblewrap
else
  bwrap="${XDG_CACHE_HOME:-$HOME/.cache}/pytest-swe/bubblewrap"
fi
[ "${1:-}" = "--bwrap-root" ] && { echo "$bwrap"; exit 0; }
PY="${1:-python3}"
log() { printf '\033[1m[reclaim]\033[0m %s\n' "$*"; }
free_mb() { df -Pm "${1:-/}" | awk 'NR==2 {print $4}'; }
before=$(free_mb /)

"$PY" -m pip cache purge >/dev/null 2>&1 || true
if docker info >/dev/null 2>&1; then
  docker builder prune -af >/dev/null 2>&1 || true
  docker image prune -f >/dev/null 2>&1 || true  # dangling layers only: no tagged image goes
  docker container prune -f --filter label=pytest-swe >/dev/null 2>&1 || true
fi

# bubblewrap's cache (providers/bubblewrap/images.py): images/<digest> that no tags/*.json names
# are root filesystems of images since rebuilt; staging directories of unpacks that died.
if [ -d "$bwrap/images" ]; then
  named=$(cat "$bwrap"/tags/*.json 2>/dev/null | grep -o 'sha256:[0-9a-f]*' | sed 's/sha256://' | sort -u)
  for dir in "$bwrap"/images/*/ "$bwrap"/images/.*-*/; do
    [ -d "$dir" ] || continue
    key=$(basename "$dir")
    case "$key" in .*) ;; *) grep -qx "$key" <<<"$named" && continue ;; esac
    # Only what no unpack is writing now and no sandbox could be using: untouched for an hour.
    [ -n "$(find "$dir" -maxdepth 0 -mmin +60)" ] || continue
    flock -n "$bwrap/images/.${key#.}.lock" rm -rf --one-file-system "$dir" 2>/dev/null || true
  done
fi
# Root filesystems unpacked before layers were shared hold the same files many times: link equal
# ones (same name, content, mode, owner, times and extended attributes), as the chains would have.
if [ -d "$bwrap/images" ] && command -v hardlink >/dev/null; then
  hardlink -q -f -X "$bwrap/images" >/dev/null 2>&1 || true
fi
# chains/ holds hard links that later unpacks share; an image keeps its own links, so a chain can
# go at any time (an unpack that finds none writes the files anew), but only old ones do.
[ -d "$bwrap/chains" ] && find "$bwrap/chains" -mindepth 1 -maxdepth 1 -mmin +60 -exec rm -rf --one-file-system {} + 2>/dev/null

# pytest keeps the base temporary directories of its last three runs; a run's pool engines keep
# image stores there. Only directories of runs that ended over an hour ago go.
for dir in "${TMPDIR:-/tmp}/pytest-of-$(id -un)"/pytest-*/; do
  [ -d "$dir" ] || continue
  [ -z "$(find "$dir" -maxdepth 1 -mmin -60 -print -quit)" ] || continue
  rm -rf --one-file-system "$dir" 2>/dev/null || true
done

log "free on /: ${before} MB before, $(free_mb /) MB after"
