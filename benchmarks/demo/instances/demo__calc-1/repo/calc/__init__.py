"""Safe arithmetic expression evaluator."""

from calc.parser import CalcError, evaluate, tokenize

__all__ = ["CalcError", "evaluate", "tokenize"]
__version__ = "0.9.2"
