# Repository-level pytest settings only.

# Benchmark data directories (benchmarks/<name>/...) hold the repositories of local datasets, with
# their own test files: they are data, never collected here. Benchmark files sit in benchmarks/ itself.
collect_ignore_glob = ["benchmarks/*/*"]
