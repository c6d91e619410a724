"""Temperature conversions."""

from .convert import c_to_f
from .convert import f_to_c

__all__ = ["c_to_f", "f_to_c"]
