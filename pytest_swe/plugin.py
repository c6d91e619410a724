"""pytest hooks of pytest-swe."""
