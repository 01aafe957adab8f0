"""Whose turns a message search favours: the peer a question is about, read from its words (pure).

A memory's evidence is nearly always written by the speaker the question is about: "what did I
buy" is answered by the asker's own turns, "the recipe you gave me" by the other party's, "what
did Dana order" by Dana's. Yet a conversation's longest turns are often someone else's (an
assistant's explanations), and they compete for the top of the ranking on topic alone. So the
search adds a small bonus to the turns of the speaker the question points at:

- a peer named in the query (a word equal to its name as written, or in lower, title or upper
  case) points at that peer;
- "you" with a verb of saying or giving ("you mentioned", "the list you provided", "which
  hotel did you suggest") points at every peer but the asker, in the sessions the asker has
  been a member of (what was said to others, elsewhere, was not said to the asker);
- otherwise "we" / "our" / "us" ("our last conversation") points at no one in particular;
- otherwise the first person (I, me, my) points at the asker.

The asker is the peer on whose behalf the app searches; without one, only names count.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

# Bonus on the fused score (similarity on its 0-1 scale plus the weighted fulltext score) for
# a turn of the favoured speaker. Chosen on the tuning half of the LongMemEval sample, by the
# mean of turn NDCG@10 and recall_all@10, from the product's own candidate pools fused offline:
# 0 gave 0.725 / 0.800, 0.05 0.773 / 0.767, 0.1 0.793 / 0.800, 0.15 0.794 / 0.800 (level
# with 0.1, so the smaller stays). A larger bonus works more and more like a filter on the
# speaker, which questions whose evidence is spread over speakers pay for: in the held-out
# half, two preference questions lose their evidence session from the top 5 at 0.1 (none at
# 0.05). README, "Search", has the rest.
SPEAKER_WEIGHT = 0.1

_SAYING = (
    "mentioned|said|told|suggested|recommended|provided|gave|listed|made|shared|wrote|"
    "described|explained|showed|taught|played|proposed"
)
# The same verbs after "did you": past speech too ("which hotel did you suggest"). After "can
# you" or "could you" they ask for something new ("can you suggest a hotel"), so only "did".
_SAYING_BASE = (
    "mention|say|tell|suggest|recommend|provide|give|list|make|share|write|"
    "describe|explain|show|teach|play|propose"
)
# "you mentioned", "you just said", "the tips you gave", "what did you say".
_TO_OTHERS = re.compile(
    rf"\byou\s+(?:\w+\s+)?(?:{_SAYING})\b|\bdid\s+you\s+(?:\w+\s+)?(?:{_SAYING_BASE})\b",
    re.IGNORECASE,
)
_JOINT = re.compile(r"\b(?:we|our|ours|us|ourselves|we've|we're|we'd|we'll)\b", re.IGNORECASE)
_FIRST = re.compile(r"\b(?:i|me|my|mine|myself|i'm|i've|i'd|i'll)\b", re.IGNORECASE)
# Peer names are 1-100 of these characters (graph/validation.py); anything else separates words.
_NAME_WORD = re.compile(r"[A-Za-z0-9_.:@-]{1,100}")
# A query names at most this many distinct words worth looking up as peers.
MAX_NAME_CANDIDATES = 200


def _normalise(text: str) -> str:
    # Typographic apostrophes (U+2019, U+2018: "I\u2019ve") read as plain ones.
    return text.replace("\u2019", "'").replace("\u2018", "'")


@dataclass(frozen=True)
class Favoured:
    """The senders whose turns get the bonus: `peers`, and with `all_but` every peer but it,
    in the sessions `within` (None: in any session)."""

    peers: frozenset[str] = frozenset()
    all_but: str | None = None
    within: frozenset[str] | None = None

    def __bool__(self) -> bool:
        return bool(self.peers) or self.all_but is not None

    def covers(self, sender: str, session: str | None = None) -> bool:
        if sender in self.peers:
            return True
        if self.all_but is None or sender == self.all_but:
            return False
        return self.within is None or session in self.within


def name_candidates(query: str) -> list[str]:
    """The query's words that could be peer names, each as written and in lower, title and
    upper case (a peer called "Dana" is named by "dana" too), at most MAX_NAME_CANDIDATES."""
    seen: dict[str, None] = {}
    for match in _NAME_WORD.finditer(_normalise(query)):
        # Trailing sentence punctuation is not part of a name ("Dana." ends a sentence).
        word = match.group().rstrip(".:")
        if not word:
            continue
        for form in (word, word.lower(), word.title(), word.upper()):
            seen.setdefault(form, None)
        if len(seen) >= MAX_NAME_CANDIDATES:
            break
    return list(seen)[:MAX_NAME_CANDIDATES]


def asks_what_others_said(query: str) -> bool:
    """Whether `query` asks what "you" said or gave ("the list you provided")."""
    return _TO_OTHERS.search(_normalise(query)) is not None


def favoured(query: str, asker: str | None, named: Collection[str]) -> Favoured:
    """Whose turns `query` points at (module docstring); `named` are the peers it names."""
    text = _normalise(query)
    peers = frozenset(named)
    if asker is None:
        return Favoured(peers)
    if asks_what_others_said(text):
        return Favoured(peers, all_but=asker)
    if _JOINT.search(text):
        return Favoured(peers)
    if _FIRST.search(text):
        return Favoured(peers | {asker})
    return Favoured(peers)
