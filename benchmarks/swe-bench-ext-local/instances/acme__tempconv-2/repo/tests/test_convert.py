from tempconv import c_to_f


def test_c_to_f_freezing():
    assert c_to_f(0) == 32


def test_c_to_f_boiling():
    assert c_to_f(100) == 212
