#!/usr/bin/env bash
# Installs what the Docker pool tests (tests/test_pool.py, scripts/bench_pool.py) need: iproute2
# (network namespaces and veth links), openssl (the test's TLS certificates), util-linux
# (nsenter) and docker.io (dockerd for the engines the tests start, the docker CLI for save/load).
# The tests start and stop their own engines; the main engine is started by scripts/setup.sh.
# Idempotent: apt runs only for missing packages. Checks that a network namespace can be made.
set -euo pipefail

PACKAGES=(iproute2 openssl util-linux docker.io)
missing=()
for package in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-pool: apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

# The tests make namespaces of their own; fail here, with the reason, if this machine cannot.
probe="pswe-pool-probe-$$"
if ! $SUDO ip netns add "$probe" 2>/tmp/install-pool.err; then
  echo "install-pool: cannot create a network namespace: $(cat /tmp/install-pool.err)" >&2
  exit 1
fi
$SUDO ip netns del "$probe"
echo "install-pool: ready ($(ip -V | sed "s/^ip utility, //"), $(openssl version | awk '{print $1, $2}'))"
