import pytest

from intervals import merge
from intervals import total_length


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        pytest.param([(1, 3), (2, 6), (8, 10)], [(1, 6), (8, 10)], id="overlap"),
        pytest.param([(1, 2), (2, 4)], [(1, 4)], id="touching"),
        pytest.param([(1, 2)], [(1, 2)], id="single"),
    ],
)
def test_merge_sorted(given, expected):
    assert merge(given) == expected


def test_merge_empty():
    assert merge([]) == []


def test_merge_rejects_reversed_interval():
    with pytest.raises(ValueError):
        merge([(3, 1)])


def test_total_length():
    assert total_length([(1, 3), (2, 6)]) == 5


@pytest.mark.xfail(reason="half-open intervals are not supported yet", strict=True)
def test_half_open():
    assert merge([(1, 2), (2, 4)], closed=False) == [(1, 2), (2, 4)]
