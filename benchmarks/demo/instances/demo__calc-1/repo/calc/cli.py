"""``calc EXPRESSION``: print the value of an expression."""

from __future__ import annotations

import sys

from calc.parser import CalcError, evaluate


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: calc EXPRESSION", file=sys.stderr)
        return 2
    try:
        print(evaluate(" ".join(args)))
    except CalcError as exc:
        print(f"calc: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
