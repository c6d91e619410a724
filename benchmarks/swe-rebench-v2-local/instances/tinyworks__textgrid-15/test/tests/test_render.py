from textgrid import render


def test_header_row():
    assert render(["id", "name"], []) == "id | name"


def test_custom_separator():
    assert render(["a", "b"], [], sep=",") == "a,b"


def test_rows_align_under_long_cells():
    assert render(["id", "name"], [["1001", "Ada"], ["7", "Bo"]]).splitlines() == [
        "id   | name",
        "1001 | Ada",
        "7    | Bo",
    ]
