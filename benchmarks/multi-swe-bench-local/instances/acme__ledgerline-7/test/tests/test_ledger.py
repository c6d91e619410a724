import pytest

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


def test_memo_is_stripped():
    ledger = Ledger()
    ledger.record(3, "  tea ")
    assert ledger.entries == [(3, "tea")]


@pytest.mark.skipif(not hasattr(Ledger, "to_csv"), reason="Ledger.to_csv does not exist")
def test_to_csv():
    ledger = Ledger()
    ledger.record(7, "rent")
    assert ledger.to_csv() == "amount,memo\n7,rent\n"
