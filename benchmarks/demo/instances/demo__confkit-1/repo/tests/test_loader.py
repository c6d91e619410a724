import pytest

from confkit import Setting, load

SETTINGS = [
    Setting("debug", bool, default=False),
    Setting("workers", int, default=4),
    Setting("ratio", float, default=0.5),
    Setting("database_url", str, default="sqlite:///app.db"),
]


def test_defaults_when_unset():
    assert load(SETTINGS, environ={}) == {
        "debug": False,
        "workers": 4,
        "ratio": 0.5,
        "database_url": "sqlite:///app.db",
    }


def test_int_and_float_settings():
    values = load(SETTINGS, environ={"APP_WORKERS": "8", "APP_RATIO": "0.25"})
    assert values["workers"] == 8
    assert values["ratio"] == 0.25


def test_str_setting_is_kept_verbatim():
    values = load(SETTINGS, environ={"APP_DATABASE_URL": "postgres://db/app"})
    assert values["database_url"] == "postgres://db/app"


def test_custom_prefix():
    values = load(SETTINGS, environ={"SVC_WORKERS": "2", "APP_WORKERS": "9"}, prefix="SVC_")
    assert values["workers"] == 2


def test_invalid_int_raises_value_error():
    with pytest.raises(ValueError):
        load(SETTINGS, environ={"APP_WORKERS": "many"})
