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


def test_remove_more_than_available():
    stock = Stock()
    stock.add("pear", 1)
    with pytest.raises(ValueError):
        stock.remove("pear", 2)
    assert stock.quantity("pear") == 1


def test_remove_unknown_sku():
    with pytest.raises(ValueError):
        Stock().remove("plum", 1)


def test_remove_all_clears_sku():
    stock = Stock()
    stock.add("fig", 2)
    stock.remove("fig", 2)
    assert stock.skus() == []
