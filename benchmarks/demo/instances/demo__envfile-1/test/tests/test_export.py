"""``export KEY=value`` lines, as written for files that a shell also sources."""

from envfile import parse


def test_export_prefix_is_ignored():
    assert parse("export A=1\nB=2\n") == {"A": "1", "B": "2"}


def test_export_with_quoted_value():
    assert parse("export GREETING=\"hello world\"") == {"GREETING": "hello world"}


def test_export_followed_by_tab_or_several_spaces():
    assert parse("export\tA=1\nexport   B=2") == {"A": "1", "B": "2"}


def test_keys_starting_with_export_are_plain_keys():
    assert parse("export=1\nexporter=2\nEXPORT_DIR=/tmp") == {
        "export": "1",
        "exporter": "2",
        "EXPORT_DIR": "/tmp",
    }
