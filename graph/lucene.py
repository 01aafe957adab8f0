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


def scoped_terms_query(text: str, *, field: str, scope_field: str, scope: str) -> str:
    """``terms_query`` on `field`, required to match `scope` in `scope_field` ("" if no words).

    `scope` must be a single token (letters and digits), as scope keys are.
    """
    if not scope.isalnum():
        raise ValueError(f"scope term {scope!r} is not alphanumeric")
    terms = terms_query(text)
    if not terms:
        return ""
    return f"+{scope_field}:{scope} +{field}:({terms})"
