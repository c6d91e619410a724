"""Client for the official ``swebench`` parsers, which run in their own virtual environment.

The official package is never imported here: :mod:`official_driver` runs under the official
venv's interpreter and answers JSON requests, so the differential tests compare outputs, not
code.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from pytest_swe.families.logparsers import LogParseError
from pytest_swe.families.logparsers import ParseContext
from pytest_swe.families.logparsers import get_parser

from conftest import JsonLinesDriver
from conftest import official_venv

DRIVER = Path(__file__).with_name("official_driver.py")


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


class OfficialParsers(JsonLinesDriver):
    """One long-lived driver process per official release (imports take over a second)."""

    def __init__(self, release: str) -> None:
        self.release = release
        python = official_venv(release) / "bin" / "python"
        super().__init__(python, DRIVER, f"official swebench {release} driver")

    def names(self) -> list[str]:
        return self.ask({"op": "names"})["ok"]

    def repo_map(self) -> dict[str, list[str]]:
        return self.ask({"op": "repo_map"})["ok"]

    def parse(self, parser: str, log: str, ctx: ParseContext) -> Outcome:
        spec = {
            "instance_id": ctx.instance_id,
            "repo": ctx.repo,
            "version": ctx.version,
            "FAIL_TO_PASS": list(ctx.fail_to_pass),
            "PASS_TO_PASS": list(ctx.pass_to_pass),
        }
        answer = self.ask({"op": "parse", "parser": parser, "log": log, "spec": spec})
        if "raised" in answer:
            return Outcome(raised=answer["raised"])
        return Outcome(statuses=answer["ok"])


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


if __name__ == "__main__":  # manual check, from tests/: python -m logparsers.logparsers_official PARSER < log
    name = sys.argv[1]
    text = sys.stdin.read()
    client = OfficialParsers("5.0.2")
    print(compare(our_outcome(name, text, ParseContext(), "5.0.2"), client.parse(name, text, ParseContext())))
    client.close()
