import pytest

from tempconv import c_to_f
from tempconv import f_to_c


def test_c_to_f_freezing():
    assert c_to_f(0) == 32


def test_c_to_f_boiling():
    assert c_to_f(100) == 212


def test_f_to_c_freezing():
    assert f_to_c(32) == 0


@pytest.mark.parametrize("celsius", [-40, 0, 37.5, 100])
def test_round_trip(celsius):
    assert f_to_c(c_to_f(celsius)) == pytest.approx(celsius)
