"""Recursive-descent evaluator.

Grammar::

    expr   := term (("+" | "-") term)*
    term   := factor (("*" | "/") factor)*
    factor := "-" factor | "(" expr ")" | NUMBER
"""

from __future__ import annotations

import re
from typing import Union

Number = Union[int, float]

_TOKEN = re.compile(r"\s*(?:(\d+\.\d*|\.\d+|\d+)|(\S))")


class CalcError(ValueError):
    """The expression cannot be parsed or evaluated."""


def tokenize(text: str) -> list[str]:
    """Split ``text`` into number and operator tokens."""
    tokens: list[str] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:  # pragma: no cover - the pattern matches any non-space
            raise CalcError(f"unexpected input at {pos}")
        tokens.append(match.group(1) or match.group(2))
        pos = match.end()
    return tokens


class _Parser:
    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise CalcError("unexpected end of expression")
        self.pos += 1
        return token

    def expr(self) -> Number:
        left = self.term()
        if self.peek() in ("+", "-"):
            op = self.take()
            right = self.expr()
            return left + right if op == "+" else left - right
        return left

    def term(self) -> Number:
        value = self.factor()
        while self.peek() in ("*", "/"):
            op = self.take()
            right = self.factor()
            if op == "*":
                value = value * right
            elif right == 0:
                raise CalcError("division by zero")
            else:
                value = value / right
        return value

    def factor(self) -> Number:
        token = self.take()
        if token == "-":
            return -self.factor()
        if token == "(":
            value = self.expr()
            if self.take() != ")":
                raise CalcError("expected ')'")
            return value
        if token[0].isdigit() or token[0] == ".":
            return float(token) if "." in token else int(token)
        raise CalcError(f"unexpected token {token!r}")


def evaluate(text: str) -> Number:
    """The value of the arithmetic expression ``text``."""
    parser = _Parser(tokenize(text))
    value = parser.expr()
    if parser.peek() is not None:
        raise CalcError(f"unexpected token {parser.peek()!r}")
    return value
