"""Money amounts as text: ``$1,234.50``, ``€12.30``, ``¥1,200``."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}
_CURRENCY_BY_SYMBOL = {symbol: code for code, symbol in SYMBOLS.items()}
# Minor units per ISO 4217; currencies not listed have two.
_DECIMALS = {"JPY": 0}


def decimals(currency: str) -> int:
    """Number of digits after the decimal point for ``currency``."""
    return _DECIMALS.get(currency, 2)


def format_amount(amount: Decimal, currency: str) -> str:
    """``amount`` with the currency symbol, thousands separators and the currency's decimals."""
    try:
        symbol = SYMBOLS[currency]
    except KeyError:
        raise ValueError(f"unknown currency {currency!r}") from None
    places = decimals(currency)
    quantized = Decimal(amount).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return f"{symbol}{quantized:,.{places}f}"


def parse_amount(text: str) -> tuple[Decimal, str]:
    """Inverse of :func:`format_amount`: ``"€1,234.50"`` gives ``(Decimal("1234.50"), "EUR")``."""
    text = text.strip()
    sign = ""
    if text.startswith("-"):
        sign, text = "-", text[1:]
    try:
        currency = _CURRENCY_BY_SYMBOL[text[:1]]
    except KeyError:
        raise ValueError(f"no known currency symbol in {text!r}") from None
    try:
        return Decimal(sign + text[1:].replace(",", "")), currency
    except InvalidOperation:
        raise ValueError(f"not an amount: {text!r}") from None
