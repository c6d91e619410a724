from tally import Tally


def test_add():
    tally = Tally()
    tally.add("a")
    tally.add("a", 2)
    assert tally.counts == {"a": 3}


def test_total():
    tally = Tally()
    tally.add("a", 2)
    tally.add("b", 5)
    assert tally.total() == 7


def test_most_common_single():
    tally = Tally()
    tally.add("x", 2)
    tally.add("y")
    assert tally.most_common() == "x"
