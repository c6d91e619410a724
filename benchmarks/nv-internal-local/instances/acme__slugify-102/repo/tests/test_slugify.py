from slugify import slugify


def test_lowercases():
    assert slugify("Hello World") == "hello-world"


def test_accents_removed():
    assert slugify("Crème Brûlée") == "creme-brulee"


def test_cut_to_max_length():
    slug = slugify("The quick brown fox jumps over the lazy dog")
    assert len(slug) <= 20
    assert slug.startswith("the-quick-brown")
