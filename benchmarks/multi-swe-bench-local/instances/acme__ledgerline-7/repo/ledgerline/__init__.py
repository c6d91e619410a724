"""A ledger of amounts with memos."""

from .ledger import Ledger

__all__ = ["Ledger"]
