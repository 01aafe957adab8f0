"""GraphQL for correcting and forgetting: delete or edit messages, delete sessions, correct or
delete beliefs, and purge.

Keys: these change or erase a workspace's data, so they take a workspace (or admin) key. The
one exception is a peer's own messages: a peer key may delete or edit messages its peer sent.
Session keys cannot delete a session, and peer keys cannot purge, rename, merge or split, not
even their own peer.
"""

from __future__ import annotations

from functools import partial
from typing import Annotated

import strawberry

from graph.errors import NotFound
from graph.repo import messages, observations
from graph.validation import check_id_count
from reasoners.peers import invalidation, merges, purge, splits
from resolvers.auth import KeyScope
from resolvers.by_id import change_by_id
from resolvers.graphql.belief_types import Observation
from resolvers.graphql.context import Info
from resolvers.graphql.types import Message

Workspace = Annotated[str, strawberry.argument(description="The workspace the data is in.")]
STALE = (
    "Beliefs that turned stale because something under them changed (already stale ones "
    "included: they count the change too); the next dream of their representation reconciles "
    "them (keeps, rewords or tombstones each)."
)
DREAMS = "How many dreams were scheduled to reconcile those stale beliefs."


@strawberry.type(description="What a deletion changed.")
class Invalidation:
    ids: list[strawberry.ID] = strawberry.field(
        description="The ids deleted (messages or beliefs); already deleted ones are not listed."
    )
    stale_observations: list[strawberry.ID] = strawberry.field(description=STALE)
    reconcile_dreams: int = strawberry.field(description=DREAMS)

    @classmethod
    def of(cls, outcome: invalidation.Outcome) -> Invalidation:
        return cls(
            ids=[strawberry.ID(i) for i in outcome.ids],
            stale_observations=[strawberry.ID(i) for i in outcome.stale],
            reconcile_dreams=outcome.dreams,
        )


@strawberry.type(description="An edited message and the beliefs the edit made stale.")
class MessageEdit:
    message: Message = strawberry.field(description="The message with its new content.")
    stale_observations: list[strawberry.ID] = strawberry.field(description=STALE)
    reconcile_dreams: int = strawberry.field(description=DREAMS)


@strawberry.type(description="A corrected belief and what the correction made stale.")
class Correction:
    observation: Observation = strawberry.field(
        description="The new version; the old one stays, superseded (it SUPERSEDES the old)."
    )
    replaced: strawberry.ID = strawberry.field(description="The id of the superseded version.")
    stale_observations: list[strawberry.ID] = strawberry.field(description=STALE)
    reconcile_dreams: int = strawberry.field(description=DREAMS)


@strawberry.type(description="How many beliefs of each level a purge erased.")
class PurgedObservations:
    explicit: int = strawberry.field(description="Facts taken from messages.")
    deductive: int = strawberry.field(description="Deductions built on those.")
    inductive: int = strawberry.field(description="Generalizations built on those.")
    contradiction: int = strawberry.field(description="Conflicts flagged between those.")


@strawberry.type(
    description="What a purge erased, by kind: each number is how many nodes of that kind "
    "are gone from the graph."
)
class PurgeReport:
    messages: int = strawberry.field(description="Messages, tombstoned ones included.")
    observations: PurgedObservations = strawberry.field(
        description="Beliefs derived from the purged data, directly or through other beliefs."
    )
    files: int = strawberry.field(description="Files of the purged peer (peer cards apart).")
    file_chunks: int = strawberry.field(description="Searchable pieces of the erased files.")
    cards: int = strawberry.field(
        description="Peer cards of or by the purged peer, and cards with a line resting on an "
        "erased belief. When dreams are on, the purge's end queues a dream to write each again "
        "from what is left (not the purged peer's own)."
    )
    summaries: int = strawberry.field(description="Session summaries that covered purged text.")
    jobs: int = strawberry.field(description="Queued or finished jobs naming only purged data.")
    dream_runs: int = strawberry.field(description="Dream records naming erased beliefs.")
    peers: int = strawberry.field(description="1 when a peer itself was erased, else 0.")
    messages_derived_again: int = strawberry.field(
        description="Messages left in place that an erased belief was also taken from: the "
        "purge's end queues each to be derived again (unless its session has reasoning off), "
        "so what it states comes back from it alone. Beliefs of a purged peer's own views are "
        "not rebuilt."
    )

    @classmethod
    def of(cls, r: purge.PurgeReport) -> PurgeReport:
        return cls(
            messages=r.messages,
            observations=PurgedObservations(**{k: r.observations.get(k, 0) for k in purge.LEVELS}),
            files=r.files,
            file_chunks=r.file_chunks,
            cards=r.cards,
            summaries=r.summaries,
            jobs=r.jobs,
            dream_runs=r.dream_runs,
            peers=r.peers,
            messages_derived_again=len(r.rederived),
        )


MessageIds = Annotated[
    list[strawberry.ID], strawberry.argument(description="The ids of the messages.")
]


