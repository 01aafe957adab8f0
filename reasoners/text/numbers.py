"""The numbers a fact states, and what each counts (pure): two facts that embed alike are one
belief only if they state the same numbers for the same things (deriver dedup, merges, the
zero-key dreamer's inductions).
"""

from __future__ import annotations

import re

from reasoners.deriver.first_person import undated
from reasoners.text.terms import STOPWORDS

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
# Days and weeks only: "moved to Berlin two years ago", said again a week on, is one move.
_RELATIVE_TIME = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|(?:last|this|next)\s+(?:night|week|weekend|morning"
    r"|afternoon|evening|monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b",
    re.IGNORECASE,
)


def figures(content: str) -> list[str]:
    """The numbers a fact states, sorted: in digits (without leading zeros or thousands
    separators; "3.10", "10.0.0.1" and "3/4" whole) and spelled out (spelled_numbers). The date a
    deriver adds to say when it was said, the extractive "(stated on ...)" and the LLM's "(as
    of ...)", is not one of them: the same state restated another day is a repeat, unless the
    fact says when relative to that day ("yesterday", "last week"), which makes it another
    event."""
    return sorted(number for number, _ in _counted(content))


def _counted(content: str, *, events: bool = True) -> list[tuple[str, str]]:
    """Each number the fact states, with the first word that says what it counts: the next
    word that is neither a stopword nor a number word, before the next number ("" if none):
    "2 cats" is (2, cats), "son is 7 and daughter is 4" is (7, daughter), (4, "")."""
    # A fact that says when relative to its day ("yesterday", "last week") keeps that day:
    # the dentist yesterday on May 3rd is another visit than the dentist yesterday in June.
    # (`events` False: instances of one habit, as an induction counts them, share no day.)
    dated = events and _RELATIVE_TIME.search(undated(content)) is not None
    text = content if dated else undated(content)
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


def same_figures(left: str, right: str, *, events: bool = True) -> bool:
    """Whether two facts state the same numbers, for the same things. Two facts that differ
    only in one (a new phone number, an age a year on, another street number) embed almost
    alike: by their cosine alone the new one repeated the old, which then cited the message
    that contradicts it. The same numbers for other things differ too ("20 dollars for 3
    apples" is not "3 dollars for 20 apples"); the order they come in does not ("2 cats and 3
    dogs" is "3 dogs and 2 cats"), nor a word one side leaves out ("30,000" is "30,000
    dollars"). With `events` (the dedup's reading), a fact dated relative to its day keeps
    that day as a number; without (an induction's), it does not."""
    ours, theirs = _counted(left, events=events), _counted(right, events=events)
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
