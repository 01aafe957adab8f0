"""What a fact claims, for the zero-key dreamer (pure): a polarity-free key, negated or not."""

from __future__ import annotations

import re
from dataclasses import dataclass

from reasoners.dreamer.slots import core_text, without_lead_in

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_NEGATIONS = frozenset(["not", "no", "never"])
_CONTRACTED = {
    "don't": "",
    "doesn't": "",
    "didn't": "",
    "isn't": "is",
    "aren't": "are",
    "wasn't": "was",
    "weren't": "were",
    "can't": "can",
    "cannot": "can",
    "won't": "will",
    "hasn't": "has",
    "haven't": "have",
    "hadn't": "had",
    "wouldn't": "would",
    "shouldn't": "should",
    "couldn't": "could",
}
# Words that change neither what is claimed nor its polarity.
_NEUTRAL = frozenset(
    ["do", "does", "did", "really", "actually", "definitely", "also", "too", "always", "again"]
)
_LAPSED = re.compile(r"\bno longer\b|\banymore\b|\bany more\b", re.IGNORECASE)
# "no longer" is itself the negation; "anymore" only marks one ("doesn't ... anymore").
_NO_LONGER = re.compile(r"\bno longer\b", re.IGNORECASE)
_AGAIN = re.compile(r"\bagain\b", re.IGNORECASE)
_ANYMORE = re.compile(r"\banymore\b|\bany more\b", re.IGNORECASE)


@dataclass(frozen=True)
class Claim:
    key: str  # the statement without negation, crudely stemmed
    negated: bool
    # The claim ends an earlier opposite state: a negation with "no longer" or "anymore", a
    # positive claim with "again".
    lapsed: bool

    @property
    def opposite_key(self) -> str:
        return ("+" if self.negated else "-") + self.key

    @property
    def signed_key(self) -> str:
        """What the graph indexes: the opposite claim of a fact is found by its sign flipped."""
        return ("-" if self.negated else "+") + self.key


def _stem(word: str) -> str:
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def claim_of(content: str) -> Claim | None:
    """The claim a fact makes, or None for one too short to compare safely (< 3 words)."""
    text = without_lead_in(core_text(content)).lower()
    lapsed = bool(_LAPSED.search(text))
    text = _ANYMORE.sub(" ", _NO_LONGER.sub(" not ", text))
    negated = False
    words: list[str] = []
    for word in _WORD.findall(text):
        if word in _CONTRACTED:
            negated = not negated
            word = _CONTRACTED[word]
        elif word in _NEGATIONS:
            negated = not negated
            continue
        if word and word not in _NEUTRAL:
            words.append(_stem(word))
    if len(words) < 3:
        return None
    # "again" on a positive claim ends an earlier negation, as "no longer" ends a positive one.
    resumed = not negated and _AGAIN.search(text) is not None
    return Claim(" ".join(words), negated, (lapsed and negated) or resumed)
