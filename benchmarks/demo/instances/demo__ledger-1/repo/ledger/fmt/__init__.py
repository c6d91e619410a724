"""Formatting and parsing of money amounts for reports and exports."""

from ledger.fmt.currency import SYMBOLS, format_amount, parse_amount

__all__ = ["SYMBOLS", "format_amount", "parse_amount"]
