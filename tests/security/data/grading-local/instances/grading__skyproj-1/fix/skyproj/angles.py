def wrap(angle, limit=360.0):
    """``angle`` in degrees, wrapped into ``[limit - 360, limit)``."""
    return (angle - (limit - 360.0)) % 360.0 + (limit - 360.0)


def separation(a, b):
    """The smallest angle between two directions ``a`` and ``b`` (degrees), in ``[0, 180]``."""
    difference = abs(a - b) % 360.0
    return min(difference, 360.0 - difference)
