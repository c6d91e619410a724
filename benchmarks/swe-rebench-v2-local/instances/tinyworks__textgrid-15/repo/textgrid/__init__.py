"""Render rows of values as an aligned plain-text table."""

from textgrid.layout import column_widths
from textgrid.render import render

__all__ = ["column_widths", "render"]
