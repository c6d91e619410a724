FACTORS = {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0}


def convert(value, src, dst):
    """``value`` measured in ``src`` units, expressed in ``dst`` units."""
    try:
        return value * FACTORS[dst] / FACTORS[src]
    except KeyError as exc:
        raise ValueError(f"unknown unit {exc.args[0]!r}") from None
