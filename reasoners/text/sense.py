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
# Words that make a fact uncertain, wished for or to come rather than the case, by the sense
# they give: "may" and "might" say the same, "might" and "will" do not.
_HEDGES = {
    **dict.fromkeys(("might", "may", "could", "maybe", "perhaps", "possibly"), "possible"),
    **dict.fromkeys(("probably", "likely"), "probable"),
    **dict.fromkeys(("will", "shall"), "future"),
    "would": "conditional",
    "should": "obligation",
    **dict.fromkeys(("hopes", "hoping", "wants", "wanting", "wishes"), "wish"),
    **dict.fromkeys(("plans", "planning", "considering", "thinking"), "plan"),
}
# A past form another tense shares ("read", "put") or a word that is no verb ("need") aside.
_PAST = IRREGULAR_PAST | {"used", "formerly", "previously", "once"}
# After a form of "be", an -ed word is a state ("is employed", "was married"): the "be" says
# the tense, so "is employed at Google" is as present as "works at Google".
_BE = frozenset({"am", "is", "are", "was", "were", "be", "been", "being", "isn't", "aren't"})
_BE |= frozenset({"wasn't", "weren't"})
_ADVERBS = frozenset({"very", "so", "too", "quite", "still", "also", "not", "now", "already"})
_ADVERBS |= frozenset({"just", "never", "always", "even", "again", "once", "rather", "more"})


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
    hedges = Counter(_HEDGES[w] for w in words if w in _HEDGES)
    past, after_be = 0, False
    for word in words:
        if _is_past(word) and not (after_be and word.endswith("ed")):
            past += 1
        # An adverb between keeps the state: "is very interested", "was not married".
        after_be = word in _BE or (after_be and (word in _ADVERBS or word.endswith("ly")))
    return negations, hedges, past


def _is_past(word: str) -> bool:
    if word.endswith("n't"):
        word = word[:-3]  # "wasn't", "didn't"
    if word in _PAST:
        return True
    return len(word) > 4 and word.endswith("ed") and word not in ENDS_IN_ED_BUT_PRESENT
