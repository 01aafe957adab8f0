"""Markdown chunking for file search, and file path checks (no database)."""

from __future__ import annotations

import random
import re
import time

import pytest

from graph.errors import InvalidInput
from graph.repo.files import check_user_path
from graph.repo.peer_cards import check_entries
from graph.validation import MAX_PATH_CHARS, check_path, check_stored_path
from reasoners.embeddings.tokens import MiniLMTokenCounter
from reasoners.peers.chunking import SECTION_SLACK, chunk_markdown, sections

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def tokens() -> MiniLMTokenCounter:
    return MiniLMTokenCounter()


def test_sections_carry_their_heading_path_and_skip_fenced_code() -> None:
    text = "Intro.\n# Guide\n## Setup\nInstall.\n```\n# not a heading\n```\n# Other\nText."
    found = sections(text)
    assert [(s.heading, s.body.splitlines()[0]) for s in found] == [
        ("", "Intro."),
        ("# Guide > ## Setup", "Install."),
        ("# Other", "Text."),
    ]
    assert "# not a heading" in found[1].body


def test_a_heading_with_no_text_is_dropped_only_before_its_own_sub_section() -> None:
    """Headings of one level in a row each made an empty section, dropped as though a
    sub-section carried its words: "Emergency contact" was in no chunk, never found."""
    text = "# Allergies\n# Emergency contact: Dr Smith\n# Blood\nO negative\n## Notes\n# Last"
    assert [(s.heading, s.body) for s in sections(text)] == [
        ("# Allergies", ""),
        ("# Emergency contact: Dr Smith", ""),
        ("# Blood", "O negative"),
        ("# Blood > ## Notes", ""),
        ("# Last", ""),
    ]
    nested = "# Guide\n## Setup\nInstall.\n### Deep\n## Use\nRun."
    assert [s.heading for s in sections(nested)] == [
        "# Guide > ## Setup",
        "# Guide > ## Setup > ### Deep",
        "# Guide > ## Use",
    ]


class Reads:
    """Counts the characters a chunking has the tokenizer read."""

    def __init__(self, tokens: MiniLMTokenCounter) -> None:
        self.tokens, self.chars = tokens, 0

    def count(self, text: str) -> int:
        self.chars += len(text)
        return self.tokens.count(text)


@pytest.mark.parametrize("word", ["x" * 100_000, "가" * 50_000, "a." * 50_000])
def test_a_long_word_is_cut_reading_it_a_few_times_only(
    tokens: MiniLMTokenCounter, word: str
) -> None:
    """A word cut by a search over the whole rest of it, counted again after each piece, read
    it hundreds of times: a 93 KB file with a base64 image took 54 s, the server frozen."""
    reads = Reads(tokens)
    chunks = chunk_markdown(word, 200, reads)
    assert all(tokens.count(c) <= 200 for c in chunks) and "".join(chunks) == word
    assert reads.chars < 40 * len(word), reads.chars / len(word)


def test_paragraphs_are_packed_within_the_budget_with_their_heading(
    tokens: MiniLMTokenCounter,
) -> None:
    paragraphs = [f"Paragraph {i} tells one small fact about the garden." for i in range(12)]
    text = "# Garden\n\n" + "\n\n".join(paragraphs)
    chunks = chunk_markdown(text, 40, tokens)
    assert len(chunks) > 1
    assert all(tokens.count(c) <= 40 for c in chunks)
    assert all(c.startswith("# Garden\n\n") for c in chunks)
    # Every paragraph is kept whole, once, in order.
    body = "\n\n".join(c.removeprefix("# Garden\n\n") for c in chunks)
    assert body == "\n\n".join(paragraphs)


def test_sections_keep_their_own_chunks(tokens: MiniLMTokenCounter) -> None:
    chunks = chunk_markdown("# A\n\nShort.\n\n# B\n\nAlso short.", 200, tokens)
    assert chunks == ["# A\n\nShort.", "# B\n\nAlso short."]


def test_one_line_sections_make_chunks_by_size_not_by_count(tokens: MiniLMTokenCounter) -> None:
    """A chunk per section made 10,101 chunks of a 100 KB file of `# hN` and `x` lines, each
    one embedded: 40 s of CPU for one request."""
    text = "".join(f"# h{i}\nx\n" for i in range(12_000))[:100_000]
    chunks = chunk_markdown(text, 200, tokens)
    assert all(tokens.count(c) <= 200 for c in chunks)
    total = sum(tokens.count(c) for c in chunks)
    assert len(chunks) <= total // 150 + 1, (len(chunks), total)
    assert chunks[0].startswith("# h0\n\nx\n\n# h1\n\nx")
    # Below the bound, sections keep their chunks.
    few = "".join(f"# h{i}\nx\n" for i in range(SECTION_SLACK + 2))
    assert len(chunk_markdown(few, 200, tokens)) == SECTION_SLACK + 2
    # Past it, a section's last piece takes the next section when both fit.
    long = "Words about the first topic. " * 12
    tail = "".join(f"\n\n# h{i}\n\nx" for i in range(40))
    chunks = chunk_markdown(f"# A\n\n{long}{tail}", 50, tokens)
    assert [c.split("\n\n")[0] for c in chunks[:2]] == ["# A", "# A"]
    assert "topic.\n\n# h0\n\nx\n\n# h1" in chunks[1]


