"""Client for the official ``swebench`` parsers, which run in their own virtual environment.

The official package is never imported here: :mod:`official_driver` runs under the official
venv's interpreter and answers JSON requests, so the differential tests compare outputs, not
code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_swe.families.logparsers import LogParseError
from pytest_swe.families.logparsers import ParseContext
from pytest_swe.families.logparsers import get_parser

REPO_ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("official_driver.py")

RELEASES = {
    # release -> (environment variable that overrides the venv, default venv directory)
    "5.0.2": ("PYTEST_SWE_OFFICIAL_VENV", REPO_ROOT / ".venv-official"),
    "4.1.0": ("PYTEST_SWE_OFFICIAL_V4_VENV", REPO_ROOT / ".venv-official-v4"),
}


def official_venv(release: str) -> Path:
    variable, default = RELEASES[release]
    return Path(os.environ.get(variable) or default)


def missing_reason(release: str) -> str | None:
    """Why the official parsers of ``release`` cannot be asked, or None when they can."""
    python = official_venv(release) / "bin" / "python"
    if not python.exists():
        return (
            f"official swebench {release} venv not found at {python.parent.parent}: run .ci/official-venv.sh"
        )
    probe = subprocess.run(
        [str(python), "-c", "from importlib.metadata import version; print(version('swebench'))"],
        capture_output=True,
        text=True,
        check=False,
    )
    installed = probe.stdout.strip()
    if installed != release:
        return f"{python} has swebench {installed or 'missing'}, expected {release}: run .ci/official-venv.sh"
    return None


@dataclass(frozen=True)
class Outcome:
    """A parser's answer: a status map, or the type of exception it raised."""

    statuses: dict[str, str] | None = None
    raised: str | None = None

    def describe(self) -> str:
        return f"raised {self.raised}" if self.raised else f"{len(self.statuses or {})} statuses"


def our_outcome(parser: str, log: str, ctx: ParseContext, release: str) -> Outcome:
    try:
        return Outcome(statuses=get_parser(parser, harness_version=release)(log, ctx))
    except LogParseError as exc:
        return Outcome(raised=f"LogParseError: {exc}")


class OfficialParsers:
    """One long-lived driver process per official release (imports take over a second)."""

    def __init__(self, release: str) -> None:
        self.release = release
        python = official_venv(release) / "bin" / "python"
        self._process = subprocess.Popen(
            [str(python), str(DRIVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        )

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(json.dumps(request) + "\n")
        self._process.stdin.flush()
        answer = self._process.stdout.readline()
        if not answer:
            raise RuntimeError(f"official swebench {self.release} driver exited ({self._process.poll()})")
        return json.loads(answer)

    def names(self) -> list[str]:
        return self._ask({"op": "names"})["ok"]

    def repo_map(self) -> dict[str, list[str]]:
        return self._ask({"op": "repo_map"})["ok"]

    def parse(self, parser: str, log: str, ctx: ParseContext) -> Outcome:
        spec = {
            "instance_id": ctx.instance_id,
            "repo": ctx.repo,
            "version": ctx.version,
            "FAIL_TO_PASS": list(ctx.fail_to_pass),
            "PASS_TO_PASS": list(ctx.pass_to_pass),
        }
        answer = self._ask({"op": "parse", "parser": parser, "log": log, "spec": spec})
        if "raised" in answer:
            return Outcome(raised=answer["raised"])
        return Outcome(statuses=answer["ok"])

    def close(self) -> None:
        if self._process.stdin:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()


def compare(ours: Outcome, official: Outcome) -> str | None:
    """None when the outcomes agree (equal maps, or both raised), else a readable difference."""
    if official.raised or ours.raised:
        if official.raised and ours.raised:
            return None
        return f"official {official.describe()}, ours {ours.describe()}"
    assert ours.statuses is not None and official.statuses is not None
    if ours.statuses == official.statuses:
        return None
    lines = []
    for test in sorted(set(ours.statuses) | set(official.statuses)):
        mine, theirs = ours.statuses.get(test), official.statuses.get(test)
        if mine != theirs:
            lines.append(f"  {test!r}: official {theirs!r}, ours {mine!r}")
    shown = "\n".join(lines[:40])
    more = f"\n  ... {len(lines) - 40} more" if len(lines) > 40 else ""
    return f"{len(lines)} ids differ:\n{shown}{more}"


if __name__ == "__main__":  # manual check: python logparsers_official.py PARSER < log
    name = sys.argv[1]
    text = sys.stdin.read()
    client = OfficialParsers("5.0.2")
    print(compare(our_outcome(name, text, ParseContext(), "5.0.2"), client.parse(name, text, ParseContext())))
    client.close()
