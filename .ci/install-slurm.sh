#!/usr/bin/env bash
# Installs what the Slurm tests (tests/test_slurm.py) need: Debian's slurm-wlm (slurmctld, slurmd
# and the client commands) and munge. Idempotent: apt runs only for missing packages. Nothing is
# started here: the tests' fixture writes a one-machine slurm.conf in a temporary directory and
# starts munged, slurmctld and slurmd itself (as root), and stops them after.
set -euo pipefail
PACKAGES=(slurm-wlm munge)
missing=()
for package in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && SUDO="sudo"
echo "install-slurm: apt-get install ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}" >/dev/null
# The packages' own services, where an init system starts them, are not the tests' cluster.
command -v slurmd >/dev/null && command -v slurmctld >/dev/null && command -v munged >/dev/null