def test_a_long_paragraph_is_split_by_sentences_then_by_words(
    tokens: MiniLMTokenCounter,
) -> None:
    sentences = [f"Sentence number {i} is about the weather in spring." for i in range(10)]
    chunks = chunk_markdown(" ".join(sentences), 30, tokens)
    assert all(tokens.count(c) <= 30 for c in chunks)
    assert chunks[0].startswith("Sentence number 0") and "Sentence number 9" in chunks[-1]
    # A "sentence" with no end is cut between words; a word longer than the budget, by letters.
    endless = " ".join(["word"] * 100) + " " + "x" * 400
    pieces = chunk_markdown(endless, 16, tokens)
    assert all(tokens.count(p) <= 16 for p in pieces)
    assert "".join(p.replace(" ", "").replace("\n", "") for p in pieces) == endless.replace(" ", "")


def test_an_over_long_heading_leaves_room_for_text(tokens: MiniLMTokenCounter) -> None:
    heading = "# " + " ".join(["title"] * 100)
    chunks = chunk_markdown(f"{heading}\n\nThe body.", 20, tokens)
    assert all(tokens.count(c) <= 20 for c in chunks)
    assert chunks[-1].endswith("The body.")


def test_empty_text_has_no_chunks(tokens: MiniLMTokenCounter) -> None:
    assert chunk_markdown("", 50, tokens) == []
    assert chunk_markdown("  \n\n ", 50, tokens) == []


@pytest.mark.parametrize(
    "path", ["a.md", "notes/2024/todo.md", "a b/c-d_e.txt", "x" * 512, "r\u00e9sum\u00e9.md"]
)
def test_good_paths(path: str) -> None:
    assert check_path(path) == path


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("", "empty"),
        ("/etc/passwd", "relative"),
        ("a//b", "empty, '.' or '..'"),
        ("a/../b", "empty, '.' or '..'"),
        ("./a", "empty, '.' or '..'"),
        ("a/", "empty, '.' or '..'"),
        ("a\\b", "backslash"),
        ("a\nb", "control"),
        ("a\u0085b", "control"),  # C1: a next-line
        ("a\u2028b", "control"),  # a line separator
        ("\u202egpj.exe", "invisible"),  # shows as exe.jpg
        ("\ufeffa", "invisible"),
        ("a\u200b", "invisible"),
        (" a/b", "whitespace"),
        ("x" * (MAX_PATH_CHARS + 1), "limit"),
        ("my\u00a0notes.md", "space other than"),  # looks like "my notes.md"
        ("my\u3000notes.md", "space other than"),
        ("re\u0301sume\u0301.md", "NFC"),  # "résumé.md" decomposed
    ],
)
def test_bad_paths_say_what_to_fix(path: str, says: str) -> None:
    with pytest.raises(InvalidInput, match=re.escape(says)):
        check_path(path)


@pytest.mark.parametrize("path", ["card.md", "cards/bob.md", "cards/x/y.md"])
def test_card_paths_are_kept_for_peer_cards(path: str) -> None:
    with pytest.raises(InvalidInput, match="setPeerCard"):
        check_user_path(path)
    assert check_user_path("cardigan.md") == "cardigan.md"


def test_a_file_stored_before_a_path_rule_stays_reachable() -> None:
    assert check_stored_path("a\u200b") == "a\u200b"  # no longer creatable, still named
    for path in ("", "x" * (MAX_PATH_CHARS + 1), "\ud800"):
        with pytest.raises(InvalidInput):
            check_stored_path(path)


def test_every_chunk_fits_its_budget_as_the_tokenizer_counts_it(
    tokens: MiniLMTokenCounter,
) -> None:
    """Chunks are costed as the sum of their units; the real count of each must agree."""
    rng = random.Random(3)
    words = ["garden", "naïve", "x" * 150, "co-op", "isn't", "日本語", "🙂", "3.14", "—", "(a)"]
    paragraphs = [
        " ".join(rng.choice(words) for _ in range(rng.randrange(1, 80))) + rng.choice(".!?")
        for _ in range(60)
    ]
    text = "# Top\n\n" + "\n\n".join(paragraphs) + "\n\n## Below\n\n" + "a\n\n" * 300
    for budget in (8, 40, 256):
        chunks = chunk_markdown(text, budget, tokens)
        assert all(tokens.count(c) <= budget for c in chunks), budget
        body = [c.split("\n\n", 1)[1] if c.startswith("#") else c for c in chunks]
        assert "".join("".join(body).split()).count("garden") == text.count("garden")


def test_a_heading_title_drops_its_closing_marks_and_a_long_line_costs_its_length() -> None:
    found = sections("# Guide ##  \nText.\n#   \nNot a heading.")
    assert [s.heading for s in found] == ["# Guide"]
    assert found[0].body.splitlines() == ["Text.", "#   ", "Not a heading."]
    # A lazy title before `[ \t#]*$` rescanned the spaces at every character: 1.5 s for
    # 20,000 of them, growing with the square (a 100,000-character line: about 40 s).
    started = time.perf_counter()
    assert sections("# x" + " " * 100_000 + "y")[0].heading == "# x" + " " * 100_000 + "y"
    assert time.perf_counter() - started < 1.0


def test_a_card_entry_is_one_line() -> None:
    """An entry "a\n\n# B\n\n- c" was taken, and the card's file read as a heading and another
    entry."""
    assert check_entries([" Likes tea ", ""]) == ["Likes tea"]
    for broken in ("a\n\n# B\n\n- c", "a\rb", "a\u2028b"):
        with pytest.raises(InvalidInput, match="line break"):
            check_entries(["fine", broken])
