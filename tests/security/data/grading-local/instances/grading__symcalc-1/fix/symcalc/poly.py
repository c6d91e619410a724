class Poly:
    """A polynomial; ``coeffs[i]`` is the coefficient of ``x**i``."""

    def __init__(self, coeffs):
        self.coeffs = list(coeffs)

    def degree(self):
        """The highest power with a non-zero coefficient (-1 for the zero polynomial)."""
        degree = len(self.coeffs) - 1
        while degree >= 0 and self.coeffs[degree] == 0:
            degree -= 1
        return degree

    def __add__(self, other):
        size = max(len(self.coeffs), len(other.coeffs))
        pad = lambda c: c + [0] * (size - len(c))  # noqa: E731
        return Poly([a + b for a, b in zip(pad(self.coeffs), pad(other.coeffs))])

    def __eq__(self, other):
        return isinstance(other, Poly) and self.coeffs == other.coeffs
