import json
from pathlib import Path

from wordfreq import count_words
from wordfreq import top_words

DATA = Path(__file__).parent / "data"


def test_count_simple():
    assert count_words("a b a") == {"a": 2, "b": 1}


def test_case_insensitive():
    assert count_words("Word word WORD") == {"word": 3}


def test_top_words_orders_ties_alphabetically():
    assert top_words("b a c b a", 2) == [("a", 2), ("b", 2)]


def test_sample_file():
    sample = json.loads((DATA / "sample.json").read_text())
    assert top_words(sample["text"], 3) == [tuple(pair) for pair in sample["top"]]
