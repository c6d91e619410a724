import unittest

from minidj.validators import ValidationError
from minidj.validators import validate_slug


class SlugValidatorTests(unittest.TestCase):
    def test_letters_and_hyphens(self):
        validate_slug("hello-world")

    def test_rejects_spaces(self):
        with self.assertRaises(ValidationError):
            validate_slug("hello world")

    def test_digits_allowed(self):
        validate_slug("release-2024")

    def test_only_digits(self):
        validate_slug("42")
