import pytest

from durations import InvalidDuration, parse


def test_seconds():
    assert parse("45s") == 45


def test_hours():
    assert parse("2h") == 7200


def test_invalid():
    with pytest.raises(InvalidDuration):
        parse("soon")


@pytest.mark.parametrize(("text", "seconds"), [("1h30m", 5400), ("2m5s", 125), ("1h1m1s", 3661)])
def test_compound(text, seconds):
    assert parse(text) == seconds
