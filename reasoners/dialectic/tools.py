"""The dialectic's tools: read-only reads of one (observer, observed) view for the tool loop.

A `Toolbox` is bound to one `View` when it is made, and no tool takes a workspace or observer
argument, so whatever the model asks for it reads only what the observer could know about the
observed and the sub-peers the view aggregates (theory-of-mind scoping, DESIGN invariant 2):

- observations of the view (and, with session filters, only those they let through);
- messages the observed peer sent in sessions the observer took part in, or all of the
  observed's messages when a peer asks about itself;
- the neighbours of an in-view observation's source message, in that message's session.

An observation id from another view reads as "not in this view", exactly like an id that does
not exist, so the tools do not even reveal that another view holds it.

Every tool returns plain data with a compact `render()` for the model, naming each node as
`[obs:<id>]` or `[msg:<id>]`. Everything a tool showed goes into the conversation's `Evidence`,
the ledger that citations are checked against. `dispatch` validates the model's arguments and
turns bad ones (and ids out of view) into an error text for the model, never an exception.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from pydantic import ValidationError

from graph.db import Database
from graph.errors import BeliefgraphError, InvalidInput, NotFound
from graph.records import ObservationRecord
from graph.repo import members, message_views, observation_search, peer_cards
from graph.repo import observations as observation_repo
from graph.repo.card_view import lines_in_view
from reasoners.dialectic import view_files
from reasoners.dialectic.evidence import (
    MAX_PROVENANCE_NODES,
    SPAN_LEAD,
    SPAN_MATCH,
    Evidence,
    ObservationItem,
    View,
    lead,
    matched_span,
    when,
)
from reasoners.dialectic.tool_output import ToolResult, clip
from reasoners.dialectic.tool_results import (
    ContextWindow,
    FileResults,
    MessageContext,
    MessageItem,
    MessageResults,
    ObservationResults,
    PeerCardResult,
    PeerList,
    Provenance,
    ProvenanceNode,
)
from reasoners.dialectic.tool_specs import (
    ARGUMENTS,
    TOOL_SPECS,
    GrepMessagesArgs,
    MessageContextArgs,
    MessagesByDateArgs,
    ParentPeersArgs,
    PeerCardArgs,
    ProvenanceArgs,
    SearchFilesArgs,
    SearchMessagesArgs,
    SearchObservationsArgs,
    SubPeersArgs,
    ToolArgs,
    argument_error,
)
from reasoners.embeddings.model import Embedder
from reasoners.llm.interface import ToolCall, ToolSpec
from reasoners.search.in_view import ranked_in_view
from reasoners.search.observations import search_observations
from reasoners.text.terms import best_sentence

PREMISE_DEPTH = 2  # levels of premises shown under a derived belief
MAX_PREMISES_SHOWN = 6  # premises shown per derived belief
MAX_PEERS_LISTED = 100  # sub-peers or parents one tool call lists


# --- the toolbox ------------------------------------------------------------------------------


class Toolbox:
    """The tools over one view, recording what they return in `evidence`."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        view: View,
        evidence: Evidence | None = None,
        *,
        cards: bool = True,
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.view = view
        self.evidence = evidence if evidence is not None else Evidence()
        # False (`peer_card.use: false`): the card is neither a tool nor a file passage here.
        self.cards = cards

    @property
    def specs(self) -> list[ToolSpec]:
        return [spec for spec in TOOL_SPECS if self.cards or spec.name != "peer_card"]

    # --- reads -------------------------------------------------------------------------------

    async def items(self, ids: list[str]) -> dict[str, ObservationItem]:
        """In-view observations among `ids`, with premises and sources (others are absent)."""
        if not ids:
            return {}
        found = await observation_repo.in_view(self.db, self.view.workspace, self.view.query(), ids)
        return {
            f.observation.id: ObservationItem(
                f.observation,
                f.premise_ids,
                f.sources,
                replaces=tuple(f.replaces),
                replaced_by=tuple(f.replaced_by),
                replaced_on=f.replaced_on,
                source_count=f.source_count,
                about=(
                    f.observation.observed if f.observation.observed != self.view.observed else None
                ),
            )
            for f in found
        }

    async def item(self, observation_id: str) -> ObservationItem:
        found = await self.items([observation_id])
        if observation_id not in found:
            raise NotFound(
                f"observation {observation_id} is not in {self.view.observer}'s view of "
                f"{self.view.observed}; use an [obs:<id>] shown by a tool"
            )
        return found[observation_id]

    async def with_sources(
        self, ranked: list[tuple[ObservationRecord, float]]
    ) -> list[ObservationItem]:
        found = await self.items([o.id for o, _ in ranked])
        # The belief as read by id, not as the search returned it: that read shows it as it
        # stood at the view's asOf, in a session its filters keep.
        result = [
            await self.grounded(replace(found[o.id], score=score))
            for o, score in ranked
            if o.id in found
        ]
        for item in result:
            self.evidence.add_item(item)
        return result

    async def grounded(self, item: ObservationItem, depth: int = PREMISE_DEPTH) -> ObservationItem:
        """A derived belief with its premises attached, down to explicit facts (bounded), so
        the model sees what it rests on and a citation of it reaches the message spans."""
        if not item.premise_ids or depth == 0:
            return item
        found = await self.items(item.premise_ids[:MAX_PREMISES_SHOWN])
        premises = [
            await self.grounded(found[p], depth - 1)
            for p in item.premise_ids[:MAX_PREMISES_SHOWN]
            if p in found
        ]
        return replace(item, premises=tuple(premises))

    async def prefetch(self, embedding: list[float], limit: int) -> list[ObservationItem]:
        """The view's observations nearest to a question's embedding (vector similarity)."""
        ranked = await observation_search.vector_candidates(
            self.db, self.view.workspace, embedding, self.view.query(), limit
        )
        return await self.with_sources(ranked)

    # --- tools -----------------------------------------------------------------------------------

    async def search_observations(
        self, query: str, limit: int = 8, levels: list[str] | None = None
    ) -> ObservationResults:
        hits = await search_observations(
            self.db,
            self.embedder,
            self.view.workspace,
            query,
            self.view.query(levels),
            limit,
        )
        items = await self.with_sources([(h.item, h.score) for h in hits])
        return ObservationResults(query, items)

    async def search_messages(
        self, query: str, limit: int = 8, *, embedding: list[float] | None = None
    ) -> MessageResults:
        """The view's messages ranked as `searchMessages` ranks them (hybrid, fused by score),
        best first (pass `embedding` when the query's is at hand)."""
        shown = await ranked_in_view(
            self.db,
            self.embedder,
            self.view.workspace,
            self.view.query(),
            query,
            limit,
            session=self.view.session,
            embedding=embedding,
        )
        items = []
        for message in shown:
            # The sentence sharing the most words with the query, shown with the text around
            # it: in a long message it may lie past what the lead shows.
            sentence = best_sentence(message.content, query)
            span = lead(sentence if sentence is not None else message.content)
            items.append(MessageItem(message, span))
            self.evidence.add_message(message, span, SPAN_LEAD if sentence is None else SPAN_MATCH)
        return MessageResults(f"matching {query!r} (best first)", items, limit, excerpts=True)

    async def grep_messages(self, text: str, limit: int = 10) -> MessageResults:
        found = await message_views.grep_in_view(
            self.db, self.view.workspace, self.view.query(), text, limit
        )
        items = []
        for message in found:
            item = MessageItem(message, matched_span(message.content, text))
            self.evidence.add_message(message, item.span, SPAN_MATCH)
            items.append(item)
        return MessageResults(f"containing {text!r} (newest first)", items, limit, excerpts=True)

    async def messages_by_date(
        self, since: datetime | None = None, until: datetime | None = None, limit: int = 20
    ) -> MessageResults:
        found = await message_views.in_view_by_date(
            self.db, self.view.workspace, self.view.query(), since, until, limit
        )
        items = []
        for message in found:
            items.append(MessageItem(message, lead(message.content)))
            self.evidence.add_message(message, lead(message.content), SPAN_LEAD)
        span = f"from {when(since) if since else 'the start'} to {when(until) if until else 'now'}"
        return MessageResults(span, items, limit)

    async def message_context(
        self, observation_id: str, before: int = 3, after: int = 3
    ) -> MessageContext:
        item = await self.item(observation_id)
        self.evidence.add_item(item)
        windows = []
        for source in item.sources:
            m = source.message
            # The belief's own observer: in an aggregated view it may be a sub-peer (a peer's
            # view of itself covers each sub-peer's view of itself).
            around = await message_views.around_in_view(
                self.db,
                item.observation.observer,
                self.view.workspace,
                m.session,
                m.seq - before,
                m.seq + after,
            )
            for neighbour in around:
                self.evidence.add_message(neighbour, lead(neighbour.content), SPAN_LEAD)
            windows.append(ContextWindow(source, around))
        return MessageContext(item, windows)

    async def provenance(self, observation_id: str, depth: int = 4) -> Provenance:
        root = await self.item(observation_id)
        nodes = [ProvenanceNode(root, 0)]
        seen = {observation_id}
        frontier = root.premise_ids
        truncated = False
        for level in range(1, depth + 1):
            frontier = [p for p in dict.fromkeys(frontier) if p not in seen]
            if not frontier:
                break
            room = MAX_PROVENANCE_NODES - len(nodes)
            if len(frontier) > room:
                frontier, truncated = frontier[:room], True
            found = await self.items(frontier)
            layer = [found[p] for p in frontier if p in found]
            nodes += [ProvenanceNode(i, level) for i in layer]
            seen.update(frontier)
            frontier = [p for i in layer for p in i.premise_ids]
            if truncated:
                break
        for node in nodes:
            self.evidence.add_item(node.item)
        return Provenance(observation_id, nodes, truncated)

    async def search_files(self, query: str, limit: int = 5) -> FileResults:
        return await view_files.search(self.db, self.embedder, self.view, self.cards, query, limit)

    def _covered(self, peer: str | None) -> str:
        """`peer` if this view covers it (the observed peer or an aggregated sub-peer)."""
        name = peer or self.view.observed
        if name != self.view.observed and name not in self.view.aggregated:
            raise NotFound(
                f"{name} is not {self.view.observed} or one of the sub-peers this memory covers"
            )
        return name

    async def sub_peers(self, peer: str | None, depth: int) -> PeerList:
        """A peer's sub-peers; outside a peer's view of itself, only those this view covers, as
        for parents (a peer key asking about another peer learnt its whole membership tree,
        which `subPeers` refuses it)."""
        name = self._covered(peer)
        found = (
            await members.below(
                self.db, self.view.workspace, name, depth=depth, limit=MAX_PEERS_LISTED
            )
        ).items
        if self.view.observer != self.view.observed:
            found = [r for r in found if r.peer.name in self.view.aggregated]
        return PeerList("sub-peers", name, [(r.peer.name, r.distance) for r in found])

    async def parent_peers(self, peer: str | None, depth: int) -> PeerList:
        """A peer's parents; outside a peer's view of itself, only those this view covers
        (another peer's memberships are not the observer's to see)."""
        name = self._covered(peer)
        found = (
            await members.above(
                self.db, self.view.workspace, name, depth=depth, limit=MAX_PEERS_LISTED
            )
        ).items
        if self.view.observer != self.view.observed:
            covered = {self.view.observed, *self.view.aggregated}
            found = [r for r in found if r.peer.name in covered]
        return PeerList("parent peers", name, [(r.peer.name, r.distance) for r in found])

    async def peer_card(self) -> PeerCardResult:
        s = self.view
        card = await peer_cards.get(self.db, s.workspace, s.observer, s.observed)
        lines = await lines_in_view(self.db, s.workspace, card, s.query())
        return PeerCardResult(s.observer, s.observed, lines)

    # --- dispatch --------------------------------------------------------------------------------

    async def dispatch(self, call: ToolCall) -> str:
        """The text answering one tool call; problems become an error text for the model."""
        names = [spec.name for spec in self.specs]
        model = ARGUMENTS.get(call.name) if call.name in names else None
        if model is None:
            return f"Error: there is no tool {call.name!r}; the tools are {', '.join(names)}."
        if call.arguments_error is not None:
            return f"Error: {call.name}: {call.arguments_error}. Send a JSON object."
        try:
            args = model.model_validate(call.arguments)
        except ValidationError as exc:
            return argument_error(call.name, exc)
        before, shown = self.evidence.snapshot(), ""
        try:
            shown = clip((await self._run(args)).render())
            return shown
        except (NotFound, InvalidInput) as exc:
            return f"Error: {exc.message}"
        finally:  # only what the model was shown may be cited
            self.evidence.forget_unshown(before, shown)

    async def _run(self, args: ToolArgs) -> ToolResult:
        match args:
            case SearchObservationsArgs():
                return await self.search_observations(
                    args.query,
                    args.limit,
                    [level.value for level in args.levels] if args.levels else None,
                )
            case SearchMessagesArgs():
                return await self.search_messages(args.query, args.limit)
            case GrepMessagesArgs():
                return await self.grep_messages(args.text, args.limit)
            case MessagesByDateArgs():
                return await self.messages_by_date(args.since, args.until, args.limit)
            case MessageContextArgs():
                return await self.message_context(args.observation_id, args.before, args.after)
            case ProvenanceArgs():
                return await self.provenance(args.observation_id, args.depth)
            case PeerCardArgs():
                return await self.peer_card()
            case SearchFilesArgs():
                return await self.search_files(args.query, args.limit)
            case SubPeersArgs():
                return await self.sub_peers(args.peer, args.depth)
            case ParentPeersArgs():
                return await self.parent_peers(args.peer, args.depth)
        raise BeliefgraphError(f"no runner for {type(args).__name__}")
