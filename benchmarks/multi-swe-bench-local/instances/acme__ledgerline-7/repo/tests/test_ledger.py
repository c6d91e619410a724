from ledgerline import Ledger


def test_record():
    ledger = Ledger()
    ledger.record(5, "coffee")
    assert ledger.entries == [(5, "coffee")]


def test_balance():
    ledger = Ledger()
    ledger.record(10)
    ledger.record(-4)
    assert ledger.balance() == 6
