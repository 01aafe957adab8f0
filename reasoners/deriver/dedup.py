"""Duplicate detection for observations: an exact key, then cosine similarity of embeddings."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import TypeVar

import numpy as np

from graph.errors import LimitExceeded
from reasoners.deriver.first_person import undated
from reasoners.text.spans import normalize
from reasoners.text.terms import STOPWORDS

IdT = TypeVar("IdT")


# A belief states one fact. Its exact key is indexed with its representation's key, and
# Neo4j's range index refuses a key of more than about 8 KB, so a longer one could not be
# stored at all (normalization can lengthen text: one character may become 18).
MAX_BELIEF_CHARS = 2_000
MAX_KEY_BYTES = 6_000


def exact_key(content: str) -> str:
    """A key equal for texts that differ only in case, spacing, quote style or end punctuation."""
    return normalize(content)


# A number in digits, whole with the parts it joins without spaces: "1.05" is not "1.5",
# "10.0.0.1" not "10.0.0.10", "3/4" not "4/3", "10-20" not "20-10", "555-1234" not "1234-555".
_DIGITS = re.compile(r"\d+(?:[./:-]\d+)*")
# A thousands separator inside a number: "1,000" states what "1000" does.
_GROUPING = re.compile(r"(?<=\d)[,_'\u00a0\u202f](?=\d{3}(?!\d))")
_WORDS = re.compile(r"[a-z]+")
# What may come next in a spelled number, after each kind of word.
_GOES_ON = {
    "unit": ("hundred", "scale"),
    "ten": ("unit", "scale"),
    "hundred": ("unit", "ten", "scale", "and"),
    "scale": ("unit", "ten", "and"),
    "and": ("unit", "ten"),
}
_JOINED = re.compile(r"[ \t]*-[ \t]*|[ \t]+")  # between the words of one spelled number
_UNITS = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
]  # fmt: skip
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_NUMBER_WORDS = (
    {word: n for n, word in enumerate(_UNITS)}
    | {word: 20 + 10 * n for n, word in enumerate(_TENS)}
    | {"hundred": 100}
    | dict.fromkeys(_SCALES, 0)
)
# The date the LLM deriver puts after a current state: "Alice lives in Oslo (as of 2024-05-03)".
_AS_OF = re.compile(r"\s*\(as of [^()]{1,40}\)\s*\.?\s*$", re.IGNORECASE)
_SUFFIX_WINDOW = 64  # the suffix is looked for in a fact's last characters only


def figures(content: str) -> list[str]:
    """The numbers a fact states, sorted: in digits (without leading zeros or thousands
    separators; "3.10", "10.0.0.1" and "3/4" whole) and spelled out (spelled_numbers). The date a
    deriver adds to say when it was said, the extractive "(stated on ...)" and the LLM's "(as
    of ...)", is not one of them: the same state restated another day is a repeat."""
    return sorted(number for number, _ in _counted(content))


def _counted(content: str) -> list[tuple[str, str]]:
    """Each number the fact states, with the first word that says what it counts: the next
    word that is neither a stopword nor a number word, before the next number ("" if none):
    "2 cats" is (2, cats), "son is 7 and daughter is 4" is (7, daughter), (4, "")."""
    text = undated(content)
    found = _AS_OF.search(text, max(0, len(text) - _SUFFIX_WINDOW))
    if found is not None:
        text = text[: found.start()]
    lowered = _GROUPING.sub("", text).lower()  # spelled numbers are found in the lowered text
    placed = [(m.start(), m.end(), _plain(m.group(0))) for m in _DIGITS.finditer(lowered)]
    placed += [(start, end, str(n)) for start, end, n in _spelled(lowered)]
    placed.sort()
    counted = []
    for i, (_, end, number) in enumerate(placed):
        stop = placed[i + 1][0] if i + 1 < len(placed) else len(lowered)
        words = _WORDS.findall(lowered, end, stop)
        what = next((w for w in words if w not in STOPWORDS and w not in _NUMBER_WORDS), "")
        counted.append((number, what))
    return counted


