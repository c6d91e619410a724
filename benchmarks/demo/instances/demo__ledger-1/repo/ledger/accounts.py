"""Accounts and the postings that move money between them."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal


@dataclass(frozen=True)
class Posting:
    """A signed amount booked on one account."""

    account: str
    amount: Decimal
    currency: str


@dataclass
class Account:
    """An account holds postings in a single currency."""

    name: str
    currency: str
    postings: list[Posting] = field(default_factory=list)

    def post(self, amount: Decimal) -> Posting:
        posting = Posting(self.name, Decimal(amount), self.currency)
        self.postings.append(posting)
        return posting

    @property
    def balance(self) -> Decimal:
        return sum((p.amount for p in self.postings), Decimal(0))
