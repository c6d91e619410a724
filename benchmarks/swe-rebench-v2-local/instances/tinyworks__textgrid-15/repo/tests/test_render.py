from textgrid import render


def test_header_row():
    assert render(["id", "name"], []) == "id | name"


def test_custom_separator():
    assert render(["a", "b"], [], sep=",") == "a,b"
