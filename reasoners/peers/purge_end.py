"""What a purge does at its end, in the transaction that deletes its record: what it noted on
the record while it erased (graph/repo/purges.py `note_followups`), so a purge a worker
finishes after a crash does it too, and none of it runs while the purge still deletes.

- The live messages an erased belief was also taken from are derived again at once, so what
  they state comes back, taken from them alone (but not one whose own or session's
  `reasoning.enabled` is false). What was deleted or corrected away before stays so: the purge
  kept its tombstone (cypher/purge/find_message_derivations.cypher).
- A dream of each representation whose card the purge deleted is scheduled (dreams on, and
  neither `dream.enabled` nor `peer_card.create` false in the workspace), which writes the card
  again from what is left, CARD_DREAM_DELAY later, so the card is written from what comes back
  too (a resumed purge's re-derivations may be another run's).
- The summaries it deleted are queued again, written from the messages left (where the
  session's switches summarize).
"""

from __future__ import annotations

from datetime import timedelta

from graph.configuration import card_created, dreams_enabled
from graph.db import Tx
from graph.keys import Representation
from graph.records import MessageRecord
from graph.repo import jobs, purges, sessions, workspaces
from graph.settings import Settings
from graph.validation import now
from reasoners.dreamer import scheduling
from reasoners.peers.invalidation import summarize_again
from reasoners.queue.schedule import derive_jobs

CARD_DREAM_DELAY = timedelta(seconds=60)


async def finish_in(tx: Tx, settings: Settings, workspace: str, record: str) -> purges.FollowUps:
    """Delete the purge's record and do what it noted; the messages queued and the views whose
    dreams were scheduled."""
    todo = await purges.finish_in(tx, record)
    rows = await tx.rows("get_messages_by_ids", workspace=workspace, ids=todo.rederive)
    live = [MessageRecord.from_row(r["message"]) for r in rows]
    again: list[MessageRecord] = []
    for session in sorted({m.session for m in live}):
        on = (await sessions.queue_switches_in(tx, workspace, session)).derive
        # A message's own switch, as it was stored, wins over its session's.
        again += [
            m for m in live if m.session == session and (on if m.derive is None else m.derive)
        ]
    stamp = now()
    derive = derive_jobs(settings, again, stamp, wait=False)
    await jobs.enqueue(tx, derive, token_target=settings.deriver_token_target)
    await summarize_again(tx, settings, workspace, todo.summaries)
    dream_at = stamp + CARD_DREAM_DELAY
    configuration = await workspaces.configuration_in(tx, workspace)
    if (
        scheduling.enabled(settings)
        and dreams_enabled(configuration)
        and card_created(configuration)
    ):
        for observer, observed in todo.card_views:
            view = Representation(workspace, observer, observed)
            await scheduling.on_demand_in(
                tx, settings, view, at=dream_at, trigger=scheduling.RECONCILE
            )
    return purges.FollowUps([m.id for m in again], todo.card_views, todo.summaries)
