import subprocess
import sys
import textwrap

from runlog import summarize

INNER = textwrap.dedent(
    """
    import pytest


    def test_ok():
        pass


    def test_also_ok():
        pass


    def test_bad():
        assert 1 == 2


    @pytest.mark.skip(reason="not here")
    def test_skipped():
        pass


    @pytest.mark.skip(reason="not here")
    def test_skipped_too():
        pass
    """
)


def run_inner(tmp_path):
    """Run a pytest session of its own on a small test file; print its output, as pytester does."""
    (tmp_path / "test_inner.py").write_text(INNER)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-rA", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    print(proc.stdout)
    return proc.stdout


def test_counts_passed_and_failed(tmp_path):
    counts = summarize(run_inner(tmp_path))
    assert counts["PASSED"] == 2
    assert counts["FAILED"] == 1


def test_empty_output():
    assert summarize("") == {}


def test_counts_skipped(tmp_path):
    assert summarize(run_inner(tmp_path)).get("SKIPPED") == 2


def test_counts_every_outcome(tmp_path):
    assert summarize(run_inner(tmp_path)) == {"PASSED": 2, "FAILED": 1, "SKIPPED": 2}
