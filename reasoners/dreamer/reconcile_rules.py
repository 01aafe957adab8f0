"""Reconciling stale beliefs (pure): the zero-key verdicts, and the LLM's prompt and schema.

A belief is stale because something under it changed: a source message was deleted or edited,
a premise was corrected, deleted or itself made stale. Without an LLM a belief is kept when what
remains still grounds it, and dropped (tombstoned) otherwise:
- an explicit fact, when a live source message still contains its quoted span;
- a derived belief, when enough of its premises are current (a deduction 1, an induction or a
  contradiction 2), counting the premises this same pass keeps.
Premises are judged before the beliefs resting on them, so one pass settles a whole chain.
A superseded version is judged by the same rules (with an LLM too): history whose evidence
went is tombstoned, and a premise stands for it while neither deleted nor stale.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, Field

from graph.repo.reconciliation import Premise, StaleBelief, Verdict
from reasoners.dreamer.induction_text import MIN_INDUCTION_SESSIONS, recounted, sentence_of
from reasoners.dreamer.prompt import GUIDANCE_HEADING
from reasoners.dreamer.slots import core_text
from reasoners.llm.interface import ChatMessage, system, user
from reasoners.text.spans import is_grounded
from reasoners.text.transcript import indented

KEEP, UPDATE, DROP = "keep", "update", "drop"
NEEDED = {"deductive": 1, "inductive": 2, "contradiction": 2}
SHOWN_CHARS = 400


_EPOCH = datetime(1, 1, 1, tzinfo=UTC)


def _current(belief: StaleBelief, kept: set[str], judged: set[str]) -> list[Premise]:
    """The premises that still ground the belief: a premise judged in this pass counts by its
    verdict; one still waiting does not."""

    def current(p: Premise) -> bool:
        return p.id in kept and p.stands if p.id in judged else p.current and not p.pending

    return [p for p in belief.premises if current(p)]


def _verdict(belief: StaleBelief, kept: set[str], judged: set[str]) -> Verdict:
    """Keep the belief while what remains grounds it, else drop it. A kept induction in the
    zero-key words that states more times than premises still ground it (one went, or moved to
    another representation) is reworded with its counts as they are, and dropped when one
    session is left (it is no pattern across sessions). It keeps citing a moved premise: that
    is its provenance, what a purge of the premise's source follows to erase it too."""
    if belief.level == "explicit":
        live = any(s.live and is_grounded(s.span, s.content) for s in belief.sources)
        return Verdict(belief.id, KEEP if live else DROP)
    still = _current(belief, kept, judged)
    if len(still) < NEEDED.get(belief.level, 1):
        return Verdict(belief.id, DROP)
    if belief.level != "inductive":
        return Verdict(belief.id, KEEP)
    sessions = len({p.session for p in still if p.session})
    # Told in the words of the premise left that was stated last, as a new induction is.
    latest = max(still, key=lambda p: (p.stated is not None, p.stated or _EPOCH, p.id))
    words = recounted(belief.content, len(still), sessions, sentence_of(core_text(latest.content)))
    if words is None:
        return Verdict(belief.id, KEEP)
    if sessions < MIN_INDUCTION_SESSIONS:
        return Verdict(belief.id, DROP)
    return Verdict(belief.id, UPDATE, words)


def order(beliefs: Sequence[StaleBelief]) -> list[StaleBelief]:
    """Premises before the beliefs that rest on them (within the batch)."""
    waiting = {b.id: b for b in beliefs}
    ordered: list[StaleBelief] = []
    while waiting:
        ready = [
            b for b in waiting.values() if not any(p.id in waiting for p in b.premises)
        ] or list(waiting.values())  # cannot happen in a DAG; never loop forever
        for b in ready:
            ordered.append(b)
            del waiting[b.id]
    return ordered


def _judge(beliefs: Sequence[StaleBelief], judged: set[str], kept: set[str]) -> list[Verdict]:
    """Zero-key verdicts on `beliefs`, premises first; `judged` are the ids this pass decides
    (these beliefs and any decided before), `kept` those of them kept so far (grows)."""
    verdicts = []
    for belief in order(beliefs):
        verdict = _verdict(belief, kept, judged)
        if verdict.action != DROP:
            kept.add(belief.id)
        verdicts.append(verdict)
    return verdicts


def rule_verdicts(beliefs: Sequence[StaleBelief]) -> list[Verdict]:
    """The zero-key verdicts: keep what is still grounded (an induction in the zero-key words
    told with its counts as they are now), drop the rest."""
    return _judge(beliefs, {b.id for b in beliefs}, set())


# --- with an LLM --------------------------------------------------------------------------


class BeliefVerdict(BaseModel):
    id: str = Field(description="The belief's id, as shown in [obs:<id>].")
    action: Literal["confirm", "update", "tombstone"] = Field(
        description="confirm: it still holds as written; update: it holds once reworded "
        "(give `content`); tombstone: the current evidence no longer supports it."
    )
    content: str | None = Field(default=None, description="The reworded belief, for `update` only.")


