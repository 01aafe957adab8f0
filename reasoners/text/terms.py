"""Content terms of a text, and the sentence that matches a query best (pure).

What extractive selection and matching compare: "I've moved to Lisbon" and "the move to
lisbon" share "lisbon"; "I", "to" and "the" say nothing about a topic and are left out.
"""

from __future__ import annotations

import re

from reasoners.text.sentences import split_sentences

_TERM = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

_STOPWORD_TEXT = """
    a about above after again against all also am an and any are aren't as at be because been
    before being below between both but by can can't could couldn't did didn't do does doesn't
    doing don't down during each even ever few for from further get got had hadn't has hasn't
    have haven't having he he'd he'll he's her here here's hers herself him himself his how
    how's i i'd i'll i'm i've if in into is isn't it it's its itself just let's like lol me
    more most much mustn't my myself no nor not now of off oh ok okay on once only or other
    ought our ours ourselves out over own really same she she'd she'll she's should shouldn't
    so some still such than thanks that that's the their theirs them themselves then there
    there's these they they'd they'll they're they've thing things think this those though
    through to too under until up us very was wasn't we we'd we'll we're we've well were
    weren't what what's when when's where where's which while who who's whom why why's will
    with won't would wouldn't yeah yes you you'd you'll you're you've your yours yourself
    yourselves
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def content_terms(text: str) -> frozenset[str]:
    """The words of `text` worth matching: lowercased, possessive 's dropped, no stop words,
    at least 3 characters unless they hold a digit ("5k", "42")."""
    words = (word.removesuffix("'s") for word in _TERM.findall(text.lower().replace("\u2019", "'")))
    return frozenset(
        word
        for word in words
        if word not in STOPWORDS and (len(word) >= 3 or any(ch.isdigit() for ch in word))
    )


# Words compared by their first letters, so "married" meets "marriage" and "relocate" meets
# "relocation" without a stemmer; shorter words must match whole.
STEM_CHARS = 5


def _stems(terms: frozenset[str]) -> set[str]:
    return {term[:STEM_CHARS] for term in terms}


def best_sentence(text: str, query: str) -> str | None:
    """The sentence of `text` (verbatim) sharing the most content terms with `query`, the
    earliest on a tie; None when none shares any."""
    wanted = _stems(content_terms(query))
    best, shared = None, 0
    for sentence in split_sentences(text) if wanted else []:
        overlap = len(_stems(content_terms(sentence)) & wanted)
        if overlap > shared:
            best, shared = sentence, overlap
    return best
