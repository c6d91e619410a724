"""Lay out a header and rows with columns padded to a common width."""

from textgrid.layout import column_widths


def render(header, rows, sep=" | "):
    widths = column_widths(header, rows)
    lines = [sep.join(str(cell).ljust(width) for cell, width in zip(line, widths)).rstrip() for line in [header, *rows]]
    return "\n".join(lines)
