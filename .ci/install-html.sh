#!/usr/bin/env bash
# What the HTML report's browser tests need beyond the dev extra (which brings Playwright for
# Python): Debian's Chromium, driven through its executable (never a browser Playwright
# downloads), and a font for its screenshots. Idempotent: apt runs only for missing packages.
set -euo pipefail
packages=(chromium fonts-dejavu-core)
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-html: apt-get install ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi
test -x /usr/bin/chromium
