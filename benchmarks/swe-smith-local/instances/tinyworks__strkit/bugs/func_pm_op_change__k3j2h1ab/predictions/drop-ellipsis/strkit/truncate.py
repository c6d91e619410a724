"""Shorten text to a width, marking the cut."""


def truncate(text, width, ellipsis="..."):
    """``text`` cut to at most ``width`` characters, ending with ``ellipsis`` when cut."""
    if len(text) <= width:
        return text
    return text[:width]
