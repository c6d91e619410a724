import pytest

from inventory import Stock


def test_add():
    stock = Stock()
    stock.add("apple", 3)
    stock.add("apple", 2)
    assert stock.quantity("apple") == 5


def test_add_rejects_zero():
    with pytest.raises(ValueError):
        Stock().add("apple", 0)


def test_remove_some():
    stock = Stock()
    stock.add("pear", 4)
    stock.remove("pear", 1)
    assert stock.quantity("pear") == 3
