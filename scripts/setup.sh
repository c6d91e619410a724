#!/usr/bin/env bash
# Everything pytest-swe needs on a fresh Debian/Ubuntu machine, idempotently:
#   the Docker engine (installed and started if absent), the package and its extras,
#   the base image (built without a registry when none is reachable) and the images of
#   the local benchmarks. With --tests, also what the test suite needs: the official
#   `swebench` package in its own virtual environments and the test runners the
#   parser tests drive.
#
#   bash scripts/setup.sh           # to run benchmarks
#   bash scripts/setup.sh --tests   # to run the test suite
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
TESTS=0
[ "${1:-}" = "--tests" ] && TESTS=1
PY="${PYTHON:-python3}"
SUDO=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && SUDO="sudo"

log() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

need_apt=()
command -v dockerd >/dev/null || need_apt+=(docker.io)
command -v debootstrap >/dev/null || need_apt+=(debootstrap)
command -v git >/dev/null || need_apt+=(git)
if [ ${#need_apt[@]} -gt 0 ]; then
  log "installing ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
  log "starting the Docker engine (no default bridge: containers get loopback only unless told otherwise)"
  $SUDO setsid dockerd --bridge=none >/tmp/pytest-swe-dockerd.log 2>&1 < /dev/null &
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { echo "dockerd did not start; see /tmp/pytest-swe-dockerd.log" >&2; exit 1; }
fi

extras="hf"
[ "$TESTS" = 1 ] && extras="dev,hf,mini"
log "installing pytest-swe[$extras]"
if ! "$PY" -m pip install -q -e ".[$extras]" >/tmp/pytest-swe-pip.log 2>&1; then
  cat /tmp/pytest-swe-pip.log >&2
  exit 1
fi

log "building the base image and the local benchmarks' images"
"$PY" -m pytest_swe.cli images benchmarks/

if [ "$TESTS" = 1 ]; then
  log "official swebench package (differential tests only)"
  bash .ci/official-venv.sh
  if [ -f .ci/install-runners.sh ]; then
    log "test runners for the parser tests"
    bash .ci/install-runners.sh
  fi
fi
log "ready"
