"""The LLM dreamer: a deduction specialist, then an induction specialist, each a tool loop.

Discovery tools read the representation (search, similar beliefs, source messages); action
tools propose edits. Each proposed edit is rehearsed at once: the plan so far plus the edit is
written in a transaction that is rolled back, so the Cypher checks (premises exist, share the
scope, are current; enough of them; a supported card) run exactly as they will at the commit,
and a rejection goes back to the model as the tool's answer. Accepted edits accumulate in a
`DreamPlan` that the handler commits with the job.

The deduction specialist may update, derive, flag contradictions, prune derived beliefs and
rewrite the card; the induction specialist only adds patterns (it has no other action tool).
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from graph.db import Database, Tx
from graph.keys import Representation
from graph.records import ObservationRecord
from graph.repo import observation_search, observations
from graph.repo.dream_writes import ProvenanceRejected
from graph.repo.observation_search import ObservationQuery
from graph.repo.peer_cards import MAX_ENTRIES, one_line
from graph.settings import Settings
from graph.validation import now as utc_now
from reasoners.dreamer.apply import apply_plan
from reasoners.dreamer.plan import (
    CONTRADICTION,
    DEDUCTIVE,
    INDUCTIVE,
    Belief,
    CardLine,
    DreamPlan,
    NewBelief,
    Prune,
    Supersession,
    confidence_for,
)
from reasoners.dreamer.prompt import DEDUCTION, INDUCTION, render_belief, specialist_messages
from reasoners.dreamer.specialist_tools import (
    DEDUCTION_ACTIONS,
    DISCOVERY,
    INDUCTION_ACTIONS,
    CardArgs,
    ContradictionArgs,
    DeductionArgs,
    InductionArgs,
    PruneArgs,
    SearchArgs,
    SimilarArgs,
    SourcesArgs,
    UpdateArgs,
)
from reasoners.embeddings.model import Embedder, embed_async
from reasoners.llm.interface import (
    LLM,
    ChatMessage,
    ToolCall,
    ToolSpec,
    Usage,
    assistant_turn,
    tool_result,
)
from reasoners.search.observations import search_observations

DEDUCTION_ROLE = "dreamer-deduction"
INDUCTION_ROLE = "dreamer-induction"
MAX_CALLS_PER_TURN = 8
RECENT_ON_DEMAND = 30  # beliefs shown when a requested dream finds nothing new
MAX_SOURCES_SHOWN = 3


def _belief(record: ObservationRecord) -> Belief:
    return Belief(
        id=record.id,
        content=record.content,
        level=record.level,
        valid_at=record.valid_at or record.created_at,
        created_at=record.created_at,
        session=record.session,
    )


@dataclass
class Specialists:
    db: Database
    embedder: Embedder
    llm: LLM
    settings: Settings
    view: Representation
    plan: DreamPlan = field(default_factory=DreamPlan)
    vectors: dict[str, list[float]] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    card_before: list[CardLine] = field(default_factory=list)
    cards: bool = True  # False: the workspace has `peer_card.create: false`, no card tool
    guidance: str | None = None  # the app's instructions for dreams (and cards)
    # What the commit writes before the plan (this dream's reconciliation), written first in
    # each rehearsal too: a stale belief it keeps is current to the plan, as at the commit.
    before: Callable[[Tx], Awaitable[object]] | None = None

    @property
    def query(self) -> ObservationQuery:
        return ObservationQuery(observer=self.view.observer, observed=self.view.observed)

    async def run(
        self, new: Sequence[Belief], card: list[CardLine], *, manual: bool
    ) -> tuple[DreamPlan, Usage]:
        self.card_before = list(card)
        recent, label = list(new), "New beliefs since the last dream"
        if not recent and manual:
            top = await observation_search.top(
                self.db,
                self.view.workspace,
                self.query,
                most_derived=0,
                most_recent=RECENT_ON_DEMAND,
            )
            recent, label = [_belief(o) for o in top.most_recent], "The most recent beliefs"
        if not recent:
            return self.plan, self.usage
        deduction = [a for a in DEDUCTION_ACTIONS if self.cards or a.name != "set_peer_card"]
        await self._loop(DEDUCTION_ROLE, DEDUCTION, recent, label, deduction)
        await self._loop(INDUCTION_ROLE, INDUCTION, recent, label, INDUCTION_ACTIONS)
        return self.plan, self.usage

    async def _loop(
        self,
        role: str,
        prompt: str,
        recent: list[Belief],
        label: str,
        actions: list[ToolSpec],
    ) -> None:
        messages: list[ChatMessage] = specialist_messages(
            prompt,
            self.view.observer,
            self.view.observed,
            recent,
            self.plan.card if self.plan.card is not None else self.card_before,
            recent_label=label,
            cards=self.cards,
            guidance=self.guidance,
        )
        tools = [*DISCOVERY, *actions]
        allowed = {spec.name for spec in tools}
        for _ in range(self.settings.dream_iterations):
            turn = await self.llm.chat(role, messages, tools=tools)
            self.usage = self.usage + turn.usage
            messages.append(assistant_turn(turn))
            if not turn.tool_calls:
                return
            for index, call in enumerate(turn.tool_calls):
                if index >= MAX_CALLS_PER_TURN:
                    result = f"error: at most {MAX_CALLS_PER_TURN} calls per turn; call it again"
                else:
                    result = await self.dispatch(call, allowed)
                messages.append(tool_result(call.id, result))

    async def dispatch(self, call: ToolCall, allowed: set[str]) -> str:
        if call.arguments_error is not None:
            return f"error: {call.arguments_error}"
        if call.name not in allowed:
            return f"error: no tool named {call.name!r} here; use one of {sorted(allowed)}"
        model, run = self._tools[call.name]
        try:
            args = model.model_validate(call.arguments)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                for e in exc.errors()
            )
            return f"error: invalid arguments: {problems}"
        return await run(args)

    @property
    def _tools(self) -> dict[str, tuple[type[BaseModel], Callable[[Any], Awaitable[str]]]]:
        return {
            "search_beliefs": (SearchArgs, self._search),
            "similar_beliefs": (SimilarArgs, self._similar),
            "source_messages": (SourcesArgs, self._sources),
            "update_belief": (UpdateArgs, self._update),
            "add_deduction": (DeductionArgs, self._deduce),
            "add_contradiction": (ContradictionArgs, self._contradict),
            "prune_belief": (PruneArgs, self._prune),
            "set_peer_card": (CardArgs, self._card),
            "add_induction": (InductionArgs, self._induce),
        }

    # --- discovery --------------------------------------------------------------------------

    async def _found(self, text: str, limit: int) -> list[Belief]:
        hits = await search_observations(
            self.db, self.embedder, self.view.workspace, text, self.query, limit
        )
        return [_belief(hit.item) for hit in hits]

    async def _search(self, args: SearchArgs) -> str:
        found = await self._found(args.query, args.limit)
        return "\n".join(render_belief(b) for b in found) or "No current belief matches."

    async def _similar(self, args: SimilarArgs) -> str:
        known = await observations.in_view(
            self.db, self.view.workspace, self.query, [args.observation_id]
        )
        if not known:
            return f"error: no belief {args.observation_id} in this representation"
        found = await self._found(known[0].observation.content, args.limit + 1)
        shown = [b for b in found if b.id != args.observation_id][: args.limit]
        return "\n".join(render_belief(b) for b in shown) or "No similar current belief."

    async def _sources(self, args: SourcesArgs) -> str:
        known = await observations.in_view(
            self.db, self.view.workspace, self.query, args.observation_ids
        )
        if not known:
            return "None of these ids is a belief of this representation."
        lines = []
        for item in known:
            lines.append(render_belief(_belief(item.observation)))
            if item.premise_ids:
                lines.append("    premises: " + ", ".join(f"[obs:{p}]" for p in item.premise_ids))
            for source in item.sources[:MAX_SOURCES_SHOWN]:
                m = source.message
                lines.append(
                    f"    from {m.peer} on {m.created_at.date().isoformat()} in session "
                    f'{m.session}: "{" ".join((source.span or m.content[:200]).split())}"'
                )
        return "\n".join(lines)

    # --- actions ----------------------------------------------------------------------------

    async def _propose(self, tool: str, candidate: DreamPlan, accepted: str) -> str:
        """Rehearse the plan with the edit; keep it only if every check passes."""
        try:

            async def rehearsal(tx: Tx) -> None:
                if self.before is not None:
                    await self.before(tx)
                await apply_plan(
                    tx,
                    self.view,
                    candidate,
                    self.vectors,
                    card_before=self.card_before,
                    origin="dreamer:llm",
                    now=utc_now(),
                )

            await self.db.rehearse(rehearsal)
        except ProvenanceRejected as exc:
            result = f"rejected: {exc.message}"
        else:
            self.plan = candidate
            result = f"accepted: {accepted}"

        return result

    def _with(self, **changes: Any) -> DreamPlan:
        plan = self.plan
        return DreamPlan(
            beliefs=[*plan.beliefs, *changes.get("beliefs", [])],
            supersessions=[*plan.supersessions, *changes.get("supersessions", [])],
            prunes=[*plan.prunes, *changes.get("prunes", [])],
            card=changes.get("card", plan.card),
        )

    async def _new(self, tool: str, belief: NewBelief) -> str:
        (vector,) = await embed_async(self.embedder, [belief.content])
        self.vectors[belief.id] = vector
        return await self._propose(tool, self._with(beliefs=[belief]), f"[obs:{belief.id}]")

    async def _update(self, args: UpdateArgs) -> str:
        if args.new_id is not None:
            return await self._propose(
                "update_belief",
                self._with(supersessions=[Supersession(args.old_id, args.new_id)]),
                f"[obs:{args.new_id}] replaces [obs:{args.old_id}]",
            )
        if not args.content or not args.content.strip():
            return "error: give new_id (an existing newer belief) or content with premise_ids"
        belief = NewBelief(
            str(uuid.uuid4()),
            DEDUCTIVE,
            args.content.strip(),
            tuple(args.premise_ids),
            supersedes=args.old_id,
        )
        return await self._new("update_belief", belief)

    async def _deduce(self, args: DeductionArgs) -> str:
        belief = NewBelief(
            str(uuid.uuid4()), DEDUCTIVE, args.content.strip(), tuple(args.premise_ids)
        )
        return await self._new("add_deduction", belief)

    async def _contradict(self, args: ContradictionArgs) -> str:
        belief = NewBelief(
            str(uuid.uuid4()), CONTRADICTION, args.content.strip(), tuple(args.observation_ids)
        )
        return await self._new("add_contradiction", belief)

    async def _induce(self, args: InductionArgs) -> str:
        premises = tuple(dict.fromkeys(args.premise_ids))
        belief = NewBelief(
            str(uuid.uuid4()),
            INDUCTIVE,
            args.content.strip(),
            premises,
            pattern_type=args.pattern_type,
            confidence=confidence_for(len(premises)),
        )
        return await self._new("add_induction", belief)

    async def _prune(self, args: PruneArgs) -> str:
        if any(p.id == args.observation_id for p in self.plan.prunes):
            return f"error: [obs:{args.observation_id}] is marked stale already in this dream"
        return await self._propose(
            "prune_belief",
            self._with(prunes=[Prune(args.observation_id, args.reason.strip())]),
            f"[obs:{args.observation_id}] marked stale",
        )

    async def _card(self, args: CardArgs) -> str:
        own = [line for line in self.card_before if not line.support]
        lines = [CardLine(one_line(a.text), tuple(dict.fromkeys(a.support))) for a in args.lines]
        if len(own) + len(lines) > MAX_ENTRIES:
            return f"error: the card holds at most {MAX_ENTRIES} lines with the app's own"
        return await self._propose(
            "set_peer_card", self._with(card=own + lines), f"a card of {len(lines)} line(s)"
        )
