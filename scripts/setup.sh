#!/usr/bin/env bash
# Everything pytest-swe needs on a fresh Debian/Ubuntu machine, idempotently:
#   the Docker engine (installed and started if absent), the package and its extras,
#   the base image (built without a registry when none is reachable) and the images of
#   the local benchmarks. With --tests, also what the test suite needs: the official
#   `swebench` package in its own virtual environments, the test runners the
#   parser tests drive, and tmux (a real terminal for the live status line's test).
#
#   bash scripts/setup.sh           # to run benchmarks
#   bash scripts/setup.sh --tests   # to run the test suite
#   bash scripts/setup.sh --lint    # only the package and its linters (no Docker): make lint
#
# The package goes into a virtual environment, ${PYTEST_SWE_VENV:-.venv} (made with $PYTHON,
# default python3), holding the newest pytest and pytest-xdist releases, as a new user gets them.
# PYTEST_SWE_PIN="pytest==8.0.*" (space-separated requirements) pins them instead: that is how
# `make test-oldest` builds its environment on the oldest supported pytest.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
TESTS=0
LINT=0
[ "${1:-}" = "--tests" ] && TESTS=1
[ "${1:-}" = "--lint" ] && LINT=1
PY="${PYTHON:-python3}"
SUDO=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && SUDO="sudo"

log() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

VENV="${PYTEST_SWE_VENV:-$ROOT/.venv}"
PIN="${PYTEST_SWE_PIN:-}"

need_apt=()
"$PY" -c "import ensurepip, venv" 2>/dev/null || need_apt+=(python3-venv)
if [ "$LINT" = 0 ]; then
  command -v dockerd >/dev/null || need_apt+=(docker.io)
  command -v debootstrap >/dev/null || need_apt+=(debootstrap)
fi
command -v git >/dev/null || need_apt+=(git)
# tmux: the test of the live status line drives a real terminal.
[ "$TESTS" = 1 ] && ! command -v tmux >/dev/null && need_apt+=(tmux)
if [ ${#need_apt[@]} -gt 0 ]; then
  log "installing ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ "$LINT" = 0 ] && ! docker info >/dev/null 2>&1; then
  log "starting the Docker engine (no default bridge: containers get loopback only unless told otherwise)"
  $SUDO setsid dockerd --bridge=none >/tmp/pytest-swe-dockerd.log 2>&1 < /dev/null &
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { echo "dockerd did not start; see /tmp/pytest-swe-dockerd.log" >&2; exit 1; }
fi

# Room on disk. Short of what the set-up and a run need, give back what pytest-swe left on this
# machine (scripts/reclaim-space.sh), then stop with one message naming what is free and what is
# needed, not an install that dies half-way with "No space left on device".
need_mb=$([ "$TESTS" = 1 ] && echo "${PYTEST_SWE_TEST_DISK_MB:-8000}" || echo 3000)
[ "$LINT" = 1 ] && need_mb=1500
free_mb() { df -Pm "$1" | awk 'NR==2 {print $4}'; }
disk_dirs=("$ROOT" "${TMPDIR:-/tmp}")
[ "$LINT" = 0 ] && disk_dirs+=("$(docker info --format '{{.DockerRootDir}}' 2>/dev/null || echo /)")
short_of_room() {
  local dir
  for dir in "${disk_dirs[@]}"; do
    [ "$(free_mb "$dir")" -lt "$need_mb" ] && { echo "$dir"; return 0; }
  done
  return 1
}
if short=$(short_of_room); then
  log "$(free_mb "$short") MB free under $short, $need_mb MB needed: reclaiming what pytest-swe left"
  reclaim_py="$PY"
  [ -x "$VENV/bin/python" ] && reclaim_py="$VENV/bin/python"
  bash "$ROOT/scripts/reclaim-space.sh" "$reclaim_py"
  if short=$(short_of_room); then
    echo "setup: only $(free_mb "$short") MB free under $short; the set-up and a run of" \
      "$([ "$TESTS" = 1 ] && echo the tests || echo benchmarks) need about $need_mb MB" >&2
    exit 1
  fi
fi

extras="hf"
[ "$TESTS" = 1 ] && extras="dev,hf,mini,k8s"
[ "$LINT" = 1 ] && extras="dev,k8s"  # mypy checks the Kubernetes provider against the client it uses
if [ ! -x "$VENV/bin/python" ]; then
  log "creating the virtual environment $VENV"
  "$PY" -m venv "$VENV"
fi
pip_log="$(mktemp /tmp/pytest-swe-pip.XXXXXX.log)"
pip_install() {
  if ! "$VENV/bin/python" -m pip install -q "$@" >"$pip_log" 2>&1; then
    cat "$pip_log" >&2
    exit 1
  fi
}
if [ -n "$PIN" ]; then
  log "installing pytest-swe[$extras] into $VENV with $PIN"
  # shellcheck disable=SC2086  # PIN is a list of requirements
  pip_install -e ".[$extras]" $PIN
else
  log "installing pytest-swe[$extras] into $VENV with the newest pytest and pytest-xdist"
  pip_install -e ".[$extras]"
  pip_install --upgrade pytest pytest-xdist  # an environment made earlier gets the newest releases too
fi
rm -f "$pip_log"
"$VENV/bin/python" -c "import pytest, xdist; print('[setup] pytest', pytest.__version__, 'pytest-xdist', xdist.__version__)"
[ "$LINT" = 1 ] && exit 0

log "building the base image and the local benchmarks' images"
"$VENV/bin/python" -m pytest_swe.tools.cli images benchmarks/

if [ "$TESTS" = 1 ]; then
  log "official swebench package (differential tests only)"
  bash .ci/official-venv.sh
  bash .ci/install-bwrap.sh  # bubblewrap provider: bwrap, fuse-overlayfs, skopeo, umoci, busybox-static
  bash .ci/install-slurm.sh  # Slurm and munge for tests/test_slurm.py
  if [ -f .ci/install-runners.sh ]; then
    log "test runners for the parser tests"
    bash .ci/install-runners.sh
  fi
  bash .ci/install-html.sh  # Chromium for the HTML report's browser tests
  bash .ci/install-pool.sh  # network namespaces, openssl and dockerd for the Docker pool tests
  bash .ci/install-podman.sh  # Podman, its API service and busybox for the provider conformance suite
  bash .ci/install-images.sh  # a local registry for the image tests
fi
log "ready"
