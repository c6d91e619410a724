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


def test_setup_error_is_not_a_known_issue(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.fixture
        def broken():
            raise RuntimeError("the fixture broke")

        @pytest.mark.known_issue("BUG-3")
        def test_needs_fixture(broken):
            assert False
        """
    )
    result = pytester.runpytest("-rA")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*ERROR at setup of test_needs_fixture*"])


def test_setup_error_in_subprocess(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.fixture
        def broken():
            raise RuntimeError("the fixture broke")

        @pytest.mark.known_issue("BUG-4")
        def test_needs_fixture(broken):
            pass
        """
    )
    result = pytester.runpytest_subprocess("-rA")
    result.stdout.fnmatch_lines(["*1 error*"])
    assert result.ret == 1
