"""Sample tests in SymPy's style (plain functions, SymPy's own XFAIL/skip helpers)."""

from sympy import Rational
from sympy import symbols
from sympy.testing.pytest import XFAIL
from sympy.testing.pytest import raises
from sympy.testing.pytest import skip

x = symbols("x")


def test_passes():
    assert Rational(1, 2) + Rational(1, 2) == 1


def test_fails():
    assert (x + 1) ** 2 == x**2 + 1, "expansion is not automatic"


def test_errors():
    raise ValueError("boom")


def test_raises_helper():
    raises(ZeroDivisionError, lambda: 1 / 0)


@XFAIL
def test_known_failure():
    assert x == 1


@XFAIL
def test_unexpectedly_passes():
    assert x == x


def test_skipped():
    skip("needs an optional dependency")
