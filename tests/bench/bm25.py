"""Okapi BM25 over an in-memory list of documents: the lexical baseline of the harness.

Scoring, for a query term t in document d:

    idf(t) * tf(t, d) * (k1 + 1) / (tf(t, d) + k1 * (1 - b + b * |d| / avgdl))

with ``idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))``. That is Lucene's idf, chosen
over the classic ``ln((N - df + 0.5) / (df + 0.5))`` because the classic one turns negative for
terms in more than half the documents (rank_bm25, which LongMemEval uses, patches this with an
epsilon floor instead). A query term repeated in the query counts once per occurrence.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

# Short on purpose: conversational questions are short, so dropping content words hurts more
# than keeping a few function words.
_STOPWORD_TEXT = """
a an and are as at be been being but by can could did do does doing for from had has have
having he her here hers him his how i if in into is it its itself just me my myself no nor
not of on or our ours she should so some such than that the their theirs them then there
these they this those to too us was we were what when where which while who whom why will
with would you your yours s t d ll m re ve
"""
STOPWORDS: frozenset[str] = frozenset(_STOPWORD_TEXT.split())

# Letters and digits only (``[^\W_]``), so "don't" -> "don", "t" and "e-mail" -> "e", "mail".
_TOKEN = re.compile(r"[^\W_]+")


def tokenize(text: str) -> list[str]:
    """Lowercase word tokens of ``text`` minus :data:`STOPWORDS`."""
    return [tok for tok in _TOKEN.findall(text.casefold()) if tok not in STOPWORDS]


class BM25:
    """A BM25 index over ``documents``; document i is identified by its position i."""

    def __init__(self, documents: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        if k1 < 0:
            raise ValueError(f"k1 must be >= 0, got {k1}")
        if not 0.0 <= b <= 1.0:
            raise ValueError(f"b must be in [0, 1], got {b}")
        self.k1 = k1
        self.b = b
        self._lengths: list[int] = []
        # term -> [(doc index, term frequency)], so scoring touches only matching documents.
        self._postings: dict[str, list[tuple[int, int]]] = {}
        for index, text in enumerate(documents):
            counts = Counter(tokenize(text))
            self._lengths.append(sum(counts.values()))
            for term, tf in counts.items():
                self._postings.setdefault(term, []).append((index, tf))
        n_docs = len(self._lengths)
        self._avgdl = sum(self._lengths) / n_docs if n_docs else 0.0
        self._idf = {
            term: math.log(1.0 + (n_docs - len(posts) + 0.5) / (len(posts) + 0.5))
            for term, posts in self._postings.items()
        }

    def __len__(self) -> int:
        return len(self._lengths)

    def scores(self, query: str) -> list[float]:
        """The BM25 score of every document for ``query`` (0.0 when nothing matches)."""
        out = [0.0] * len(self._lengths)
        if self._avgdl == 0.0:
            return out  # every document is empty after tokenization
        for term in tokenize(query):
            posts = self._postings.get(term)
            if posts is None:
                continue
            idf = self._idf[term]
            for index, tf in posts:
                norm = self.k1 * (1.0 - self.b + self.b * self._lengths[index] / self._avgdl)
                out[index] += idf * tf * (self.k1 + 1.0) / (tf + norm)
        return out

    def rank(self, query: str, top_k: int | None = None) -> list[int]:
        """Indices of the documents matching ``query``, best first, at most ``top_k``.

        Documents with score 0 (no query term) are left out rather than ranked arbitrarily.
        Ties keep document order, so rankings are deterministic.
        """
        if top_k is not None and top_k < 0:
            raise ValueError(f"top_k must be >= 0, got {top_k}")
        scored = self.scores(query)
        hits = sorted(
            (i for i, score in enumerate(scored) if score > 0.0), key=lambda i: (-scored[i], i)
        )
        return hits if top_k is None else hits[:top_k]
