"""Download the Debian packages that give the grading-local images a working pip offline.

The eval sandboxes have no network, so ``python -m pip install -e .`` must find everything in
the image: Debian 12's pip, setuptools and wheel (and what they need beyond the base image) are
downloaded on the host with ``apt-get download`` into ``debs/`` and installed by the image build.
Run once before ``pytest-swe images tests/security/data/grading-local.yaml``::

    python tests/security/data/grading-local/fetch_debs.py
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEBS = HERE / "debs"
# Debian 12 (bookworm): pip and its dependencies that the base image lacks; all are "Architecture: all".
PACKAGES = ("python3-pip", "python3-setuptools", "python3-wheel", "python3-distutils", "python3-lib2to3")


def fetch(dest: Path = DEBS) -> list[Path]:
    """Download the packages into ``dest`` unless each is there already; return the files."""
    dest.mkdir(parents=True, exist_ok=True)
    missing = [p for p in PACKAGES if not list(dest.glob(f"{p}_*.deb"))]
    if missing:
        subprocess.run(["apt-get", "download", *missing], cwd=dest, check=True, capture_output=True)
    return sorted(dest.glob("*.deb"))


if __name__ == "__main__":
    for path in fetch():
        print(path)
    sys.exit(0)
