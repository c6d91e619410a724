import pytest

from unitconv import UnknownUnit, convert


def test_same_unit():
    assert convert(3.0, "m", "m") == 3.0


def test_unknown_unit():
    with pytest.raises(UnknownUnit):
        convert(1, "parsec", "m")


def test_mixed_dimensions():
    with pytest.raises(UnknownUnit):
        convert(1, "kg", "m")
