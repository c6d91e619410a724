"""A second file so the report has several file headers."""


def test_one():
    assert True


def test_two():
    assert 1 == 2
