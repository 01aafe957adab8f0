"""The reconcile_stale task: the first step of every dream of a representation.

It reads the beliefs an invalidation left stale (at most BELIEFGRAPH_DREAM_BATCH), judges them
(reconcile_rules.py: with the LLM, or by what still grounds them) and returns verdicts that the
dream writes in its own transaction, before its new beliefs, so new dreams never build on a
stale belief that could have been settled.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from graph.db import Database
from graph.keys import Representation
from graph.repo import reconciliation
from graph.repo.reconciliation import Source, StaleBelief, Verdict
from reasoners.deriver.dedup import exact_key
from reasoners.deriver.first_person import restated
from reasoners.dreamer.reconcile_rules import (
    KEEP,
    UPDATE,
    BeliefVerdict,
    ReconcileOutput,
    llm_verdicts,
    reconcile_messages,
    rule_verdicts,
)
from reasoners.embeddings.model import Embedder, embed_async
from reasoners.llm.interface import LLM, LLMError, LLMOutputInvalid, Usage, billed
from reasoners.text.spans import is_grounded

# The model role reconciliation answers under: it reviews derived beliefs like the deduction
# specialist does, so it shares that role's model setting.
ROLE = "dreamer-deduction"
log = logging.getLogger(__name__)
RECONCILE_CHUNK = 25  # stale beliefs one reconciliation call judges (its answer stays small)


@dataclass(frozen=True)
class Reconciliation:
    verdicts: list[Verdict] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    read: dict[str, StaleBelief] = field(default_factory=dict)  # see reconciliation.apply


def unlinking(verdict: Verdict, belief: StaleBelief) -> Verdict:
    """A kept explicit belief's verdict, with the live sources that no longer hold their span
    (edited since) to stop citing, when another live source still grounds it; a belief none
    grounds keeps its sources, whatever the verdict (it must stay traceable). A fact the
    extractive deriver dated "(stated on ...)" with a date none of the messages left has is
    updated to the earliest of theirs."""
    if verdict.action != KEEP or belief.level != "explicit":
        return verdict
    grounded = [s for s in belief.sources if s.live and is_grounded(s.span, s.content)]
    gone = tuple(s for s in belief.sources if s.live and s not in grounded)
    if not grounded or not gone:
        return verdict
    words = restated(belief.content, {when.date()} if (when := _dated(belief, grounded)) else ())
    if words is None:
        return replace(verdict, unlink=gone)
    return replace(verdict, action=UPDATE, content=words, unlink=gone, redate=True)


def _dated(belief: StaleBelief, left: list[Source]) -> datetime | None:
    """When the belief will say it was stated once `left` alone back it: as the unlink picks
    (reconcile_beliefs.cypher), its own time if a message left has its session and time, else
    the earliest message left of its session, else the earliest."""
    if any(s.session == belief.session and s.created_at == belief.valid_at for s in left):
        return belief.valid_at
    ordered = sorted(
        (s for s in left if s.created_at is not None),
        key=lambda s: (s.created_at or datetime.min, s.message_id),
    )
    own = [s for s in ordered if s.session == belief.session]
    picks = own or ordered
    return picks[0].created_at if picks else None


async def judge(
    llm: LLM, view: Representation, current: Sequence[StaleBelief], guidance: str | None
) -> tuple[list[BeliefVerdict], Usage]:
    """The model's verdicts on current stale beliefs, RECONCILE_CHUNK at a time (a thousand
    verdicts outgrow any answer's token limit). A part whose answer never fit the schema gets
    none, so the rules judge it: a dream failing there failed again on every retry, and
    reconciliation comes first in every dream of the view."""
    given: list[BeliefVerdict] = []
    usage = Usage()
    for start in range(0, len(current), RECONCILE_CHUNK):
        part = current[start : start + RECONCILE_CHUNK]
        try:
            answer = await llm.structured(
                ROLE,
                reconcile_messages(view.observer, view.observed, part, guidance),
                ReconcileOutput,
            )
        except LLMOutputInvalid as exc:
            log.warning("%s: %d stale beliefs reconciled by the rules: %s", view, len(part), exc)
            usage = usage + exc.usage
            continue
        except LLMError as exc:  # the parts before were billed too
            raise billed(exc, usage) from None
        given.extend(answer.value.verdicts)
        usage = usage + answer.usage
    return given, usage


async def reconcile_stale(
    db: Database,
    embedder: Embedder,
    llm: LLM | None,
    view: Representation,
    *,
    limit: int,
    guidance: str | None = None,
) -> Reconciliation:
    beliefs = await reconciliation.stale(db, view, limit=limit)
    if not beliefs:
        return Reconciliation()
    read = {b.id: b for b in beliefs}
    current = [b for b in beliefs if not b.superseded]
    usage = Usage()
    if llm is None or not current:
        verdicts = rule_verdicts(beliefs)
    else:
        # The model judges current beliefs; history (superseded versions) keeps the rules.
        given, usage = await judge(llm, view, current, guidance)
        texts = sorted({(v.content or "").strip() for v in given if v.action == "update"} - {""})
        verdicts = llm_verdicts(
            beliefs, ReconcileOutput(verdicts=given), {t: exact_key(t) for t in texts}
        )
    verdicts = [unlinking(v, read[v.id]) for v in verdicts]
    # Updated words, the model's or the zero-key recount, get their key and embedding.
    texts = sorted({v.content for v in verdicts if v.content is not None})
    vectors = dict(zip(texts, await embed_async(embedder, texts), strict=True))
    embedded = [
        replace(
            v,
            content_key=v.content_key or exact_key(v.content),
            embedding=vectors[v.content],
        )
        if v.content is not None
        else v
        for v in verdicts
    ]
    return Reconciliation(embedded, usage, read)
