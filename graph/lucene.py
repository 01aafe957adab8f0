"""Turns free text into a safe Lucene query for the fulltext indexes (pure)."""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 64  # far below Lucene's clause limit; a longer query adds little to ranking


def terms_query(text: str) -> str:
    """OR of the words in `text`: operators and syntax characters never reach Lucene.

    Words are kept alphanumeric (so there is nothing to escape) and each is quoted so that
    Lucene keywords such as AND / OR / NOT are taken as plain words.
    """
    words = _WORD.findall(text)[:MAX_TERMS]
    return " OR ".join(f'"{w}"' for w in words)