async def _own_messages(info: Info, workspace: str, ids: list[str]) -> None:
    """A workspace key may act on any message, a peer key only on messages its peer sent: to
    it, another peer's message is not found, in the words of an id that does not exist (told
    FORBIDDEN, naming the sender, it learnt which ids exist and whose they are), unless its
    sender is below the key's peer, whose messages the key reads."""
    principal = info.context.principal
    principal.in_workspace(workspace)
    if principal.scope is KeyScope.SESSION:
        principal.require_workspace(workspace)  # refused whatever the ids: it tells nothing
    db = info.context.services.db
    found = {m.id: m for m in await messages.by_ids(db, workspace, ids)}
    for ident in sorted(set(ids)):
        missing = NotFound(f"no live message with id {ident!r} in workspace {workspace!r}")
        message = found.get(ident)
        if message is None:
            raise missing
        await change_by_id(
            principal,
            db,
            workspace,
            check=partial(principal.require_peer, workspace, message.peer),
            missing=missing,
            about=message.peer,
        )


@strawberry.type(description="A peer rename, merge or split, queued as resumable jobs.")
class Restructuring:
    operation: strawberry.ID = strawberry.field(
        description="The operation's id, in the payload of each of its jobs (see `jobs`)."
    )
    target: str = strawberry.field(
        description="The peer that receives the data (for a split, the peer split up)."
    )


@strawberry.input(description="One sub-peer of a split and the sessions it takes over.")
class SplitPart:
    child: str = strawberry.field(description="The new sub-peer's name (must not exist).")
    sessions: list[str] = strawberry.field(
        description="The sessions whose messages and beliefs move to the sub-peer."
    )