class ReconcileOutput(BaseModel):
    verdicts: list[BeliefVerdict]


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def render(belief: StaleBelief) -> str:
    reason = belief.reason or "unknown"
    lines = [f"[obs:{belief.id}] ({belief.level}; stale: {reason}) {_short(belief.content)}"]
    for p in belief.premises:
        state = "current" if p.current else "no longer current"
        lines.append(f"    premise [obs:{p.id}] ({state}): {_short(p.content)}")
    for s in belief.sources:
        if s.live:
            lines.append(f"    source message {s.message_id} now reads: {_short(s.content)}")
        else:
            lines.append(f"    source message {s.message_id} was deleted")
    return "\n".join(lines)


def reconcile_messages(
    observer: str, observed: str, beliefs: Sequence[StaleBelief], guidance: str | None = None
) -> list[ChatMessage]:
    """The reconciliation call, with the app's `guidance` for dreams (if any) after the rules."""
    instructions = (
        f"You maintain {observer}'s beliefs about {observed}. The beliefs below were marked "
        "stale because evidence under them changed: a source message was deleted or edited, "
        "or a premise was corrected or removed. Judge each one against the evidence shown "
        "(current premises and live messages only): confirm it, update its wording, or "
        "tombstone it. Give exactly one verdict per belief, by its id. Never invent facts."
    )
    if guidance:
        instructions += f"\n\n{GUIDANCE_HEADING}\n{indented(guidance)}"
    listing = "\n\n".join(render(b) for b in beliefs)
    return [system(instructions), user(f"Stale beliefs:\n\n{listing}")]


def _unsourced(belief: StaleBelief) -> bool:
    return belief.level == "explicit" and not any(s.live for s in belief.sources)


def llm_verdicts(
    beliefs: Sequence[StaleBelief], answer: ReconcileOutput, exact_key: dict[str, str]
) -> list[Verdict]:
    """The model's verdicts, one per belief; a belief it skipped (or gave an update without
    text), and a superseded version (history, which the model is not shown), fall back to the
    zero-key verdict, and so does a fact whose every message was deleted: the model's confirm
    brought it back with no evidence at all (an edited message's new text may still hold it,
    reworded: that the model judges). A derived belief it keeps is dropped when fewer of its
    premises stand than its level needs. `exact_key` maps updated texts to their keys."""
    given = {v.id: v for v in answer.verdicts}
    fallback = {v.id: v for v in rule_verdicts(beliefs)}
    decided: dict[str, Verdict] = {}
    for belief in beliefs:
        if belief.superseded:
            continue  # judged below, once the current beliefs under it are
        v = given.get(belief.id)
        if (
            _unsourced(belief)
            or v is None
            or (v.action == "update" and not (v.content or "").strip())
        ):
            decided[belief.id] = fallback[belief.id]
        elif v.action == "tombstone":
            decided[belief.id] = Verdict(belief.id, DROP)
        elif v.action == "update":
            text = (v.content or "").strip()
            decided[belief.id] = Verdict(
                belief.id, UPDATE, content=text, content_key=exact_key[text], relink=True
            )
        else:
            decided[belief.id] = Verdict(belief.id, KEEP, relink=True)
    # A derived belief the model keeps still needs its premises, premises first: one resting
    # on a premise deleted, or dropped in this pass, was written current with nothing under it.
    # A corrected premise grounds it through its correction, which the kept belief then cites.
    # One whose premise still waits outside this batch gets no verdict yet (nor what rests on
    # it): it stays pending for the dream that reads that premise (a follow-up, as the batch
    # was full), unless nothing of the batch could be judged.
    judged = {b.id for b in beliefs}
    deferred = _waiting_on_others(beliefs, judged)
    if len(deferred) == len(beliefs):
        deferred = set()
    kept: set[str] = set()
    for belief in order([b for b in beliefs if not b.superseded and b.id not in deferred]):
        standing = {p.id for p in _current(belief, kept, judged)}
        grounds = {p.replaced_by or p.id for p in belief.premises if p.id in standing}
        grounds |= {p.replaced_by for p in belief.premises if p.replaced_by}
        if (
            decided[belief.id].action != DROP
            and belief.level != "explicit"
            and len(grounds) < NEEDED.get(belief.level, 1)
        ):
            decided[belief.id] = Verdict(belief.id, DROP)
        if decided[belief.id].action != DROP:
            kept.add(belief.id)
    # History is judged by the rules on the final verdicts of the current beliefs under it.
    history = [b for b in beliefs if b.superseded and b.id not in deferred]
    for verdict in _judge(history, judged, kept):
        decided[verdict.id] = verdict
    return [decided[b.id] for b in beliefs if b.id not in deferred]


def _waiting_on_others(beliefs: Sequence[StaleBelief], judged: set[str]) -> set[str]:
    """The beliefs with a premise awaiting reconciliation outside `judged`, and those resting
    on them, directly or not."""
    waiting = {b.id for b in beliefs if any(p.pending and p.id not in judged for p in b.premises)}
    grew = True
    while grew:
        grew = False
        for b in beliefs:
            if b.id not in waiting and any(p.id in waiting for p in b.premises):
                waiting.add(b.id)
                grew = True
    return waiting
