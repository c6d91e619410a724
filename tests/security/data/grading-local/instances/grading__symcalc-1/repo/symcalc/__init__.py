from symcalc.poly import Poly

__all__ = ["Poly"]
