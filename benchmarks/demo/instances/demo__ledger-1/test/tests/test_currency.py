from decimal import Decimal

import pytest

from ledger.fmt import format_amount, parse_amount


class TestFormatAmount:
    def test_two_decimals_and_thousands_separator(self):
        assert format_amount(Decimal("1234.5"), "USD") == "$1,234.50"

    def test_rounds_half_up(self):
        assert format_amount(Decimal("2.675"), "EUR") == "€2.68"

    def test_zero_decimal_currency(self):
        assert format_amount(Decimal("1200"), "JPY") == "¥1,200"

    def test_zero(self):
        assert format_amount(Decimal("0"), "GBP") == "£0.00"

    def test_unknown_currency(self):
        with pytest.raises(ValueError, match="unknown currency"):
            format_amount(Decimal("1"), "XYZ")

    def test_negative_amount_has_sign_before_symbol(self):
        assert format_amount(Decimal("-5.5"), "USD") == "-$5.50"

    def test_negative_zero_decimal_currency(self):
        assert format_amount(Decimal("-1200"), "JPY") == "-¥1,200"

    def test_small_negative_amount_rounding_to_zero_has_no_sign(self):
        assert format_amount(Decimal("-0.001"), "USD") == "$0.00"


class TestParseAmount:
    def test_parse_with_separator(self):
        assert parse_amount("€1,234.50") == (Decimal("1234.50"), "EUR")

    def test_parse_negative(self):
        assert parse_amount("-$5.50") == (Decimal("-5.50"), "USD")

    def test_parse_rejects_missing_symbol(self):
        with pytest.raises(ValueError):
            parse_amount("12.00")

    def test_round_trip_positive(self):
        amount = Decimal("98765.43")
        assert parse_amount(format_amount(amount, "USD")) == (amount, "USD")

    @pytest.mark.parametrize("currency", ["USD", "EUR", "JPY"])
    def test_round_trip_negative(self, currency):
        amount = Decimal("-4321")
        assert parse_amount(format_amount(amount, currency)) == (amount, currency)
