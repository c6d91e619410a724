"""Unit conversion by scale factors relative to one base unit per dimension."""

LENGTH = {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0, "in": 0.0254, "ft": 0.3048, "mi": 1609.344}
MASS = {"g": 1.0, "kg": 1000.0, "lb": 453.59237, "oz": 28.349523125}
DIMENSIONS = (LENGTH, MASS)


class UnknownUnit(ValueError):
    """A unit name no dimension knows, or two units of different dimensions."""


def _dimension(unit):
    for table in DIMENSIONS:
        if unit in table:
            return table
    raise UnknownUnit(unit)


def convert(value, source, target):
    """``value`` in unit ``source`` expressed in unit ``target``."""
    table = _dimension(source)
    if target not in table:
        raise UnknownUnit(f"cannot convert {source} to {target}")
    return value * table[target] / table[source]
