from skyproj.angles import separation
from skyproj.angles import wrap

__all__ = ["separation", "wrap"]
