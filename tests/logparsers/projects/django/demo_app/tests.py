"""Sample tests whose verbosity-2 output exercises the Django log parser."""

import sys
import unittest

from django.test import SimpleTestCase
from django.test import TestCase


class ArithmeticTests(SimpleTestCase):
    def test_passes(self):
        self.assertEqual(1 + 1, 2)

    def test_fails_with_multiline_message(self):
        self.assertEqual("line one\nline two\nline three", "line one\nline 2\nline three")

    def test_errors(self):
        raise RuntimeError("boom")

    @unittest.skip("not supported here")
    def test_skipped(self):
        raise AssertionError("never runs")

    @unittest.expectedFailure
    def test_expected_failure(self):
        self.assertEqual(1, 2)

    @unittest.expectedFailure
    def test_unexpected_success(self):
        pass

    def test_documented(self):
        """Adds numbers (unittest prints this first docstring line at verbosity 2).

        Later lines are not printed.
        """
        self.assertEqual(2 + 2, 4)

    def test_version_alias(self):
        """--version is equivalent to version"""

    def test_subtests(self):
        for number in range(3):
            with self.subTest(number=number):
                self.assertLess(number, 2)

    def test_writes_to_stderr(self):
        sys.stderr.write("diagnostic output written while the test runs\n")


class ViewTests(TestCase):
    def test_server_error_is_logged(self):
        self.client.raise_request_exception = False
        response = self.client.get("/boom/")
        self.assertEqual(response.status_code, 500)
