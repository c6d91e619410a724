from textgrid import column_widths


def test_header_only():
    assert column_widths(["a", "bbb"], []) == [1, 3]
