from slugkit import slugify


def test_basic_title():
    assert slugify("Hello, World!") == "hello-world"


def test_runs_of_punctuation_collapse():
    assert slugify("a -- b // c") == "a-b-c"


def test_custom_separator():
    assert slugify("Release notes 2.0", sep="_") == "release_notes_2_0"


def test_max_length_never_ends_on_separator():
    assert slugify("Release notes for 2.0", max_length=14) == "release-notes"


def test_empty_and_symbol_only_text():
    assert slugify("") == ""
    assert slugify("!!!") == ""
