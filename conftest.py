# Repository-level pytest settings only.

# The demo instances' repositories hold their own test files: they are data, never collected here.
collect_ignore_glob = ["benchmarks/*/instances/*"]
