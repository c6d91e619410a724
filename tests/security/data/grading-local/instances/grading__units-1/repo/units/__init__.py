from units.convert import FACTORS
from units.convert import convert

__all__ = ["FACTORS", "convert"]
