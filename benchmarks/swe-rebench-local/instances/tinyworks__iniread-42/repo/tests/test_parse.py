import pytest

from iniread import ParseError, loads


def test_sections():
    assert loads("[a]\nx = 1\n[b]\ny = 2\n") == {"": {}, "a": {"x": "1"}, "b": {"y": "2"}}


def test_comments_and_blank_lines():
    assert loads("# top\n\n; also\nk = v\n") == {"": {"k": "v"}}


def test_bad_line():
    with pytest.raises(ParseError):
        loads("[a]\njust words\n")