@strawberry.type
class RestructureMutation:
    @strawberry.mutation(
        description="Rename a peer: a new peer with this name takes over its messages, beliefs "
        "(their representation keys follow), files and cards, sessions, sub-peer links and "
        "jobs, then the old peer is deleted. Runs as resumable background jobs; the new peer "
        "exists at once. CONFLICT if the name is taken. Workspace keys only."
    )
    async def rename_peer(
        self,
        info: Info,
        workspace: Workspace,
        peer: Annotated[str, strawberry.argument(description="The peer's current name.")],
        new_name: Annotated[str, strawberry.argument(description="The peer's new name.")],
    ) -> Restructuring:
        info.context.principal.require_workspace(workspace)
        s = info.context.services
        op = merges.Operation([peer], new_name, merge=False)
        return Restructuring(
            operation=strawberry.ID(await merges.start(s.db, s.settings, workspace, op)),
            target=new_name,
        )

    @strawberry.mutation(
        description="Split a peer into sub-peers by session: each new sub-peer (MEMBER_OF the "
        "peer) takes over the peer's place in its sessions, with their messages and the beliefs "
        "taken in them; beliefs derived from moved ones turn stale and dreams reconcile them. "
        "Aggregated reads of the peer still reach the sub-peers. Runs as resumable background "
        "jobs; the sub-peers exist at once. Workspace keys only."
    )
    async def split_peer(
        self,
        info: Info,
        workspace: Workspace,
        peer: Annotated[str, strawberry.argument(description="The peer to split.")],
        parts: Annotated[
            list[SplitPart],
            strawberry.argument(description="The sub-peers to create, each with its sessions."),
        ],
    ) -> Restructuring:
        info.context.principal.require_workspace(workspace)
        s = info.context.services
        split = splits.Split(peer, [splits.Part(p.child, list(p.sessions)) for p in parts])
        return Restructuring(
            operation=strawberry.ID(await splits.start(s.db, s.settings, workspace, split)),
            target=peer,
        )

    @strawberry.mutation(
        description="Merge peers into one: the target takes over each source's messages, "
        "beliefs, files and cards, sessions, sub-peer links and jobs, then the sources are "
        "deleted. Beliefs that say the same thing in one representation become one; moved "
        "derived beliefs turn stale and dreams reconcile them. Runs as resumable background "
        "jobs. Workspace keys only."
    )
    async def merge_peers(
        self,
        info: Info,
        workspace: Workspace,
        sources: Annotated[
            list[str], strawberry.argument(description="The peers merged away, in order.")
        ],
        target: Annotated[str, strawberry.argument(description="The peer that remains.")],
    ) -> Restructuring:
        info.context.principal.require_workspace(workspace)
        s = info.context.services
        op = merges.Operation(list(sources), target, merge=True)
        return Restructuring(
            operation=strawberry.ID(await merges.start(s.db, s.settings, workspace, op)),
            target=target,
        )

    @strawberry.mutation(
        description="Delete messages: they leave every read (lists, search, context, chat). "
        "Beliefs taken only from them turn stale, and so does everything derived from those; "
        "dreams then reconcile them. A peer key may delete only its own peer's messages "
        "(another's is NOT_FOUND, as an id that does not exist; a sub-peer's, which it reads, "
        "FORBIDDEN); a session key none."
    )
    async def delete_messages(
        self, info: Info, workspace: Workspace, ids: MessageIds
    ) -> Invalidation:
        keys = [str(i) for i in ids]
        check_id_count(keys, "ids")  # before they are read
        await _own_messages(info, workspace, keys)
        s = info.context.services
        return Invalidation.of(
            await invalidation.delete_messages(s.db, s.embedder, s.settings, workspace, keys)
        )

    @strawberry.mutation(
        description="Replace a message's content. Beliefs taken from it, and everything derived "
        "from those, turn stale; the message is read again for new beliefs, and dreams "
        "reconcile the old ones against the new text. A peer key may edit only its own "
        "peer's messages (another's is NOT_FOUND, as an id that does not exist; a sub-peer's, "
        "which it reads, FORBIDDEN); a session key none."
    )
    async def edit_message(
        self,
        info: Info,
        workspace: Workspace,
        id: Annotated[strawberry.ID, strawberry.argument(description="The message to edit.")],
        content: Annotated[str, strawberry.argument(description="The message's new text.")],
    ) -> MessageEdit:
        await _own_messages(info, workspace, [str(id)])
        s = info.context.services
        message, outcome = await invalidation.edit_message(
            s.db, s.embedder, s.tokens, s.settings, workspace, str(id), content
        )
        return MessageEdit(
            message=Message.of(message),
            stale_observations=[strawberry.ID(i) for i in outcome.stale],
            reconcile_dreams=outcome.dreams,
        )

    @strawberry.mutation(
        description="Delete every message of a session, with the same effects as "
        "deleteMessages; the session itself and its members stay. Workspace keys only."
    )
    async def delete_session(
        self,
        info: Info,
        workspace: Workspace,
        session: Annotated[str, strawberry.argument(description="The session's name.")],
    ) -> Invalidation:
        info.context.principal.require_workspace(workspace)
        s = info.context.services
        return Invalidation.of(
            await invalidation.delete_session(s.db, s.embedder, s.settings, workspace, session)
        )

    @strawberry.mutation(
        description="Correct a belief: a new version with this content supersedes it, keeping "
        "its sources and premises; beliefs derived from the old version turn stale and dreams "
        "reconcile them. Workspace keys only."
    )
    async def correct_observation(
        self,
        info: Info,
        workspace: Workspace,
        id: Annotated[strawberry.ID, strawberry.argument(description="The belief to correct.")],
        content: Annotated[str, strawberry.argument(description="What the belief should say.")],
    ) -> Correction:
        info.context.principal.require_workspace(workspace)
        s = info.context.services
        outcome = await invalidation.correct_observation(
            s.db, s.embedder, s.settings, workspace, str(id), content
        )
        detail = await observations.get_detail(s.db, workspace, outcome.ids[0])
        return Correction(
            observation=Observation.of(detail.observation),
            replaced=id,
            stale_observations=[strawberry.ID(i) for i in outcome.stale],
            reconcile_dreams=outcome.dreams,
        )

    @strawberry.mutation(
        description="Delete a belief: it leaves every read and is not derived again from the "
        "messages it came from; beliefs derived from it turn stale and dreams reconcile them. "
        "Workspace keys only."
    )
    async def delete_observation(
        self,
        info: Info,
        workspace: Workspace,
        id: Annotated[strawberry.ID, strawberry.argument(description="The belief to delete.")],
    ) -> Invalidation:
        info.context.principal.require_workspace(workspace)
        s = info.context.services
        return Invalidation.of(
            await invalidation.delete_observation(s.db, s.settings, workspace, str(id))
        )

    @strawberry.mutation(
        description="Erase messages for good, with every belief derived from them, the "
        "summaries and cards that drew on them, and jobs that name only them; returns what "
        "went. Cannot be undone; one interrupted half-way is finished by a worker. CONFLICT while "
        "another purge of any of these messages runs. Workspace keys only."
    )
    async def purge_messages(
        self, info: Info, workspace: Workspace, ids: MessageIds
    ) -> PurgeReport:
        info.context.principal.require_workspace(workspace)
        s = info.context.services
        message_ids = [str(i) for i in ids]
        return PurgeReport.of(await purge.purge_messages(s.db, s.settings, workspace, message_ids))

    @strawberry.mutation(
        description="Erase a peer for good: its messages, every belief it holds or that is "
        "held about it and everything derived from those, its files and cards, the summaries "
        "that covered its messages, its jobs and dream records, and the peer itself; returns "
        "what went. Cannot be undone; one interrupted half-way is finished by a worker (or by "
        "purging again). CONFLICT while another purge of the peer runs, or while it has "
        "sub-peers (purge or unlink them first). Workspace keys only."
    )
    async def purge_peer(
        self,
        info: Info,
        workspace: Workspace,
        peer: Annotated[str, strawberry.argument(description="The peer to erase.")],
    ) -> PurgeReport:
        info.context.principal.require_workspace(workspace)
        s = info.context.services
        return PurgeReport.of(await purge.purge_peer(s.db, s.settings, workspace, peer))
