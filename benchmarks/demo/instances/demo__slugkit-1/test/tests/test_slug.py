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


def test_accented_letters_keep_their_base_letter():
    assert slugify("Crème brûlée") == "creme-brulee"
    assert slugify("Año nuevo en Zürich") == "ano-nuevo-en-zurich"


def test_letters_without_decomposition():
    assert slugify("Straße") == "strasse"
    assert slugify("Ærøskøbing") == "aeroskobing"
    assert slugify("Łódź") == "lodz"


def test_to_ascii_is_public_and_keeps_case():
    from slugkit import to_ascii

    assert to_ascii("Ærø") == "AEro"
    assert to_ascii("plain text") == "plain text"
