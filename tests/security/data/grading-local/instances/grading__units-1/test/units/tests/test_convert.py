import pytest

from units import convert


def test_same_unit():
    assert convert(3.5, "m", "m") == 3.5


def test_unknown_unit():
    with pytest.raises(ValueError, match="'yd'"):
        convert(1, "yd", "m")


def test_km_to_m():
    assert convert(2, "km", "m") == 2000


def test_mm_to_cm():
    assert convert(30, "mm", "cm") == pytest.approx(3)
