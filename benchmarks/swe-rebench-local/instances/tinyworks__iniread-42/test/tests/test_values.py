from iniread import loads


def test_plain_value():
    assert loads("k = v")[""]["k"] == "v"


def test_value_with_equals_sign():
    assert loads("url = https://example.test/?a=1&b=2")[""]["url"] == "https://example.test/?a=1&b=2"


def test_empty_value():
    assert loads("k =")[""]["k"] == ""


def test_value_that_is_only_equals_signs():
    assert loads("sep = ==")[""]["sep"] == "=="
