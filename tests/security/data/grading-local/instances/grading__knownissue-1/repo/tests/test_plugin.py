import pytest


@pytest.fixture
def marked(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.known_issue("BUG-1")
        def test_fails():
            assert 1 + 1 == 3

        @pytest.mark.known_issue(ticket="BUG-2")
        def test_passes():
            assert True

        def test_plain():
            assert True
        """
    )
    return pytester


def test_failure_reported_as_xfail(marked: pytest.Pytester) -> None:
    result = marked.runpytest("-rA")
    result.assert_outcomes(passed=1, xfailed=1, xpassed=1)
    result.stdout.fnmatch_lines(["*XFAIL*test_fails*known issue BUG-1*"])


def test_strict_fails_a_passing_known_issue(marked: pytest.Pytester) -> None:
    result = marked.runpytest("--known-issues-strict")
    result.assert_outcomes(passed=1, xfailed=1, failed=1)


def test_header(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest_subprocess()
    result.stdout.fnmatch_lines(["knownissue: strict=False"])
    assert result.ret == 0
