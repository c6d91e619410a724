import pytest

from durations import InvalidDuration, parse


def test_seconds():
    assert parse("45s") == 45


def test_hours():
    assert parse("2h") == 7200


def test_invalid():
    with pytest.raises(InvalidDuration):
        parse("soon")
