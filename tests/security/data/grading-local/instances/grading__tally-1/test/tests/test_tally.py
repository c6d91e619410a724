from tally import most_common
from tally import tally


def test_tally_counts():
    assert tally("abca") == {"a": 2, "b": 1, "c": 1}


def test_most_common_order():
    assert most_common("abbccc") == [("c", 3), ("b", 2), ("a", 1)]


def test_most_common_ties_in_first_seen_order():
    assert most_common("xyyx", 1) == [("x", 2)]


def test_most_common_zero():
    assert most_common("aab", 0) == []


def test_most_common_zero_of_one_item():
    assert most_common(["a"], 0) == []
