"""Who may learn a message's facts: theory-of-mind routing (pure).

A fact a peer states goes to (sender, sender) unless the sender's observe_me is off (in the
session, or in the peer's own configuration: either turns it off), and to
(other, sender) for every other peer present in the session when the message arrived whose
observe_others is on. Presence is judged at arrival (received_at), so a history imported with
old created_at values reaches the peers that were in the session when it was imported.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime

from graph.records import MembershipRecord, MessageRecord


def window_at(
    memberships: Sequence[MembershipRecord], peer: str, moment: datetime
) -> MembershipRecord | None:
    for m in memberships:
        if m.peer == peer and m.joined_at <= moment and (m.left_at is None or moment < m.left_at):
            return m
    return None


def observers_for(
    sender: str,
    moment: datetime,
    memberships: Sequence[MembershipRecord],
    *,
    observe_self: bool = True,
) -> list[str]:
    observers: list[str] = []
    own = window_at(memberships, sender, moment)
    if observe_self and (own is None or own.observe_me):
        observers.append(sender)
    present = sorted({m.peer for m in memberships if m.peer != sender})
    for peer in present:
        window = window_at(memberships, peer, moment)
        if window is not None and window.observe_others:
            observers.append(peer)
    return observers


def message_observers(
    message: MessageRecord, members: Sequence[MembershipRecord], unobserved: Collection[str]
) -> list[str]:
    """The views a fact of `message` goes to, given the session's `members` (`unobserved`:
    senders whose own configuration turns observe_me off), judged at its arrival."""
    moment = message.received_at or message.created_at
    return observers_for(message.peer, moment, members, observe_self=message.peer not in unobserved)
