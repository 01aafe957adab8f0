from pathlib import Path

import pytest

from reasoners.embeddings.tokens import MiniLMTokenCounter, TokenCounter, default_tokenizer_path

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def counter() -> MiniLMTokenCounter:
    return MiniLMTokenCounter()


def test_tokenizer_ships_with_the_model_package() -> None:
    assert default_tokenizer_path().name == "tokenizer.json"
    assert default_tokenizer_path().is_file()


def test_counts_wordpieces_without_special_tokens(counter: MiniLMTokenCounter) -> None:
    assert counter.count("") == 0
    assert counter.count("hello world") == 2  # no [CLS]/[SEP]
    assert counter.count("Hello, world!") == 4  # punctuation splits off
    # A rare word splits into several WordPieces, so tokens are not words.
    assert counter.count("antidisestablishmentarianism") > 1


def test_long_text_is_not_truncated(counter: MiniLMTokenCounter) -> None:
    # The shipped tokenizer.json truncates at 128; a budget needs the true length.
    text = " ".join(["memory"] * 1000)
    assert counter.count(text) == 1000


def test_count_many_matches_count(counter: MiniLMTokenCounter) -> None:
    texts = ["I moved to Berlin last year.", "", "ok", " ".join(["word"] * 300)]
    assert counter.count_many(texts) == [counter.count(text) for text in texts]
    assert counter.count_many([]) == []


def test_is_a_token_counter(counter: MiniLMTokenCounter) -> None:
    def budget_left(tokens: TokenCounter, text: str, budget: int) -> int:
        return budget - tokens.count(text)

    assert budget_left(counter, "hello world", 10) == 8


def test_missing_tokenizer_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="tokenizer file not found"):
        MiniLMTokenCounter(tmp_path / "nope.json")


def test_a_word_too_long_for_wordpiece_costs_its_length(counter: MiniLMTokenCounter) -> None:
    """WordPiece maps a word over 100 characters to one [UNK]: an 8 MB summary of one word
    counted 1 token and filled a 500-token context on its own."""
    assert counter.count("A" * 99) == 49  # still split into pieces
    assert counter.count("A" * 3000) == 2000
    around = counter.count("hello " + "x" * 300 + " world")
    assert around == counter.count("hello world") + 200
    assert counter.count_many(["b" * 150, "b"]) == [100, 1]


def test_a_word_of_unknown_characters_costs_its_length(counter: MiniLMTokenCounter) -> None:
    """A word of characters WordPiece does not know (emoji), or over 100 characters once
    decomposed (34 Hangul syllables, 102 letters), is one [UNK]: 100 emoji counted 1 token,
    and 34 Hangul syllables without a space counted 1 where 20 counted 60."""
    assert counter.count("\U0001f642") == 1
    assert counter.count("\U0001f642" * 100) == 67
    assert counter.count("\ud55c" * 20) == 60  # three pieces a syllable
    assert counter.count("\ud55c" * 34) == 68  # two thirds of its 102 letters
    assert counter.count("ok \U0001f642\U0001f642\U0001f642 ok") == 2 + 2
    # Counted as WordPiece reads the word: accents dropped, as from any word it splits.
    assert counter.count("\u00e9" * 120) == counter.count("e" * 120) == 80
