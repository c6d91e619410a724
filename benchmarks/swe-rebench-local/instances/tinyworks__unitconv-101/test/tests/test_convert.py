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


@pytest.mark.parametrize(
    ("value", "source", "target", "expected"),
    [(1.5, "km", "m", 1500.0), (250, "cm", "m", 2.5), (2, "kg", "g", 2000.0)],
)
def test_scale(value, source, target, expected):
    assert convert(value, source, target) == pytest.approx(expected)


def test_digits():
    assert convert(1, "mi", "km", digits=3) == 1.609
