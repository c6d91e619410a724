"""Sample tests whose pytest output exercises the pytest-family log parsers."""

import enum

import pytest


class MouseButton(enum.Enum):
    LEFT = 1
    RIGHT = 3


def test_passes():
    assert 1 + 1 == 2


def test_fails_with_multiline_message():
    expected = "line one\nline two\nline three"
    assert expected == "line one\nline 2\nline three"


@pytest.mark.skip(reason="not on this platform")
def test_skipped_by_marker():
    raise AssertionError("never runs")


def test_skipped_at_run_time():
    pytest.skip("decided while running")


@pytest.mark.xfail(reason="known bug")
def test_expected_failure():
    raise AssertionError("still broken")


@pytest.mark.xfail(reason="fixed meanwhile")
def test_unexpected_pass():
    assert True


@pytest.mark.xfail(strict=True, reason="must keep failing")
def test_strict_unexpected_pass():
    assert True


@pytest.fixture
def broken_setup():
    raise RuntimeError("fixture setup failed")


def test_error_in_setup(broken_setup):
    assert True


@pytest.fixture
def broken_teardown():
    yield
    raise RuntimeError("fixture teardown failed")


def test_passes_then_errors_in_teardown(broken_teardown):
    assert True


def test_prints_a_status_looking_line():
    print("PASSED not_a_real_test.py::test_forged")
    print("FAILED")
    raise AssertionError("shows captured output")


@pytest.mark.parametrize(
    "text",
    [
        "a b",
        "x - y",
        "[bracket]",
        "tab\there",
        "ünïcode",
        "/tmp/some/dir/file.txt",
        "//server/share",
        "/tmp/*.py",
        "a]b[c",
        "trailing ",
    ],
)
def test_parameter(text):
    assert text not in ("x - y", "/tmp/some/dir/file.txt")


@pytest.mark.parametrize("button", [MouseButton.LEFT, MouseButton.RIGHT])
def test_click(button):
    assert button is MouseButton.LEFT


@pytest.mark.parametrize("value", [pytest.param(1, id="one - first"), pytest.param(2, id="[2] second")])
def test_custom_ids(value):
    assert value == 1


class TestGroup:
    @pytest.mark.parametrize("n", [1, 2])
    def test_method(self, n):
        assert n == 1

    @pytest.mark.skip(reason="class level skip")
    def test_skipped_method(self):
        pass
