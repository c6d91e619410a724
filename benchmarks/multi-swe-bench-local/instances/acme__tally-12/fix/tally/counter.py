"""A tally of counts per key."""


class Tally:
    """Counts per key."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, key: str, n: int = 1) -> None:
        """Count ``key`` ``n`` more times."""
        self.counts[key] = self.counts.get(key, 0) + n

    def total(self) -> int:
        """All counts added up."""
        return sum(self.counts.values())

    def most_common(self) -> str | None:
        """The key counted most often (the first in alphabetical order on a tie); None when empty."""
        if not self.counts:
            return None
        return min(self.counts, key=lambda key: (-self.counts[key], key))
