"""Turns free text into a safe Lucene query for the fulltext indexes (pure)."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator, Mapping, Sequence

# The stop words of the English analyzer the fulltext indexes use (Lucene's
# EnglishAnalyzer): a query of these alone matches nothing in them. Sent, Lucene dropped the
# whole words clause, and every item in scope matched with the best text score.
STOP_WORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is"}
    | {"it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there"}
    | {"these", "they", "this", "to", "was", "will", "with"}
)
# Scripts the analyzer's tokenizer reads one character to a word (Han ideographs, Hiragana):
# quoted together they were one phrase, which matched that exact run only.
_ONE_CHARACTER_WORDS = (
    (0x3040, 0x309F),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0x20000, 0x3FFFF),
)
# Letters and decimal or letter-like digits: what the analyzer's tokenizer makes words of.
_WORD_KINDS = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nd", "Nl"})
MAX_TERMS = 64  # far below Lucene's clause limit; a longer query adds little to ranking
# Keys one field may name in a query. Lucene refuses a query of over 1,024 clauses, and a read
# of a large sub-peer tree covers up to 2,000 peers; past this many the field is left out.
MAX_KEY_CLAUSES = 512
# A word no text holds, ORed into every words clause: when the analyzer makes no token of any
# other word (characters it does not read, which _words cannot all foresee), the clause still
# has one, matches nothing, and is not dropped, which left only the scope: every item in it
# matched with the best text score. A term with no postings adds nothing to a match's score.
NO_MATCH = "bgnomatchzq7x"


def terms_query(text: str) -> str:
    """OR of the words in `text`: operators and syntax characters never reach Lucene.

    Words are kept alphanumeric (so there is nothing to escape) and each is quoted so that
    Lucene keywords such as AND / OR / NOT are taken as plain words.
    """
    words = [w for w in _words(text) if w.lower() not in STOP_WORDS][:MAX_TERMS]
    return " OR ".join(f'"{w}"' for w in words)


def _words(text: str) -> Iterator[str]:
    """The words of `text` much as the analyzer's tokenizer finds them: runs of letters and
    digits with the marks that follow them (a Devanagari or Thai word, a decomposed accent,
    is one word: `\\w` stopped at each mark), and each ideograph a word of its own."""
    current: list[str] = []
    for char in [*unicodedata.normalize("NFC", text), " "]:
        kind = unicodedata.category(char)
        # A mark goes with the letter before it; foo_bar is one word. Other numbers ("½", "²",
        # "①") are no word to the analyzer: sent alone, Lucene dropped the words clause.
        joins = (kind[0] == "M" and current) or kind == "Pc"
        if (kind in _WORD_KINDS and not _one_character_word(char)) or joins:
            current.append(char)
        else:
            if any(unicodedata.category(c) in _WORD_KINDS for c in current):
                yield "".join(current)
            current = []
            if _one_character_word(char):
                yield char


def _one_character_word(char: str) -> bool:
    point = ord(char)
    return any(low <= point <= high for low, high in _ONE_CHARACTER_WORDS)


def scoped_query(
    text: str,
    *,
    field: str,
    required: Mapping[str, Sequence[str]],
    also: Sequence[str] = (),
) -> str:
    """``terms_query`` on `field` (or any of the `also` fields), with each `required` field
    matching one of its keys ("" if the text has no words). Keys must be single tokens (letters
    and digits), as the keys of graph/keys.py are; a field with no keys cannot match anything
    and is refused. A field with more than MAX_KEY_CLAUSES keys is left out of the query: the
    caller's statement must keep only hits of those keys itself (every search statement does),
    and Lucene's best hits then include others, which the statement drops."""
    terms = terms_query(text)
    if not terms:
        return ""
    terms = f'{terms} OR "{NO_MATCH}"'
    clauses = []
    for name, keys in required.items():
        if not keys:
            raise ValueError(f"no keys for {name}")
        for key in keys:
            if not key.isalnum():
                raise ValueError(f"key {key!r} is not alphanumeric")
        if len(keys) > MAX_KEY_CLAUSES:
            continue
        clauses.append(f"+{name}:{keys[0]}" if len(keys) == 1 else f"+{name}:({' OR '.join(keys)})")
    if not also:
        return " ".join([*clauses, f"+{field}:({terms})"])
    either = " OR ".join(f"{name}:({terms})" for name in (field, *also))
    return " ".join([*clauses, f"+({either})"])