def _plain(number: str) -> str:
    """A number as compared: without leading zeros, the rest as written ("3.10" is not "3.1"
    when it names a version)."""
    first = re.match(r"\d+", number)
    assert first is not None  # _DIGITS starts with a digit
    return (first.group(0).lstrip("0") or "0") + number[first.end() :]


def spelled_numbers(text: str) -> list[int]:
    """The numbers `text` spells out in English words: "three", "twenty-one", "two hundred
    and five", "thirty thousand". "one" alone is left out: it is as often a pronoun ("the red
    one") as a number. Words make one number only as numbers are said ("two three" is two)."""
    return [n for _, _, n in _spelled(text.lower())]


def _spelled(lowered: str) -> list[tuple[int, int, int]]:
    """Where each spelled number starts and ends in `lowered` (lower-case text), and its
    value."""
    found: list[tuple[int, int, int]] = []
    words: list[str] = []
    start = end = last = 0
    for match in _WORDS.finditer(lowered):
        word, gap = match.group(0), lowered[end : match.start()]
        end = match.end()
        if words and _JOINED.fullmatch(gap) and _follows(words[-1], word):
            words.append(word)
            last = end
            continue
        found.extend((start, last, n) for n in _value(words))
        words, start, last = ([word] if word in _NUMBER_WORDS else []), match.start(), end
    found.extend((start, last, n) for n in _value(words))
    return found


def _kind(word: str) -> str:
    if word in _SCALES:
        return "scale"
    if word in ("and", "hundred"):
        return word
    return "unit" if _NUMBER_WORDS[word] < 20 else "ten"


def _follows(last: str, word: str) -> bool:
    """Whether `word` goes on the number that `last` ends, as numbers are said."""
    if word != "and" and word not in _NUMBER_WORDS:
        return False
    kind = _kind(word)
    if kind == "unit" and _kind(last) == "ten":
        return 1 <= _NUMBER_WORDS[word] <= 9  # "twenty-one", not "twenty twelve"
    return kind in _GOES_ON[_kind(last)]


def _value(words: list[str]) -> list[int]:
    while words and words[-1] == "and":
        words = words[:-1]
    if not words or words == ["one"]:
        return []
    total = current = 0
    for word in words:
        if word == "hundred":
            current = max(current, 1) * 100
        elif word in _SCALES:
            total += max(current, 1) * _SCALES[word]
            current = 0
        elif word != "and":
            current += _NUMBER_WORDS[word]
    return [total + current]


def same_figures(left: str, right: str) -> bool:
    """Whether two facts state the same numbers, for the same things. Two facts that differ
    only in one (a new phone number, an age a year on, another street number) embed almost
    alike: by their cosine alone the new one repeated the old, which then cited the message
    that contradicts it. The same numbers for other things differ too ("20 dollars for 3
    apples" is not "3 dollars for 20 apples"); the order they come in does not ("2 cats and 3
    dogs" is "3 dogs and 2 cats"), nor a word one side leaves out ("30,000" is "30,000
    dollars")."""
    ours, theirs = _counted(left), _counted(right)
    if sorted(n for n, _ in ours) != sorted(n for n, _ in theirs):
        return False
    by_word, their_words = _by_word(ours), _by_word(theirs)
    return all(
        sorted(numbers) == sorted(their_words[word])
        for word, numbers in by_word.items()
        if word in their_words
    )


