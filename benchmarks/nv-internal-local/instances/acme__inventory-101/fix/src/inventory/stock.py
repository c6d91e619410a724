"""A stock of items counted per SKU."""


class Stock:
    """Quantities on hand, per SKU."""

    def __init__(self) -> None:
        self._items: dict[str, int] = {}

    def add(self, sku: str, quantity: int) -> None:
        """Put ``quantity`` items of ``sku`` on hand."""
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        self._items[sku] = self._items.get(sku, 0) + quantity

    def remove(self, sku: str, quantity: int) -> None:
        """Take ``quantity`` items of ``sku`` off hand; there must be that many."""
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        on_hand = self._items.get(sku, 0)
        if quantity > on_hand:
            raise ValueError(f"only {on_hand} of {sku} on hand")
        if quantity == on_hand:
            del self._items[sku]
        else:
            self._items[sku] = on_hand - quantity

    def quantity(self, sku: str) -> int:
        """How many items of ``sku`` are on hand."""
        return self._items.get(sku, 0)

    def skus(self) -> list[str]:
        """The SKUs on hand, sorted."""
        return sorted(self._items)
