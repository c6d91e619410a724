import re


class ValidationError(ValueError):
    pass


_SLUG = re.compile(r"^[-a-zA-Z0-9_]+$")


def validate_slug(value):
    """Accept a slug: letters, numbers, underscores or hyphens."""
    if not _SLUG.match(value):
        raise ValidationError(f"{value!r} is not a valid slug")
