#!/usr/bin/env bash
# Installs the test runners whose real output the log-parser tests (tests/logparsers) parse:
# Debian packages (Go, Ruby and its test libraries, PHPUnit, googletest, doctest, Ant and
# Maven with Debian's offline plugin repository, autotools, jq, Chromium and Xvfb), npm
# packages (Jest, Vitest, mocha, jasmine, QUnit, karma, deno) and a Python venv (Django,
# SymPy, an older pytest) in a cache directory outside the repository.
#
# Idempotent and quick when everything is present: apt runs only for missing packages, npm and
# pip only when their lock or requirements file changed. The cache directory is
# ${PYTEST_SWE_RUNNERS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pytest-swe/logparser-runners}.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PROJECTS="$ROOT/tests/logparsers/projects"
CACHE="${PYTEST_SWE_RUNNERS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pytest-swe/logparser-runners}"
START=$SECONDS

APT_PACKAGES=(
  golang-go
  ruby ruby-rspec ruby-minitest ruby-test-unit
  phpunit
  cmake g++ make libgtest-dev doctest-dev
  autoconf automake
  openjdk-17-jdk-headless ant ant-optional junit4 libhamcrest-java
  maven libsurefire-java libmaven-compiler-plugin-java libmaven-resources-plugin-java
  jq
  chromium xvfb xauth
)

missing=()
for package in "${APT_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  missing+=(nodejs npm)
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-runners: apt-get install ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Python runners: a venv of its own, so the plugin under test never loads into the sample runs.
python_cache="$CACHE/python"
if ! cmp -s "$PROJECTS/python-runners.txt" "$python_cache/requirements.txt" \
  || [ ! -x "$python_cache/venv/bin/python" ]; then
  echo "install-runners: python runner venv"
  rm -rf "$python_cache"
  mkdir -p "$python_cache"
  python3 -m venv "$python_cache/venv"
  "$python_cache/venv/bin/pip" install -q --disable-pip-version-check -r "$PROJECTS/python-runners.txt" \
    2>&1 | grep -v '^WARNING: Location' || true
  "$python_cache/venv/bin/python" -c "import django, sympy, pytest"
  cp "$PROJECTS/python-runners.txt" "$python_cache/requirements.txt"  # written last: marks success
fi

# npm packages, pinned by the sample project's lock file.
node_cache="$CACHE/node"
if ! cmp -s "$PROJECTS/node/package-lock.json" "$node_cache/installed-package-lock.json" \
  || [ ! -d "$node_cache/node_modules" ]; then
  echo "install-runners: npm packages"
  rm -rf "$node_cache"
  mkdir -p "$node_cache"
  cp "$PROJECTS/node/package.json" "$PROJECTS/node/package-lock.json" "$node_cache/"
  (cd "$node_cache" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$PROJECTS/node/package-lock.json" "$node_cache/installed-package-lock.json"  # written last: marks success
fi

echo "install-runners: runners ready in $((SECONDS - START))s (cache: $CACHE)"
