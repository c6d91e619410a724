"""Recording amounts."""

import csv
import io


class Ledger:
    """Entries of (amount, memo), in the order they were recorded."""

    def __init__(self) -> None:
        self.entries: list[tuple[int, str]] = []

    def record(self, amount: int, memo: str = "") -> None:
        """Add an entry; surrounding whitespace is not part of the memo."""
        self.entries.append((amount, memo.strip()))

    def balance(self) -> int:
        """The sum of all amounts."""
        return sum(amount for amount, _ in self.entries)

    def to_csv(self) -> str:
        """The entries as CSV with an ``amount,memo`` header."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["amount", "memo"])
        writer.writerows(self.entries)
        return out.getvalue()
