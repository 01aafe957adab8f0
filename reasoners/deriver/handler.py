"""The deriver: turns one (session, peer) unit's new messages into explicit observations.

For each batch (batching.py) an extractor proposes facts that cite a message and a
verbatim span. Facts whose span is not in the cited message are dropped and counted. The rest
are routed to every entitled observer (routing.py), deduplicated within the batch
and against each scope, and written with DERIVED_FROM {span} edges in the worker's
transaction, together with the jobs' completion.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

from graph.configuration import dreams_enabled, observes_itself
from graph.db import Database, Tx
from graph.errors import Conflict
from graph.records import (
    MembershipRecord,
    MessageRecord,
)
from graph.repo import messages as message_repo
from graph.repo import peers, sessions, workspaces
from graph.repo.jobs import ClaimedUnit, JobRecord, JobResult, LeaseLost
from graph.repo.observation_writes import ExplicitFact, write_explicit
from graph.settings import Settings
from graph.validation import now as utc_now
from reasoners.deriver.batching import SessionMessage, batch_messages
from reasoners.deriver.dedup import belief_fits, exact_key, repeated_items
from reasoners.deriver.extractors import Extractor, Fact
from reasoners.deriver.prompt import InstructionHierarchy, app_instructions, message_instructions
from reasoners.deriver.routing import message_observers
from reasoners.dreamer import scheduling
from reasoners.embeddings.model import Embedder, embed_async
from reasoners.llm.interface import LLMError, Usage, billed
from reasoners.offload import Offload, off_loop
from reasoners.peers.invalidation import date_anew
from reasoners.queue.schedule import MAX_JOB_MESSAGES
from reasoners.queue.worker import PreparationFailed, Prepared
from reasoners.text.sense import same_claim
from reasoners.text.spans import Grounding

log = logging.getLogger("beliefgraph.deriver")

# Earlier turns loaded for context before the first new message (batching keeps what fits).
CONTEXT_LOOKBACK = 6
# Facts kept from one message, in the order the extractor gives them. The extractive provider
# makes a fact of every first-person sentence: a 25,000-character message gave 1,200, and an
# upload of 156 such messages 187,000, hours of embedding for one unit. A conversation turn
# states far fewer; a document this long belongs in a peer file, which is chunked and searched.
MAX_FACTS_PER_MESSAGE = 20
# Messages one run of a unit derives: the jobs past them wait for the unit's next claim. What a
# run holds in memory and computes on the event loop (its facts' pairwise similarities) grows
# with the square of its facts; a claim of 20 upload jobs held 2,000 long messages. A run takes
# at least one job, and jobs are made of at most half this many (schedule.MAX_JOB_MESSAGES).
MAX_UNIT_MESSAGES = 2 * MAX_JOB_MESSAGES
# How far into the session past its first message one run reads: it loads every turn between
# its first message and its last, and a dead job retried a day late, with the day's jobs
# behind it, loaded the whole day (a group chat where the peer speaks once in hundreds too).
MAX_WINDOW_MESSAGES = 1_000


@dataclass
class DeriverStats:
    """Counters a bench or test can read; the log gets the same numbers per unit."""

    units: int = 0
    facts_proposed: int = 0
    ungrounded: int = 0
    too_long: int = 0  # facts longer than a belief may be (MAX_BELIEF_CHARS): left out
    over_cap: int = 0  # facts past a message's first MAX_FACTS_PER_MESSAGE: left out
    bad_citations: int = 0
    source_changed: int = 0  # observations left out: their message was deleted or edited meanwhile
    written: int = 0
    repeats: int = 0
    usage: Usage = field(default_factory=Usage)


@dataclass
class _WriteCounts:
    """What one derive write counted: set (not added to) on each run of its transaction, and
    added to DeriverStats once it commits."""

    source_changed: int = 0
    written: int = 0
    repeats: int = 0


def first_jobs(jobs: Sequence[JobRecord], max_messages: int) -> list[JobRecord]:
    """The unit's first jobs, as many as carry at most `max_messages` messages in all, and
    never none (pure)."""
    taken: list[JobRecord] = []
    total = 0
    for job in jobs:
        size = len(job.payload.get("message_ids", []))
        if taken and total + size > max_messages:
            break
        taken.append(job)
        total += size
    return taken


def near_first(
    jobs: Sequence[JobRecord], seqs: Mapping[str, int], max_span: int
) -> list[JobRecord]:
    """The first of `jobs` whose messages (their seqs: `seqs`, those still there) lie within
    `max_span` turns of the first one's first message, and never none (pure)."""
    kept: list[JobRecord] = []
    start: int | None = None
    for job in jobs:
        mine = [seqs[i] for i in job.payload.get("message_ids", []) if i in seqs]
        if kept and start is not None and mine and max(mine) - start > max_span:
            break
        kept.append(job)
        if start is None and mine:
            start = min(mine)
    return kept


