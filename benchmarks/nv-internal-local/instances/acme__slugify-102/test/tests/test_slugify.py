from slugify import slugify


def test_lowercases():
    assert slugify("Hello World") == "hello-world"


def test_accents_removed():
    assert slugify("Crème Brûlée") == "creme-brulee"


def test_cut_to_max_length():
    slug = slugify("The quick brown fox jumps over the lazy dog")
    assert len(slug) <= 20
    assert slug.startswith("the-quick-brown")


def test_collapses_separators():
    assert slugify("rock - paper -- scissors") == "rock-paper-scissors"


def test_underscores_become_hyphens():
    assert slugify("snake_case_title") == "snake-case-title"


def test_no_trailing_hyphen_after_cut():
    assert not slugify("The quick brown fox jumps over the lazy dog").endswith("-")
