#!/usr/bin/env bash
# Installs what the image tests (tests/test_image_budget.py) need beyond Docker: the Debian registry
# (docker-registry), which each test session starts itself on a free loopback port with its own
# storage, so image pulls, mirrors and the disk budget are tested against a real registry.
# Idempotent: apt runs only when the package is missing; no service is started here.
set -euo pipefail
if ! command -v docker-registry >/dev/null 2>&1; then
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq docker-registry >/dev/null
fi
# The package's own service (port 5000) is not used by the tests.