def share_usage(jobs: Sequence[JobRecord], usage: Usage) -> list[JobResult]:
    """Split a run's token usage over its jobs by how many messages each carried."""
    sizes = [max(1, len(job.payload.get("message_ids", []))) for job in jobs]
    return [
        JobResult(job.id, part.input_tokens, part.output_tokens)
        for job, part in zip(jobs, usage.split(sizes), strict=True)
    ]


Echo = tuple[ExplicitFact, ExplicitFact]  # (the fact kept, a later one of the unit repeating it)


def dedupe_within(
    facts: Sequence[ExplicitFact], threshold: float
) -> tuple[list[ExplicitFact], list[Echo]]:
    """The facts that repeat no earlier one of the same scope in this unit, and the repeats
    with the fact each repeats: a repeat's message is evidence of that belief too (dropped, a
    fact said in two messages of one unit rested on the first alone, and went with it when
    that one was purged)."""
    by_scope: dict[tuple[str, str], list[int]] = {}
    for i, fact in enumerate(facts):
        by_scope.setdefault((fact.observer, fact.observed), []).append(i)
    repeats: dict[int, int] = {}
    for indexes in by_scope.values():
        group = [facts[i] for i in indexes]
        found = repeated_items(
            [f.content_key for f in group],
            [f.embedding for f in group],
            threshold,
            [f.content for f in group],
        )
        repeats.update(
            {i: indexes[r] for i, r in zip(indexes, found, strict=True) if r is not None}
        )
    kept = [fact for i, fact in enumerate(facts) if i not in repeats]
    return kept, [(facts[r], facts[i]) for i, r in sorted(repeats.items())]


def survivors(
    facts: Sequence[ExplicitFact], echoes: Sequence[Echo], gone: Collection[str]
) -> tuple[list[ExplicitFact], list[Echo]]:
    """The facts and echoes whose message is not `gone`. A gone fact's first echo left takes
    its place, and its other echoes echo that one: a fact said again in a later message is
    still said there (it went, unwritten, with the first message)."""
    stand_in: dict[int, ExplicitFact] = {}
    kept_echoes: list[Echo] = []
    for first, echo in echoes:
        if echo.message_id in gone:
            continue
        if first.message_id not in gone:
            kept_echoes.append((first, echo))
        elif id(first) in stand_in:
            kept_echoes.append((stand_in[id(first)], echo))
        else:
            stand_in[id(first)] = echo
    kept = [stand_in.get(id(f), f) for f in facts if f.message_id not in gone or id(f) in stand_in]
    return kept, kept_echoes


