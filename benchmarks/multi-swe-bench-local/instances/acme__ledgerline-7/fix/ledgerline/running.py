"""Balances after each entry."""

from itertools import accumulate

from .ledger import Ledger


def running_balances(ledger: Ledger) -> list[int]:
    """The balance after each entry, in order."""
    return list(accumulate(amount for amount, _ in ledger.entries))
