import pytest

from skyproj import separation
from skyproj import wrap


@pytest.mark.parametrize(("angle", "expected"), [(370, 10), (-10, 350), (720, 0)])
def test_wrap(angle, expected):
    assert wrap(angle) == expected


def test_wrap_at_180():
    assert wrap(190, limit=180) == -170


def test_separation_simple():
    assert separation(10, 40) == 30


@pytest.mark.parametrize(("a", "b"), [(5, 355), (355, 5), (-170, 170)])
def test_separation_across_zero(a, b):
    assert separation(a, b) in (10, 20)
