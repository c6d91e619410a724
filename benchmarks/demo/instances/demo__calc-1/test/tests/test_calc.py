import pytest

from calc import CalcError, evaluate, tokenize


def test_tokenize():
    assert tokenize("12*(3.5 - .5)") == ["12", "*", "(", "3.5", "-", ".5", ")"]


@pytest.mark.parametrize(
    "expr, expected",
    [
        ("1+2", 3),
        ("7", 7),
        ("2*3+1", 7),
        ("2*(3+4)", 14),
        ("-3+5", 2),
        ("1.5*2", 3.0),
        ("8-3-2", 3),
        ("10-4+1", 7),
        ("1-2*3-4", -9),
    ],
)
def test_evaluate(expr, expected):
    assert evaluate(expr) == expected


def test_whitespace_is_ignored():
    assert evaluate("  2 *  ( 3 + 4 ) ") == 14


def test_division():
    assert evaluate("8/2/2") == 2


def test_division_by_zero():
    with pytest.raises(CalcError, match="division by zero"):
        evaluate("4/(2-2)")


@pytest.mark.parametrize("expr", ["1+", "(1+2", "2*x", ")", "2**3"])
def test_invalid_expression(expr):
    with pytest.raises(CalcError):
        evaluate(expr)
