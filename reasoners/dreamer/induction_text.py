"""How the zero-key dreamer words an induction, and the same words with new counts (pure)."""

from __future__ import annotations

import re

# What an induction needs: facts that repeat, said in more than one session.
MIN_INDUCTION_FACTS = 3
MIN_INDUCTION_SESSIONS = 2

_WORDED = re.compile(r"A recurring pattern \((\d+) times across (\d+) sessions\): (.+)", re.DOTALL)


def induction_text(times: int, sessions: int, sentence: str) -> str:
    return f"A recurring pattern ({times} times across {sessions} sessions): {sentence}."


def sentence_of(fact: str) -> str:
    """A fact's words as the pattern's sentence: capitalized, no end punctuation."""
    text = fact.strip().rstrip(".")
    return text[:1].upper() + text[1:]


def recounted(content: str, times: int, sessions: int, sentence: str) -> str | None:
    """`content`, an induction in the words above, told with fewer times (its support shrank)
    and `sentence`, the words of a premise that still grounds it (the one it quoted may be the
    one that went, its message deleted); None when it states no more than `times` or is worded
    otherwise (an LLM's induction says no count)."""
    worded = _WORDED.fullmatch(content)
    if worded is None or int(worded[1]) <= times:
        return None
    return induction_text(times, sessions, sentence)
