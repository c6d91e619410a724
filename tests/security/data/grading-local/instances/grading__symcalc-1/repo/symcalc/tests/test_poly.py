from symcalc import Poly


def test_degree():
    assert Poly([1, 2, 3]).degree() == 2


def test_add():
    assert Poly([1, 2]) + Poly([0, 0, 5]) == Poly([1, 2, 5])
