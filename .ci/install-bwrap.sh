#!/usr/bin/env bash
# Installs what the bubblewrap provider and its tests need, from Debian: bubblewrap (the sandbox),
# fuse-overlayfs (the writable layer where the kernel's overlayfs cannot be mounted), skopeo and
# umoci (images from the local Docker engine or an OCI archive, unpacked into root filesystems),
# e2fsprogs (the size-limited filesystem that holds a sandbox's writable layer) and util-linux
# (nsenter, losetup). Idempotent: apt runs only for missing packages.
set -euo pipefail
PACKAGES=(bubblewrap busybox-static fuse-overlayfs skopeo umoci e2fsprogs util-linux)
missing=()
for package in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-bwrap: apt-get install ${missing[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq || true
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}"
fi
bwrap --version
