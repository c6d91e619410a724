import pytest

from portspec import Endpoint, parse_endpoint, parse_port


def test_port():
    assert parse_port(" 8080 ") == 8080


def test_not_a_number():
    with pytest.raises(ValueError, match="not a port number"):
        parse_port("http")


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("db:5432", Endpoint("db", 5432)),
        ("8000", Endpoint("localhost", 8000)),
        ("[::1]:443", Endpoint("::1", 443)),
    ],
)
def test_endpoint(spec, expected):
    assert parse_endpoint(spec) == expected


def test_empty_host():
    with pytest.raises(ValueError):
        parse_endpoint(":80")


def test_str():
    assert str(Endpoint("::1", 443)) == "[::1]:443"
