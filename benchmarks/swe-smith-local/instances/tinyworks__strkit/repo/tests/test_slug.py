from strkit import slugify


def test_basic():
    assert slugify("Hello, World!") == "hello-world"


def test_custom_separator():
    assert slugify("a b", sep="_") == "a_b"


def test_digits_kept():
    assert slugify("Top 10 Tips") == "top-10-tips"
