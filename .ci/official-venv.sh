#!/usr/bin/env bash
# Creates the virtual environment that holds the official `swebench` package, used only
# by the differential tests. It stays apart from the plugin's own environment so the
# official package's heavy dependencies never leak into pytest-swe's runtime.
set -euo pipefail
VENV="${PYTEST_SWE_OFFICIAL_VENV:-$(cd "$(dirname "$0")/.." && pwd)/.venv-official}"
SWEBENCH_VERSION="${PYTEST_SWE_OFFICIAL_VERSION:-5.0.2}"
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import swebench, sys; sys.exit(swebench.__version__ != '$SWEBENCH_VERSION')" 2>/dev/null; then
  echo "official swebench $SWEBENCH_VERSION already in $VENV"
  exit 0
fi
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q "swebench==$SWEBENCH_VERSION"
"$VENV/bin/python" -c "import swebench; print('official swebench', swebench.__version__, 'in', '$VENV')"
