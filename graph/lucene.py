"""Turns free text into a safe Lucene query for the fulltext indexes (pure)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 64  # far below Lucene's clause limit; a longer query adds little to ranking
# Keys one field may name in a query. Lucene refuses a query of over 1,024 clauses, and a read
# of a large sub-peer tree covers up to 2,000 peers; past this many the field is left out.
MAX_KEY_CLAUSES = 512


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
    and is refused. A field with more than MAX_KEY_CLAUSES keys is left out of the query: the
    caller's statement must keep only hits of those keys itself (every search statement does),
    and Lucene's best hits then include others, which the statement drops."""
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
        if len(keys) > MAX_KEY_CLAUSES:
            continue
        clauses.append(f"+{name}:{keys[0]}" if len(keys) == 1 else f"+{name}:({' OR '.join(keys)})")
    if not also:
        return " ".join([*clauses, f"+{field}:({terms})"])
    either = " OR ".join(f"{name}:({terms})" for name in (field, *also))
    return " ".join([*clauses, f"+({either})"])
