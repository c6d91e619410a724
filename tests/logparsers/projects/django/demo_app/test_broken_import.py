"""Fails to import, so unittest reports an ERROR for the whole module."""

import module_that_does_not_exist  # noqa: F401
