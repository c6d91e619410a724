from wordcount import count_words
from wordcount import top_words


class TestCount:
    def test_single_word(self):
        assert count_words("hello") == 1

    def test_empty(self):
        assert count_words("") == 0

    def test_sentence(self):
        assert count_words("the quick brown fox") == 4

    def test_double_space(self):
        assert count_words("the  quick   fox") == 3

    def test_tabs_and_newlines(self):
        assert count_words("one\ttwo\nthree") == 3


def test_top_words():
    assert top_words("b a b c b a", 2) == [("b", 3), ("a", 2)]


def test_top_words_ignores_extra_spaces():
    assert top_words("  a  a b ", 1) == [("a", 2)]