def _by_word(counted: list[tuple[str, str]]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for number, word in counted:
        if word:
            grouped.setdefault(word, []).append(number)
    return grouped


def belief_fits(content: str) -> bool:
    """Whether `content` can be stored as a belief (see MAX_BELIEF_CHARS)."""
    if len(content) > MAX_BELIEF_CHARS:
        return False
    return len(exact_key(content).encode("utf-8")) <= MAX_KEY_BYTES


def check_belief(content: str, what: str) -> None:
    """LimitExceeded for a belief too long to store."""
    if not belief_fits(content):
        raise LimitExceeded(
            f"{what}: a belief may hold {MAX_BELIEF_CHARS} characters "
            f"({MAX_KEY_BYTES} bytes once normalized); this one has {len(content)}",
            limit="belief",
        )


def cosine(left: Sequence[float], right: Sequence[float]) -> float:
    """Cosine similarity; 0.0 when either vector is all zeros (it points nowhere)."""
    if len(left) != len(right):
        raise ValueError(f"embedding dimensions differ: {len(left)} != {len(right)}")
    dot = math.fsum(a * b for a, b in zip(left, right, strict=True))
    norms = math.hypot(*left) * math.hypot(*right)
    if norms == 0.0:
        return 0.0
    return dot / norms


def find_duplicate(
    candidate_embedding: Sequence[float],
    candidate_key: str,
    existing: Sequence[tuple[IdT, str, Sequence[float]]],
    threshold: float = 0.95,
) -> IdT | None:
    """The id of an existing item that duplicates the candidate, or None.

    An equal, non-empty exact key wins outright (the first such item). Otherwise the most
    similar item whose cosine similarity is >= threshold, the earliest on ties. Vectors need
    not be normalized: cosine divides by their norms.
    """
    if candidate_key:
        for item_id, key, _ in existing:
            if key == candidate_key:
                return item_id
    best_id: IdT | None = None
    best_score = threshold
    for item_id, _, embedding in existing:
        score = cosine(candidate_embedding, embedding)
        if score >= best_score and (best_id is None or score > best_score):
            best_id, best_score = item_id, score
    return best_id


def repeated_items(
    keys: Sequence[str],
    embeddings: Sequence[Sequence[float]],
    threshold: float,
    contents: Sequence[str] | None = None,
) -> list[int | None]:
    """For items in order, None for one that is kept, else the index of the earlier kept item
    it repeats by `find_duplicate`'s rule (the same text, else the most similar). The same
    answers as calling it item by item, with the cosines computed as one matrix product per item
    rather than in Python (a long message can yield a thousand facts, and comparing each with
    the others in Python took minutes). With `contents`, a similar item repeats only one that
    states the same numbers (`same_figures`, which `find_duplicate` does not know)."""
    if not keys:
        return []
    vectors = np.asarray(embeddings, dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    # A zero vector points nowhere: its cosine with anything is 0.
    unit = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
    # Items of the same numbers share a class: compared as integers, not lists, item by item;
    # what each number counts is checked for the few similar enough.
    classes: dict[tuple[str, ...], int] = {}
    figure_class = np.asarray(
        [classes.setdefault(tuple(figures(c)), len(classes)) for c in contents]
        if contents is not None
        else [0] * len(keys)
    )
    kept_keys: dict[str, int] = {}
    kept_rows: list[int] = []
    result: list[int | None] = []
    for i, key in enumerate(keys):
        repeats: int | None = kept_keys.get(key) if key else None
        if repeats is None and kept_rows:
            similarities = unit[kept_rows] @ unit[i]
            similarities[figure_class[kept_rows] != figure_class[i]] = -np.inf
            repeats = _most_similar_agreeing(similarities, kept_rows, i, threshold, contents)
        result.append(repeats)
        if repeats is None:
            kept_rows.append(i)
            kept_keys.setdefault(key, i)
    return result


def _most_similar_agreeing(
    similarities: np.ndarray,
    kept_rows: list[int],
    item: int,
    threshold: float,
    contents: Sequence[str] | None,
) -> int | None:
    """The most similar kept item at or above `threshold` whose numbers count the same things
    as the item's (`same_figures`: a class holds the same numbers, not what each counts)."""
    best = int(similarities.argmax())
    if similarities[best] < threshold:
        return None
    if contents is None or same_figures(contents[kept_rows[best]], contents[item]):
        return kept_rows[best]
    for other in np.argsort(-similarities, kind="stable"):  # rare: the best counts otherwise
        if similarities[other] < threshold:
            return None
        row = kept_rows[int(other)]
        if same_figures(contents[row], contents[item]):
            return row
    return None
