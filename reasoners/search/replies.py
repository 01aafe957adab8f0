"""Replies to the asker: when a question asks what the other side said, the answer is a reply.

"Can you remind me of the 7th job in the list you provided?" is answered by the turn that
provided the list, and that turn answers the asker's own request ("Brainstorm ideas for work
from home jobs for seniors"). The request is worded like the question, the reply like its
answer, so the request is the closer of the two, and the evidence ranks below it. When a query
asks what "you" said (speakers.asks_what_others_said) on behalf of an asker, a pooled message
another peer sent right after one of the asker's pooled messages, in the same session, adds
REPLY_WEIGHT times that message's fused score to its own (pure; fusion.fuse_scores applies it).
"""

from __future__ import annotations

from collections.abc import Iterable

from graph.records import MessageRecord

# Share of the asker's turn's fused score its reply adds to its own. Chosen on the tuning half
# of the LongMemEval sample, from the product's candidate pools replayed
# (tests/bench/fusion_replay.py --reply-weights): it touches the questions that ask what "you"
# said and no other; the tuning half's four have their evidence at ranks 1, 2, 2, 1 without it
# and 1, 1, 1, 1 at every weight from 0.11 to 4 (up to 0.1: unchanged). LongMemEval's NDCG
# weighs ranks 1 and 2 alike, so only these ranks tell the weights apart. The weight sits low
# in that plateau: the larger it is, the more any reply outranks the other side's other turns.
REPLY_WEIGHT = 0.25


def replies_to_asker(messages: Iterable[MessageRecord], asker: str) -> dict[str, str]:
    """For each of `messages` another peer sent right after one of the asker's that is among
    `messages` too (same session, the next seq), that message's id, keyed by the reply's id."""
    pooled = list(messages)
    by_place = {(m.session, m.seq): m for m in pooled}
    replies: dict[str, str] = {}
    for message in pooled:
        previous = by_place.get((message.session, message.seq - 1))
        if message.peer != asker and previous is not None and previous.peer == asker:
            replies[message.id] = previous.id
    return replies
