"""Fails to import, so pytest reports a collection error for the whole file."""

import module_that_does_not_exist  # noqa: F401


def test_never_collected():
    pass