@dataclass
class DeriverHandler:
    db: Database
    embedder: Embedder
    extractor: Extractor
    settings: Settings
    stats: DeriverStats = field(default_factory=DeriverStats)
    offload: Offload = off_loop  # where a batch's facts are checked: off the event loop

    async def prepare(self, unit: ClaimedUnit) -> Prepared:
        taken = first_jobs(unit.jobs, MAX_UNIT_MESSAGES)  # the rest wait (jobs.complete)
        try:
            head = unit.jobs[0]
            ids = [mid for job in taken for mid in job.payload.get("message_ids", [])]
            pending = await message_repo.by_ids(self.db, head.workspace, ids)
            taken = near_first(taken, {m.id: m.seq for m in pending}, MAX_WINDOW_MESSAGES)
            return await self._prepare(unit, taken, pending)
        except LeaseLost:
            raise
        except Exception as exc:  # an LLM down charges the jobs this run took, not the rest
            raise PreparationFailed({job.id for job in taken}) from exc

    async def _prepare(
        self, unit: ClaimedUnit, taken: list[JobRecord], read: list[MessageRecord]
    ) -> Prepared:
        head = unit.jobs[0]
        workspace, session = head.workspace, head.session or ""
        ids = {mid for job in taken for mid in job.payload.get("message_ids", [])}
        pending = [m for m in read if m.id in ids]
        if not pending:  # deleted meanwhile: nothing to derive
            return Prepared(results=[JobResult(j.id) for j in taken])
        window = await message_repo.by_seq(
            self.db,
            workspace,
            session,
            max(0, pending[0].seq - CONTEXT_LOOKBACK),
            pending[-1].seq,
        )
        by_id = {m.id: m for m in window}
        members = await sessions.list_members(self.db, workspace, session, include_past=True)
        ws = await workspaces.get(self.db, workspace)
        session_record = await sessions.get(self.db, workspace, session)
        # `dream.enabled: false` (the session's, else the workspace's): what this unit writes
        # does not move its views toward a dream.
        dreams = dreams_enabled(session_record.configuration, ws.configuration)
        contexts = {m.id: m.context for m in window if m.context}
        turns = [
            SessionMessage(m.id, m.peer, m.content, m.created_at, m.token_count) for m in window
        ]

        facts: list[Fact] = []
        unobserved: set[str] = set()  # senders with `observe_me: false` in their configuration
        kept: Counter[str] = Counter()  # facts kept per message
        usage = Usage()
        grounding = Grounding()
        # Each message is derived for the peer that sends it now, not the one the job names: a
        # merge or split since the job was queued may have moved it (and removed that peer).
        for sender in sorted({m.peer for m in pending}):
            target = await peers.get(self.db, workspace, sender)
            if not observes_itself(target.configuration):
                unobserved.add(sender)
            # Only the messages some view takes facts from are read: no model call for the rest.
            read_ids = {
                m.id
                for m in pending
                if m.peer == sender and message_observers(m, members, unobserved)
            }
            base = app_instructions(ws, target, session_record)
            for batch in batch_messages(
                turns,
                sender,
                max_tokens=self.settings.deriver_batch_tokens,
                pending_ids=read_ids,
            ):
                instructions = InstructionHierarchy(
                    base.workspace, base.peer, base.session, message_instructions(batch, contexts)
                )
                try:
                    extraction = await self.extractor.extract(batch, sender, instructions)
                except LLMError as exc:  # the batches before were billed too
                    raise billed(exc, usage) from None
                usage = usage + extraction.usage
                self.stats.bad_citations += extraction.bad_citations
                self.stats.facts_proposed += len(extraction.facts) + extraction.bad_citations
                cited = [(f.span, by_id[f.message_id].content) for f in extraction.facts]
                grounded = await self.offload(partial(grounding.check_all, cited))
                for fact, is_grounded in zip(extraction.facts, grounded, strict=True):
                    if not is_grounded:
                        self.stats.ungrounded += 1
                    elif not belief_fits(fact.content):
                        self.stats.too_long += 1
                    elif kept[fact.message_id] >= MAX_FACTS_PER_MESSAGE:
                        self.stats.over_cap += 1
                    else:
                        kept[fact.message_id] += 1
                        facts.append(fact)
        planned, echoes = await self._route(facts, by_id, members, unobserved)
        self.stats.units += 1
        self.stats.usage = self.stats.usage + usage
        log.info(
            "derived %s: %d facts kept, %d routed observations",
            unit.key,
            len(facts),
            len(planned),
        )

        counts = _WriteCounts()

        async def write(tx: Tx) -> None:
            # A message deleted or edited while the extractor read it: what was taken from its
            # old text is left out (an edit queued its own derivation of the new text). One
            # moved to another peer meanwhile (a merge or split): the unit runs again, and
            # derives it for that peer.
            said = {f.message_id for f in planned} | {e.message_id for _, e in echoes}
            cited = [by_id[i] for i in sorted(said)]
            changed = await message_repo.changed_since_read(tx, workspace, cited)
            # The session's lock after the messages', as deletions, edits and merge steps take
            # them: a split moving an observer's place commits before the members are read
            # below, or after this write (its step then moves what this wrote).
            await sessions.lock(tx, workspace, session)
            if changed.moved:
                raise Conflict(
                    f"{len(changed.moved)} messages of {unit.key} were moved to another peer "
                    "while derived; they are derived again for it"
                )
            # Who observes them may have changed too: a split moves the peer's place in the
            # session to its part, and these facts would go to a view the split has emptied.
            now_members = await sessions.list_members_in(tx, workspace, session, include_past=True)
            if any(
                message_observers(by_id[i], members, unobserved)
                != message_observers(by_id[i], now_members, unobserved)
                for i in said
            ):
                raise Conflict(
                    f"who observes the messages of {unit.key} changed while they were derived "
                    "(a split, or a member's settings); they are derived again"
                )
            current, echoed = survivors(planned, echoes, changed.gone)
            counts.source_changed = len(planned) - len(current)
            if counts.source_changed:
                log.info(
                    "%s: %d observations left out, their message changed meanwhile",
                    unit.key,
                    len(planned) - len(current),
                )
            outcome = await write_explicit(
                tx,
                workspace,
                current,
                echoes=echoed,
                threshold=self.settings.dedup_threshold,
                # The duplicate probe finds each fact's neighbours anyway; kept for dreams.
                near=None if self.settings.dream_mode == "off" else self.settings.dream_similarity,
                idle_at=scheduling.idle_at(self.settings, utc_now()),
                dream_threshold=scheduling.threshold(self.settings),
                dream_triggers=dreams,
                agrees=same_claim,
            )
            # "(stated on ...)" in the words of a belief an earlier message now dates.
            await date_anew(tx, self.embedder, workspace, outcome.redated)
            counts.written, counts.repeats = len(outcome.created), outcome.reinforced
            await scheduling.after_derivation(tx, self.settings, outcome.claims)

        def committed() -> None:
            self.stats.source_changed += counts.source_changed
            self.stats.written += counts.written
            self.stats.repeats += counts.repeats

        return Prepared(
            results=share_usage(taken, usage),
            write=write if planned else None,
            committed=committed if planned else None,
        )

    async def _route(
        self,
        facts: list[Fact],
        by_id: dict[str, MessageRecord],
        members: list[MembershipRecord],
        unobserved: set[str],
    ) -> tuple[list[ExplicitFact], list[Echo]]:
        if not facts:
            return [], []
        vectors = await embed_async(self.embedder, [f.content for f in facts])
        planned: list[ExplicitFact] = []
        for fact, vector in zip(facts, vectors, strict=True):
            message = by_id[fact.message_id]
            for observer in message_observers(message, members, unobserved):
                planned.append(
                    ExplicitFact(
                        observer=observer,
                        observed=message.peer,
                        content=fact.content,
                        content_key=exact_key(fact.content),
                        embedding=vector,
                        message_id=message.id,
                        span=fact.span,
                        valid_at=message.created_at,
                        session=message.session,
                    )
                )
        # Off the event loop: its pairwise similarities grow with the square of the facts, and
        # the loop also answers requests and renews this unit's lease.
        return await asyncio.to_thread(dedupe_within, planned, self.settings.dedup_threshold)
