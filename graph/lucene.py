"""Turns free text into a safe Lucene query for the fulltext indexes (pure)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 64  # far below Lucene's clause limit; a longer query adds little to ranking


def terms_query(text: str) -> str:
    """OR of the words in `text`: operators and syntax characters never reach Lucene.

    Words are kept alphanumeric (so there is nothing to escape) and each is quoted so that
    Lucene keywords such as AND / OR / NOT are taken as plain words.
    """
    words = _WORD.findall(text)[:MAX_TERMS]
    return " OR ".join(f'"{w}"' for w in words)


def scoped_query(
    text: str,
    *,
    field: str,
    required: Mapping[str, Sequence[str]],
    also: Sequence[str] = (),
) -> str:
    """``terms_query`` on `field` (or any of the `also` fields), with each `required` field
    matching one of its keys ("" if the text has no words). Keys must be single tokens (letters
    and digits), as the keys of graph/keys.py are; a field with no keys cannot match anything
    and is refused."""
    terms = terms_query(text)
    if not terms:
        return ""
    clauses = []
    for name, keys in required.items():
        if not keys:
            raise ValueError(f"no keys for {name}")
        for key in keys:
            if not key.isalnum():
                raise ValueError(f"key {key!r} is not alphanumeric")
        clauses.append(f"+{name}:{keys[0]}" if len(keys) == 1 else f"+{name}:({' OR '.join(keys)})")
    if not also:
        return " ".join([*clauses, f"+{field}:({terms})"])
    either = " OR ".join(f"{name}:({terms})" for name in (field, *also))
    return " ".join([*clauses, f"+({either})"])
