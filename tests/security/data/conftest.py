"""The repositories under ``grading-local/instances`` are task fixtures, not tests of this project."""

collect_ignore_glob = ["grading-local/*"]
