import pytest

from units import convert


def test_same_unit():
    assert convert(3.5, "m", "m") == 3.5


def test_unknown_unit():
    with pytest.raises(ValueError, match="'yd'"):
        convert(1, "yd", "m")
