from strkit import truncate


def test_short():
    assert truncate("hi", 5) == "hi"


def test_exact_width():
    assert truncate("hello", 5) == "hello"


def test_long():
    assert truncate("hello world", 8) == "hello..."


def test_tiny_width():
    assert truncate("hello world", 2) == ".."
