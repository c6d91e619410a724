#!/usr/bin/env bash
# Creates the virtual environments that hold the official `swebench` package, used only
# by the differential tests: 5.x (parsers, grader) and 4.1.0 (the last release that
# generated eval scripts from classic rows and selected parsers by repo). They stay apart
# from the plugin's own environment so the official package's heavy dependencies never
# leak into pytest-swe's runtime. Idempotent.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"

make_venv() {  # make_venv DIR VERSION
  local venv="$1" version="$2"
  if [ -x "$venv/bin/python" ] && "$venv/bin/python" - "$version" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
sys.exit(version("swebench") != sys.argv[1])
PY
  then
    echo "official swebench $version already in $venv"
    return 0
  fi
  rm -rf "$venv"
  python3 -m venv "$venv"
  local out
  if ! out=$("$venv/bin/pip" install -q "swebench==$version" 2>&1); then
    rm -rf "$venv"  # half an environment would pass for a whole one next time
    printf '%s\n' "$out" | grep -v '^WARNING: Location' | tail -20 >&2
    echo "official-venv: pip could not install swebench==$version into $venv (free on its disk:" \
      "$(df -Pm "$(dirname "$venv")" | awk 'NR==2 {print $4}') MB)" >&2
    exit 1
  fi
  "$venv/bin/python" -c "from importlib.metadata import version; print('official swebench', version('swebench'), 'in', '$venv')"
}

make_venv "${PYTEST_SWE_OFFICIAL_VENV:-$ROOT/.venv-official}" "${PYTEST_SWE_OFFICIAL_VERSION:-5.0.2}"
make_venv "${PYTEST_SWE_OFFICIAL_V4_VENV:-$ROOT/.venv-official-v4}" 4.1.0
