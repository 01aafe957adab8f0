"""Sentences that take back the one before them (pure): "I live in Berlin. Just kidding!"

The extractive deriver drops the fact of the sentence just before such a one, and keeps what it
says instead ("Just kidding, I have three cats." keeps the three cats). A bare "No, I don't" is
left alone: it answers a question more often than it takes anything back.
"""

from __future__ import annotations

import re

# What takes back: "Just kidding!", "jk", "Not really.", "Psych!", after a "lol" or "wait".
_I_AM = r"i\W*a?m"  # "I'm", "I am", "im"
_TAKEN_BACK = (
    r"^(?:(?:lol|haha+|wait|actually|oh|um+|well)\W+)*"
    r"(?:just\W+(?:kidding|joking)|j/?k|kidding|joking|not\W+really|scratch\W+that|psych"
    rf"|that\W+was\W+a\W+joke|{_I_AM}\W+(?:just\W+)?(?:kidding|joking))"
)
_RETRACTION = re.compile(_TAKEN_BACK + r"\W*$", re.IGNORECASE)
# ... or that does so and then says what holds instead: "Just kidding, I have three cats."
_RETRACTION_THEN = re.compile(_TAKEN_BACK + r"\s*[,;:\u2013\u2014-]+\s*(?=\w)", re.IGNORECASE)


def is_retraction(sentence: str) -> bool:
    """Whether `sentence` only takes back what was said before it ("Just kidding!")."""
    return _RETRACTION.match(sentence.strip()) is not None


def after_retraction(sentence: str) -> str | None:
    """What `sentence` says after taking back the one before it ("Just kidding, I have three
    cats": "I have three cats"), a verbatim part of it; None when it does not open so."""
    found = _RETRACTION_THEN.match(sentence)
    return None if found is None else sentence[found.end() :]
