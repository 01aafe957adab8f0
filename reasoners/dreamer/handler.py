"""The dream job: revise one representation's beliefs, then commit everything at once.

    claim ─► reconcile_stale: verdicts on the beliefs an invalidation left stale (reconcile.py)
          ─► read: the representation's undreamed beliefs (at most BELIEFGRAPH_DREAM_BATCH)
          ─► plan: the LLM specialists (specialists.py), each edit checked by a dry run of its
             write, or, with no LLM, the rules (rules.py)
          ─► commit, in the worker's transaction with the job's completion: the reconciliation
             verdicts, supersessions, new beliefs with their premises, prunes, the card, the
             beliefs' dreamed marks, the DreamRun with its events, and the next dream if
             beliefs are left over.

A crash before the commit leaves nothing behind; the job's lease runs out and the dream is
redone from the same undreamed beliefs. At the commit, an item the checked writes reject (what
changed since it was planned) is left out, with what cites it, and logged: the rest commits.
"""

from __future__ import annotations

import dataclasses
import logging
import time
import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from graph.configuration import card_created, dreams_enabled, instructions
from graph.db import Database, Tx
from graph.keys import Representation
from graph.repo import dream_runs, dreams, invalidation, reconciliation, workspaces
from graph.repo.dream_runs import ProcessedBelief, RunRecord
from graph.repo.dreams import Belief
from graph.repo.jobs import ClaimedUnit, JobResult
from graph.settings import Settings
from graph.validation import now as utc_now
from reasoners.dreamer import scheduling
from reasoners.dreamer.apply import apply_plan, reconciled_events
from reasoners.dreamer.card_support import still_supported
from reasoners.dreamer.plan import CardLine, DreamPlan
from reasoners.dreamer.reconcile import reconcile_stale
from reasoners.dreamer.rules import keys_of, plan_rules
from reasoners.dreamer.specialists import Specialists
from reasoners.dreamer.surroundings import surroundings
from reasoners.embeddings.model import Embedder, embed_async
from reasoners.llm.interface import LLM, LLMError, Usage, billed
from reasoners.offload import Offload, off_loop
from reasoners.queue.worker import Prepared

LLM_DREAM_BATCH = 100  # new beliefs one LLM dream reads (its prompt stays a few thousand tokens)
log = logging.getLogger("beliefgraph.dreamer")

RULES, LLM_MODE = "rules", "llm"


def dream_mode(settings: Settings, llm: LLM | None) -> str:
    """Which dreamer runs: "llm" or "rules" (BELIEFGRAPH_DREAM_MODE; auto picks by the LLM)."""
    if settings.dream_mode == LLM_MODE or (settings.dream_mode == "auto" and llm is not None):
        return LLM_MODE
    return RULES


@dataclass
class DreamStats:
    runs: int = 0
    observations: int = 0
    created: int = 0
    superseded: int = 0
    usage: Usage = field(default_factory=Usage)
    embed_seconds: float = 0.0  # model time spent embedding derived beliefs


