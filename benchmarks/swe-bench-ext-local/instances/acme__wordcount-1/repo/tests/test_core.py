from wordcount import count_words
from wordcount import top_words


class TestCount:
    def test_single_word(self):
        assert count_words("hello") == 1

    def test_empty(self):
        assert count_words("") == 0

    def test_sentence(self):
        assert count_words("the quick brown fox") == 4


def test_top_words():
    assert top_words("b a b c b a", 2) == [("b", 3), ("a", 2)]
