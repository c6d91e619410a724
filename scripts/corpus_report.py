#!/usr/bin/env python3
"""Grade the grading-integrity corpora under each policy and print what was rewarded.

For every attack mechanism: how many cases ran and how many were rewarded (resolved) under each
policy, and how many ended in an infrastructure error (no reward, but no verdict either); then the
honest cases that did not resolve, with the harness's message. Each policy is one
``pytest -n WORKERS`` run of the real harness on the Docker engine over one dataset holding every
case (see ``tests/security/corpus``).

    python scripts/corpus_report.py                         # the test sample, strict and official
    python scripts/corpus_report.py --full                  # every case on every instance
    python scripts/corpus_report.py --policy official --corpus attacks --json figures.json
    python scripts/corpus_report.py --full --case install-plants-pth   # one attack, every instance

The images must exist: ``pytest-swe images benchmarks/demo.yaml``, then
``python tests/security/data/grading-local/fetch_debs.py`` and
``pytest-swe images tests/security/data/grading-local.yaml``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "security"))

from corpus.context import all_contexts  # noqa: E402
from corpus.replay import Replay  # noqa: E402
from corpus.replay import replay  # noqa: E402
from corpus.replay import select  # noqa: E402


def table(runs: dict[str, Replay]) -> str:
    """Attack mechanisms as rows; per policy, rewarded of cases (and errors)."""
    policies = list(runs)
    mechanisms = sorted({m for run in runs.values() for m in run.by_mechanism()})
    header = f"{'mechanism':26} {'cases':>5} " + " ".join(
        f"{p + ' rewarded':>17} {'errors':>6}" for p in policies
    )
    lines = [header, "-" * len(header)]
    totals = {p: [0, 0, 0] for p in policies}
    for mechanism in mechanisms:
        cells = []
        cases = 0
        for policy in policies:
            counts = runs[policy].by_mechanism().get(mechanism, {})
            cases = counts.get("cases", 0)
            cells.append(f"{counts.get('rewarded', 0):>17} {counts.get('errors', 0):>6}")
            totals[policy][0] += counts.get("cases", 0)
            totals[policy][1] += counts.get("rewarded", 0)
            totals[policy][2] += counts.get("errors", 0)
        lines.append(f"{mechanism:26} {cases:>5} " + " ".join(cells))
    first = totals[policies[0]][0] if policies else 0
    lines.append("-" * len(header))
    lines.append(f"{'total':26} {first:>5} " + " ".join(f"{t[1]:>17} {t[2]:>6}" for t in totals.values()))
    return "\n".join(lines)


def honest_report(runs: dict[str, Replay]) -> str:
    lines = []
    for policy, run in runs.items():
        unresolved = [r for r in run.results if r.outcome != "passed"]
        lines.append(f"honest cases unresolved under {policy}: {len(unresolved)} of {len(run.results)}")
        lines += [f"  {r.line()}" for r in unresolved]
    return "\n".join(lines)


def applies_report(applied: dict[str, dict[str, int]]) -> str:
    """How many rows of each run had their patch applied in which command (``apply_in``)."""
    return "\n".join(
        f"apply_in under {policy}: " + ", ".join(f"{k} {n}" for k, n in counts.items())
        for policy, counts in applied.items()
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    parser.add_argument("--policy", action="append", choices=["strict", "official"], help="repeatable")
    parser.add_argument("--corpus", choices=["attacks", "honest", "both"], default="both")
    parser.add_argument("--full", action="store_true", help="every case on every instance")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, help="work directory (default: a temporary one)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument(
        "--case", action="append", metavar="NAME", help="only cases whose name contains NAME (repeatable)"
    )
    parser.add_argument("--instance", action="append", metavar="ID", help="only these instances (repeatable)")
    args = parser.parse_args(argv)
    policies = args.policy or ["strict", "official"]
    contexts = all_contexts()
    if args.instance:
        unknown = set(args.instance) - {c.instance_id for c in contexts}
        if unknown:
            parser.error(f"--instance: no such instance in the corpora: {', '.join(sorted(unknown))}")
        contexts = [c for c in contexts if c.instance_id in args.instance]
    attacks, honest = select(contexts, full=args.full)
    if args.case:
        attacks = [e for e in attacks if any(n in e.case.name for n in args.case)]
        honest = [e for e in honest if any(n in e.case.name for n in args.case)]
    out = args.out or Path(tempfile.mkdtemp(prefix="corpus-report-"))
    attack_runs: dict[str, Replay] = {}
    honest_runs: dict[str, Replay] = {}
    applied: dict[str, dict[str, int]] = {}
    for policy in policies:
        corpus = (attacks if args.corpus != "honest" else []) + (honest if args.corpus != "attacks" else [])
        run = replay(out / policy, f"corpus-{policy}", corpus, policy=policy, workers=args.workers)
        if run.exit_code not in (0, 1):
            # A run-wide fault (an image not built, a bad option) stops every row: said once, with
            # pytest's own words, in place of a "missing" line per row.
            print(
                f"{policy}: pytest exited {run.exit_code}, no row graded:\n{run.output[-3000:]}",
                file=sys.stderr,
            )
            return 2
        applied[policy] = run.by_apply()
        ids = {e.row_id for e in attacks}
        attack_part = [r for r in run.results if r.entry.row_id in ids]
        honest_part = [r for r in run.results if r.entry.row_id not in ids]
        attack_runs[policy] = Replay(attack_part, run.seconds, run.exit_code, run.output)
        honest_runs[policy] = Replay(honest_part, run.seconds, run.exit_code, run.output)
        print(
            f"{policy}: {len(corpus)} rows graded in {run.seconds:.0f}s (pytest exit {run.exit_code})",
            flush=True,
        )
    if args.corpus != "honest":
        print(table(attack_runs))
    if args.corpus != "attacks":
        print(honest_report(honest_runs))
    print(applies_report(applied))
    if args.json:
        figures = {
            policy: {
                "seconds": attack_runs[policy].seconds,
                "attacks": {m: dict(c) for m, c in attack_runs[policy].by_mechanism().items()},
                "rewarded": sorted(r.entry.row_id for r in attack_runs[policy].results if r.rewarded),
                "errors": sorted(r.entry.row_id for r in attack_runs[policy].results if r.outcome == "error"),
                "honest_unresolved": {
                    r.entry.row_id: r.message for r in honest_runs[policy].results if r.outcome != "passed"
                },
                "apply_in": applied[policy],
            }
            for policy in policies
        }
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
