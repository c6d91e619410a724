"""pytest-swe: a pytest plugin that benchmarks coding agents on SWE-style datasets."""

__version__ = "0.1.0"
