"""How the zero-key dreamer words an induction, and the same words with new counts (pure)."""

from __future__ import annotations

import re

_WORDED = re.compile(r"A recurring pattern \((\d+) times across (\d+) sessions\): (.+)", re.DOTALL)


def induction_text(times: int, sessions: int, sentence: str) -> str:
    return f"A recurring pattern ({times} times across {sessions} sessions): {sentence}."


def recounted(content: str, times: int, sessions: int) -> str | None:
    """`content`, an induction in the words above, told with new counts; None when its counts
    are these or it is worded otherwise (an LLM's induction says no count)."""
    worded = _WORDED.fullmatch(content)
    if worded is None or (int(worded[1]), int(worded[2])) == (times, sessions):
        return None
    return f"A recurring pattern ({times} times across {sessions} sessions): {worded[3]}"
