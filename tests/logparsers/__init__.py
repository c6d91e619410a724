"""Log-parser tests: differential against the official parsers on real runner logs."""
