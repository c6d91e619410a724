"""Recording amounts."""


class Ledger:
    """Entries of (amount, memo), in the order they were recorded."""

    def __init__(self) -> None:
        self.entries: list[tuple[int, str]] = []

    def record(self, amount: int, memo: str = "") -> None:
        """Add an entry."""
        self.entries.append((amount, memo))

    def balance(self) -> int:
        """The sum of all amounts."""
        return sum(amount for amount, _ in self.entries)
