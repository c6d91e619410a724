"""Column widths of a table: the widest text in each column."""


def column_widths(header, rows):
    """One width per column, wide enough for the header and every cell below it."""
    widths = [len(str(title)) for title in header]
    for row in rows:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], len(str(cell)))
    return widths
