"""Which background jobs a batch of new messages creates (pure).

- `derive` jobs of at most `MAX_JOB_MESSAGES` messages per sender, in the unit of (workspace,
  session, sender): the deriver reads each peer's messages in order. It waits up to the max
  age, or less once the unit's waiting tokens reach the token target (checked at enqueue), or
  until a flush.
- A `summarize` job each time the session's message count crosses a multiple of the short or
  long cadence, runnable at once; and for each summary a deletion or an edit removed, one
  that writes it again from what is left.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from graph.configuration import QueueSwitches
from graph.records import MessageRecord
from graph.repo.jobs import NewJob
from graph.settings import Settings

DERIVE = "derive"
SUMMARIZE = "summarize"
# A deriver run takes whole jobs up to twice this many messages, and at least one job: small
# jobs are what bound a run (a 100-message batch as one job was one 100-message run).
MAX_JOB_MESSAGES = 25


def derive_unit(workspace: str, session: str, peer: str) -> str:
    # "/" cannot occur in names, so the key is unambiguous.
    return f"{DERIVE}/{workspace}/{session}/{peer}"


def summarize_unit(workspace: str, session: str) -> str:
    return f"{SUMMARIZE}/{workspace}/{session}"


def crossed_multiples(first_seq: int, last_seq: int, every: int) -> list[int]:
    """Message counts that are multiples of `every` reached by seqs first..last (0-based)."""
    before = first_seq  # messages stored before this batch
    after = last_seq + 1
    return [k * every for k in range(before // every + 1, after // every + 1)]


def derive_jobs(
    settings: Settings, messages: Sequence[MessageRecord], stamp: datetime, *, wait: bool = True
) -> list[NewJob]:
    """The derive jobs of `messages` (of any sessions and senders): one unit per (session,
    sender), jobs of at most MAX_JOB_MESSAGES in the order given; runnable after the max age
    (`wait`), or at once."""
    by_unit: dict[tuple[str, str, str], list[MessageRecord]] = {}
    for message in messages:
        key = (message.workspace, message.session, message.peer)
        by_unit.setdefault(key, []).append(message)
    return [
        NewJob(
            workspace=workspace,
            kind=DERIVE,
            work_unit=derive_unit(workspace, session, peer),
            payload={"message_ids": [m.id for m in part]},
            run_after=stamp + timedelta(seconds=settings.deriver_max_age if wait else 0),
            session=session,
            peer=peer,
            tokens=sum(m.token_count for m in part),
            max_attempts=settings.job_max_attempts,
        )
        for (workspace, session, peer), unit in by_unit.items()
        for start in range(0, len(unit), MAX_JOB_MESSAGES)
        for part in [unit[start : start + MAX_JOB_MESSAGES]]
    ]


def summarize_job(
    settings: Settings, workspace: str, session: str, kind: str, up_to_seq: int, stamp: datetime
) -> NewJob:
    return NewJob(
        workspace=workspace,
        kind=SUMMARIZE,
        work_unit=summarize_unit(workspace, session),
        payload={"kind": kind, "up_to_seq": up_to_seq},
        run_after=stamp,
        session=session,
        max_attempts=settings.job_max_attempts,
    )


def summaries_again(
    settings: Settings, workspace: str, dropped: Mapping[str, Mapping[str, int]], stamp: datetime
) -> list[NewJob]:
    """Jobs writing again, from the messages left, the summaries a change removed (session ->
    kind -> the last message the latest removed covered): a session no new message comes to
    kept none."""
    return [
        summarize_job(settings, workspace, session, kind, up_to, stamp)
        for session, kinds in sorted(dropped.items())
        for kind, up_to in sorted(kinds.items())
    ]


def jobs_for_messages(
    settings: Settings,
    created: Sequence[MessageRecord],
    stamp: datetime,
    switches: QueueSwitches,
    derived: Sequence[MessageRecord] | None = None,
) -> list[NewJob]:
    """A new batch's jobs (its messages are of one session), as its switches allow: `derived`
    names the messages to derive when the caller settled that per message (default: all of
    them, if the switches derive)."""
    if not created:
        return []
    workspace, session = created[0].workspace, created[0].session
    if derived is None:
        derived = created if switches.derive else []
    jobs = derive_jobs(settings, derived, stamp) if derived else []
    if not switches.summarize:
        return jobs
    first = min(m.seq for m in created)
    last = max(m.seq for m in created)
    for kind, every in (
        ("short", switches.short_every or settings.summary_short_every),
        ("long", switches.long_every or settings.summary_long_every),
    ):
        for count in crossed_multiples(first, last, every):
            jobs.append(summarize_job(settings, workspace, session, kind, count - 1, stamp))
    return jobs
