"""Whether two facts that embed alike say the same thing (pure): the same numbers for the same
things (numbers.py), and the same sense: negation, tense and certainty. "Alice is allergic
to peanuts" and "Alice is not allergic to peanuts" embed at a cosine of 0.96, "Alice works at
Google" and "Alice used to work at Google" at 0.97, over the deriver's 0.95: by their cosine
alone the second repeated the first, which then cited the message that says the opposite, and
nothing was left to replace it or to flag the contradiction (deriver dedup, merges). The
zero-key dreamer's inductions compare numbers only: "went running today" is an instance of
"goes running", and negations it checks itself.
"""

from __future__ import annotations

import re
from collections import Counter

from reasoners.deriver.first_person import ENDS_IN_ED_BUT_PRESENT, IRREGULAR_PAST, undated
from reasoners.text.numbers import same_figures

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'"})
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)*")
_NEGATIONS = frozenset(
    {"not", "no", "never", "nor", "neither", "none", "nobody", "nothing", "nowhere", "without"}
    | {"cannot"}
)
# Words that make a fact uncertain, wished for or to come rather than the case.
_HEDGES = frozenset(
    {"might", "may", "could", "would", "should", "will", "shall", "maybe", "perhaps"}
    | {"possibly", "probably", "likely", "hopes", "hoping", "wants", "wanting", "plans"}
    | {"planning", "considering", "thinking", "wishes"}
)
# A past form another tense shares ("read", "put") or a word that is no verb ("need") aside.
_PAST = IRREGULAR_PAST | {"used", "formerly", "previously", "once"}


def same_claim(left: str, right: str) -> bool:
    """Whether two similar facts are one: the same numbers for the same things, and the same
    sense."""
    return same_figures(left, right) and same_sense(left, right)


def same_sense(left: str, right: str) -> bool:
    """Whether two facts agree in negation (as many "not", "never", "n't"), certainty (the
    same "might", "will", "plans" ...) and tense (as many past forms: "was", "had", "used",
    "-ed" verbs). A repeat in other words passes; a change of polarity, tense or certainty
    does not."""
    return _sense(left) == _sense(right)


def _sense(content: str) -> tuple[int, Counter[str], int]:
    words = _WORD.findall(undated(content).translate(_APOSTROPHES).lower())
    negations = sum(1 for w in words if w in _NEGATIONS or w.endswith("n't"))
    hedges = Counter(w for w in words if w in _HEDGES)
    past = sum(1 for w in words if _is_past(w))
    return negations, hedges, past


def _is_past(word: str) -> bool:
    if word.endswith("n't"):
        word = word[:-3]  # "wasn't", "didn't"
    if word in _PAST:
        return True
    return len(word) > 4 and word.endswith("ed") and word not in ENDS_IN_ED_BUT_PRESENT