@dataclass
class DreamHandler:
    db: Database
    embedder: Embedder
    llm: LLM | None
    settings: Settings
    stats: DreamStats = field(default_factory=DreamStats)
    offload: Offload = off_loop  # where the rules' plan runs: off the event loop

    async def prepare(self, unit: ClaimedUnit) -> Prepared:
        head = unit.jobs[0]
        observer = str(head.payload.get("observer", ""))
        observed = str(head.payload.get("observed", ""))
        triggers = {str(j.payload.get("trigger", "manual")) for j in unit.jobs}
        trigger = scheduling.unit_trigger(triggers)
        view = Representation(head.workspace, observer, observed)
        started = utc_now()
        mode = dream_mode(self.settings, self.llm)
        state = await dreams.state(self.db, view)
        if not state.exists:
            # Its peer was renamed, merged or purged after the dream was queued: what it would
            # have dreamed moved with the peer (whose views get dreams of their own) or is gone.
            # Retrying would fail the same way, to a dead job; it ends here, done.
            log.info("dream of %s -> %s: no such representation now; skipped", observer, observed)
            return Prepared(results=[JobResult(j.id) for j in unit.jobs], write=None)
        configuration = await workspaces.configuration_of(self.db, view.workspace)
        cards = card_created(configuration)
        # Reconciliation first: the LLM reconciles only in llm mode, as it dreams only then.
        guidance = instructions(configuration, "dream")
        settled = await reconcile_stale(
            self.db,
            self.embedder,
            self.llm if mode == LLM_MODE else None,
            view,
            limit=self.settings.dream_batch,
            guidance=guidance,
        )
        # With dreams off in the workspace (`dream.enabled: false`), a dream an edit, deletion,
        # correction or merge scheduled only reconciles (nothing new is read, so nothing is
        # marked dreamed). The app's own requests dream, and so do threshold and idle dreams:
        # the beliefs of a session whose switch allowed them triggered those.
        full = trigger != scheduling.RECONCILE or dreams_enabled(configuration)
        # With an LLM every new belief goes into one prompt, sent again on each turn of the
        # specialists: at most LLM_DREAM_BATCH a dream, the rest left to the follow-up dream.
        batch = (
            self.settings.dream_batch
            if mode == RULES
            else min(self.settings.dream_batch, LLM_DREAM_BATCH)
        )
        read = (
            await dreams.pending(self.db, view, limit=batch, with_embeddings=mode == RULES)
            if full
            else []
        )
        # What this dream's reconciliation keeps current is current for the plan, though it was
        # stale when read (with its new words if it updates them): the card, rebuilt from
        # current beliefs, lost the line of a kept one. History it keeps stays history.
        settled_ids = {v.id for v in settled.verdicts if v.action != "drop"}
        words = {
            v.id: v.content
            for v in settled.verdicts
            if v.action != "drop" and not settled.read[v.id].superseded
        }
        current = [
            b
            if b.current or b.id not in words
            else dataclasses.replace(b, content=words[b.id] or b.content, current=True)
            for b in read
            if b.current or b.id in words
        ]
        usage = settled.usage
        vectors: dict[str, list[float]] = {}
        if not full:
            plan = DreamPlan()  # the card loses what rests on the beliefs it drops (write)
        elif mode == RULES:
            plan = await self._rules(view, current, state.card, settled_ids)
        else:
            assert self.llm is not None  # open_services refuses llm mode without an LLM
            specialists = Specialists(
                self.db,
                self.embedder,
                self.llm,
                self.settings,
                view,
                cards=cards,
                guidance=instructions(configuration, "dream", "peer_card") if cards else guidance,
                before=lambda tx: reconciliation.apply(
                    tx, view, settled.verdicts, utc_now(), settled.read
                ),
            )
            # A dream asked for, or one a change scheduled (an edit, a merge), with nothing new
            # to read looks over the most recent beliefs.
            asked = trigger in (scheduling.MANUAL, scheduling.RECONCILE)
            try:
                plan, dreamed = await specialists.run(current, state.card, manual=asked)
            except LLMError as exc:  # the reconciliation's and the turns' tokens were billed
                raise billed(exc, usage + specialists.usage) from None
            usage = usage + dreamed
            vectors = dict(specialists.vectors)
        if not cards:  # `peer_card.create: false`: no line is added or reworded
            plan.card = None
        missing = [b for b in plan.beliefs if b.id not in vectors]
        began = time.perf_counter()
        embedded = await embed_async(self.embedder, [b.content for b in missing])
        self.stats.embed_seconds += time.perf_counter() - began
        vectors.update(zip([b.id for b in missing], embedded, strict=True))
        # The card's new lines get embeddings for their chunks (unchanged lines keep theirs).
        before = {line.text for line in state.card}
        new_lines = sorted({line.text for line in plan.card or [] if line.text not in before})
        card_vectors = dict(
            zip(new_lines, await embed_async(self.embedder, new_lines), strict=True)
        )
        processed = [ProcessedBelief(b.id, *_keys(b, observed)) for b in read]
        origin = f"dreamer:{mode}"
        # The batch limit may have left new beliefs unread, or stale ones unreconciled: with
        # no new belief to come, nothing else would dream of the view again to settle them.
        unread = len(read) >= batch
        stale_left = len(settled.read) >= self.settings.dream_batch
        more_waiting = unread or stale_left

        threshold_now = scheduling.threshold(self.settings)
        dreams_on = dreams_enabled(configuration)
        tally = DreamStats()  # this run's counts, set on each run of the transaction

        async def write(tx: Tx) -> None:
            stamp = utc_now()
            await dream_runs.lock(tx, view)
            reconciled = await reconciliation.apply(tx, view, settled.verdicts, stamp, settled.read)
            dropped = [i for i, action in reconciled.actions.items() if action == "drop"]
            # A dropped belief replaces nothing any more: what it replaced may be current again,
            # for the card of a dream queued behind this one (this one planned without it).
            reinstated = await invalidation.reinstate(tx, view.workspace, dropped)
            # A kept one no longer cites an edited message: an update it alone made newer is
            # reversed, for the dream queued behind this one to settle against this one's plan.
            reversed_ = await invalidation.reverse_outdated(
                tx, view.workspace, [], stamp, unlinked=reconciled.unlinked
            )
            # Read again here: cards switched off while the dream planned stay unwritten.
            cards_now = card_created(await workspaces.configuration_in(tx, view.workspace))
            plan_now = plan if cards_now else dataclasses.replace(plan, card=None)
            if plan_now.card is None and state.card:
                # A plan that leaves the card (a dream that only reconciles, an LLM that wrote
                # none, cards off) still takes off it what rested on beliefs no longer current:
                # dropped here, deleted or corrected since, or replaced or pruned by this plan.
                # With cards off nothing is added or reworded, but a dream's old line quoting
                # deleted words would stay for good.
                gone = plan.superseded_ids | {p.id for p in plan.prunes}
                kept = await still_supported(tx, view, state.card, gone)
                plan_now = dataclasses.replace(plan, card=kept)
            # Lenient: what changed since the plan was checked (a concurrent derivation, the
            # app's card edits) leaves an item out instead of failing the whole dream again.
            applied = await apply_plan(
                tx,
                view,
                plan_now,
                vectors,
                card_before=state.card,
                origin=origin,
                now=stamp,
                lenient=True,
                card_vectors=card_vectors,
            )
            # What rested on a superseded or pruned belief no longer stands on current
            # premises: it turns stale, and the dream queued behind this one reconciles it.
            replaced = await invalidation.propagate(
                tx,
                view.workspace,
                applied.superseded_ids,
                invalidation.SUPERSEDED_PREMISE,
                stamp,
                other_roots=applied.pruned_ids,
            )
            pruned = await invalidation.propagate(
                tx,
                view.workspace,
                applied.pruned_ids,
                invalidation.PRUNED_PREMISE,
                stamp,
                other_roots=applied.superseded_ids,
            )
            changed = replaced.scopes | pruned.scopes | reinstated | reversed_.scopes
            for observer_of, observed_of in sorted(changed):
                if not scheduling.enabled(self.settings):
                    break
                await scheduling.on_demand_in(
                    tx,
                    self.settings,
                    Representation(view.workspace, observer_of, observed_of),
                    trigger=scheduling.RECONCILE,
                )
            run = RunRecord(
                id=str(uuid.uuid4()),
                trigger=trigger,
                mode=mode,
                started_at=started,
                finished_at=stamp,
                observations=len(read),
                created=applied.created,
                superseded=applied.superseded,
                contradictions=applied.contradictions,
                pruned=applied.pruned,
                card_changes=applied.card_changes,
                tokens_in=usage.input_tokens,
                tokens_out=usage.output_tokens,
                events=reconciled_events(reconciled, settled.read) + applied.events,
            )
            finished = await dream_runs.finish(
                tx,
                view,
                run,
                processed,
                job_ids=[j.id for j in unit.jobs],
                idle_at=scheduling.idle_at(self.settings, stamp),
                # The follow-up dream: at once when the batch limit left beliefs unread, else
                # when the threshold's worth still waits.
                more_waiting=scheduling.enabled(self.settings) and more_waiting,
                threshold=threshold_now,
                dreamed=full,
            )
            await scheduling.follow_up(
                tx,
                self.settings,
                view,
                finished.claimed,
                more_waiting=more_waiting,
                paced=finished.paced,
                # One only to reconcile the rest is a threshold dream (whose specialists, with
                # nothing new, do not run), but with dreams off in the workspace: it then only
                # reconciles, as this one did.
                trigger="threshold"
                if unread or 0 < threshold_now <= finished.remaining or dreams_on
                else scheduling.RECONCILE,
            )
            tally.observations, tally.created = len(read), applied.created
            tally.superseded = applied.superseded
            log.info(
                "dream %d of %s -> %s (%s, %s): %d reconciled, %d read, %d created, %d superseded",
                finished.seq,
                observer,
                observed,
                mode,
                trigger,
                len(reconciled.actions),
                len(read),
                applied.created,
                applied.superseded,
            )

        results = [
            JobResult(j.id, part.input_tokens, part.output_tokens)
            for j, part in zip(unit.jobs, usage.split([1] * len(unit.jobs)), strict=True)
        ]

        def committed() -> None:
            self.stats.runs += 1
            self.stats.observations += tally.observations
            self.stats.created += tally.created
            self.stats.superseded += tally.superseded
            self.stats.usage = self.stats.usage + usage

        return Prepared(results=results, write=write, committed=committed)

    async def _rules(
        self,
        view: Representation,
        new: Sequence[Belief],
        card: list[CardLine],
        settled: Collection[str] = (),
    ) -> DreamPlan:
        related = await surroundings(
            self.db, view, new, card, settled, similarity=self.settings.dream_similarity
        )
        return await self.offload(
            lambda: plan_rules(
                view.observed,
                new,
                related,
                similarity=self.settings.dream_similarity,
                new_id=lambda: str(uuid.uuid4()),
            )
        )


def _keys(belief: Belief, observed: str) -> tuple[str | None, str | None]:
    """Stored in either mode, so the rules find these beliefs later whichever dreamer ran."""
    keys = keys_of(belief, observed)
    return keys.slot, keys.claim
