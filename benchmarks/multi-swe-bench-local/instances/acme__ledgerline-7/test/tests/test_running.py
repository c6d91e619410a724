from ledgerline import Ledger
from ledgerline.running import running_balances


def test_running_balances():
    ledger = Ledger()
    for amount in (5, -2, 10):
        ledger.record(amount)
    assert running_balances(ledger) == [5, 3, 13]


def test_running_balances_of_empty_ledger():
    assert running_balances(Ledger()) == []
