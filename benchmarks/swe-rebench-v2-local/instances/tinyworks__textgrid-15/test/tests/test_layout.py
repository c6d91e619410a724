from textgrid import column_widths


def test_header_only():
    assert column_widths(["a", "bbb"], []) == [1, 3]


def test_cells_wider_than_header():
    assert column_widths(["n"], [["12345"], ["1"]]) == [5]
