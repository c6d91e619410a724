"""Parse ``[section]`` headers and ``key = value`` lines; ``#`` and ``;`` start comments."""


class ParseError(ValueError):
    """A line that is neither a section header, a pair, a comment nor blank."""


def loads(text):
    """``{section: {key: value}}``; pairs before any header land in section ``""``."""
    sections = {"": {}}
    current = sections[""]
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1].strip(), {})
            continue
        if "=" not in line:
            raise ParseError(f"line {number}: expected 'key = value', got {raw!r}")
        parts = line.split("=")
        current[parts[0].strip()] = parts[1].strip()
    return sections
