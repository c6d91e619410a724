import pytest

from envfile import ParseError, load, parse


def test_simple_assignments():
    assert parse("A=1\nB=two\n") == {"A": "1", "B": "two"}


def test_comments_and_blank_lines_are_skipped():
    assert parse("# settings\n\nA=1\n   # indented comment\n") == {"A": "1"}


def test_quoted_values():
    text = "A='single quoted'\nB=\"line\\nbreak\"\nC=\"say \\\"hi\\\"\"\n"
    assert parse(text) == {"A": "single quoted", "B": "line\nbreak", "C": 'say "hi"'}


def test_value_may_contain_equals_sign():
    assert parse("URL=postgres://db/app?sslmode=require") == {"URL": "postgres://db/app?sslmode=require"}


def test_later_assignment_wins():
    assert parse("A=1\nA=2") == {"A": "2"}


def test_missing_equals_sign_reports_line():
    with pytest.raises(ParseError, match="line 2"):
        parse("A=1\nJUSTAWORD\n")


def test_invalid_key():
    with pytest.raises(ParseError, match="invalid key '1A'"):
        parse("1A=x")


def test_load_reads_file(tmp_path):
    path = tmp_path / ".env"
    path.write_text("A=1\n", encoding="utf-8")
    assert load(path) == {"A": "1"}


def test_invalid_key_after_export_reports_the_key():
    with pytest.raises(ParseError, match="line 2: invalid key '1A'"):
        parse("A=1\nexport 1A=x\n")
