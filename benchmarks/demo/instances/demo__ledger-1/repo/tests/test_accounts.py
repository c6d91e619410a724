from decimal import Decimal

from ledger import Account


def test_balance_sums_postings():
    account = Account("cash", "USD")
    account.post(Decimal("10.00"))
    account.post(Decimal("-2.50"))
    assert account.balance == Decimal("7.50")


def test_empty_account_has_zero_balance():
    assert Account("cash", "EUR").balance == 0
