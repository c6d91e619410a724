import pytest

from pager import page_count, paginate


def test_page_count_rounds_up():
    assert page_count(45, 20) == 3


def test_page_count_of_empty_listing_is_one():
    assert page_count(0, 20) == 1


def test_page_count_rejects_zero_per_page():
    with pytest.raises(ValueError):
        page_count(10, 0)


def test_out_of_range_page_is_rejected():
    with pytest.raises(ValueError):
        paginate(list(range(10)), page=3, per_page=5)
    with pytest.raises(ValueError):
        paginate(list(range(10)), page=0, per_page=5)


def test_has_next_and_has_previous():
    first = paginate(list(range(10)), page=1, per_page=5)
    last = paginate(list(range(10)), page=2, per_page=5)
    assert first.has_next and not first.has_previous
    assert last.has_previous and not last.has_next
