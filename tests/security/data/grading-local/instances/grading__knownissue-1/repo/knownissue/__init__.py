"""pytest-knownissue: ``@pytest.mark.known_issue("BUG-12")`` reports a failing test as xfail."""

__version__ = "0.4.1"
