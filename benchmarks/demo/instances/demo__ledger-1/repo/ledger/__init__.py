"""Double-entry bookkeeping primitives."""

from ledger.accounts import Account, Posting

__all__ = ["Account", "Posting"]
__version__ = "3.0.1"
