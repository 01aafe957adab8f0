"""GraphQL for peer files: create, read, list, update, delete and search them.

Reading or writing a peer's files takes a key for that peer (or a workspace or admin key);
searching a peer's files down its sub-peers takes a key for that peer, the top of the tree.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from graph.errors import InvalidInput
from graph.records import FileChunkRecord, FileRecord
from graph.repo import files, members, workspaces
from graph.validation import check_stored_path
from reasoners.peers.files import FileWriter
from reasoners.search.files import search_files
from reasoners.search.hybrid import Hit
from resolvers.graphql.context import Info
from resolvers.graphql.inputs import QueryArg, as_map, page_size
from resolvers.graphql.members import ONE_LEVEL, Depth
from resolvers.graphql.types import Connection, as_json, connection

WORKSPACE = "The workspace the peer belongs to."
PEER = "The peer whose files these are."
PATH = 'The file\'s path among the peer\'s files: relative, "/"-separated, e.g. "notes/todo.md".'


@strawberry.type(description="A markdown or text file kept for a peer, searchable by meaning.")
class File:
    id: strawberry.ID = strawberry.field(description="The file's id.")
    workspace: str = strawberry.field(description="The workspace it belongs to.")
    peer: str = strawberry.field(description="The peer the file belongs to.")
    path: str = strawberry.field(description="Unique among the peer's files.")
    content: str = strawberry.field(description="The whole text, markdown or plain.")
    managed_by: str | None = strawberry.field(
        description='Who writes the file: null for your app\'s files, "system" for peer cards '
        '(written with setPeerCard and by dreams), "dream:<name>" for a dream\'s output. '
        "Managed files can be read and searched, not updated or deleted here."
    )
    metadata: JSON = strawberry.field(description="Your app's JSON object.")
    created_at: datetime = strawberry.field(description="When it was created (UTC).")
    updated_at: datetime = strawberry.field(
        description="When its content or metadata last changed (UTC)."
    )

    @classmethod
    def of(cls, r: FileRecord) -> File:
        return cls(
            id=strawberry.ID(r.id),
            workspace=r.workspace,
            peer=r.peer,
            path=r.path,
            content=r.content,
            managed_by=r.managed_by,
            metadata=as_json(r.metadata),
            created_at=r.created_at,
            updated_at=r.updated_at,
        )


@strawberry.type(description="A piece of a file that matched a file search.")
class FileHit:
    peer: str = strawberry.field(description="The peer whose file the piece is from.")
    path: str = strawberry.field(description="The path of that file.")
    chunk_index: int = strawberry.field(description="The piece's position in its file, from 0.")
    content: str = strawberry.field(
        description="The piece's text, starting with the headings of its section."
    )
    score: float = strawberry.field(description="Fused relevance, higher is better.")
    vector_rank: int | None = strawberry.field(
        description="1-based rank among the nearest pieces by meaning; null if not among them."
    )
    text_rank: int | None = strawberry.field(
        description="1-based rank among the fulltext matches; null if not among them."
    )

    @classmethod
    def of(cls, hit: Hit[FileChunkRecord]) -> FileHit:
        chunk = hit.item
        return cls(
            peer=chunk.peer,
            path=chunk.path,
            chunk_index=chunk.index,
            content=chunk.content,
            score=hit.score,
            vector_rank=hit.vector_rank,
            text_rank=hit.text_rank,
        )


def _writer(info: Info) -> FileWriter:
    s = info.context.services
    return FileWriter(s.db, s.embedder, s.tokens, s.settings)


Workspace = Annotated[str, strawberry.argument(description=WORKSPACE)]
PeerName = Annotated[str, strawberry.argument(description=PEER)]
Path = Annotated[str, strawberry.argument(description=PATH)]


@strawberry.type
class FileQuery:
    @strawberry.field(description="One of a peer's files, by path (NOT_FOUND when absent).")
    async def file(
        self, info: Info, workspace: Workspace, peer: PeerName, path: Path
    ) -> File | None:
        info.context.principal.require_peer(workspace, peer)
        record = await files.get(info.context.services.db, workspace, peer, check_stored_path(path))
        return File.of(record)

    @strawberry.field(description="A page of a peer's files, in path order.")
    async def files(
        self,
        info: Info,
        workspace: Workspace,
        peer: PeerName,
        first: Annotated[
            int | None,
            strawberry.argument(
                description="Page size: 1 to the page-size limit (100 by default); 20 when omitted."
            ),
        ] = None,
        after: Annotated[
            str | None,
            strawberry.argument(description="The endCursor of the page before this one."),
        ] = None,
    ) -> Connection[File]:
        info.context.principal.require_peer(workspace, peer)
        found = await files.list_files(
            info.context.services.db,
            workspace,
            peer,
            after=after,
            limit=page_size(info.context, first),
        )
        return connection(found, File.of)

    @strawberry.field(
        description="The pieces of a peer's files (and, with depth, its sub-peers' files) that "
        "best match a query, by meaning and by words, best first."
    )
    async def search_files(
        self,
        info: Info,
        workspace: Workspace,
        peer: Annotated[str, strawberry.argument(description="The peer whose files are searched.")],
        query: QueryArg,
        depth: Annotated[
            Depth,
            strawberry.argument(
                description="How many levels of sub-peers' files to search too: 0 for the "
                "peer's own files, 1 (default) with its sub-peers', ... or \"ALL\"."
            ),
        ] = ONE_LEVEL,
        limit: Annotated[
            int | None, strawberry.argument(description="Most hits to return (default 20).")
        ] = None,
    ) -> list[FileHit]:
        info.context.principal.require_peer(workspace, peer)
        services = info.context.services
        peers = await members.aggregation_set(
            services.db,
            workspace,
            peer,
            depth=int(depth),
            max_peers=services.settings.max_aggregation_peers,
        )
        hits = await search_files(
            services.db,
            services.embedder,
            workspace,
            peers,
            query,
            page_size(info.context, limit),
        )
        if not hits:  # none, as for a peer with no files; a missing workspace is named
            await workspaces.get(services.db, workspace)
        return [FileHit.of(h) for h in hits]


@strawberry.type
class FileMutation:
    @strawberry.mutation(
        description="Create a file for a peer (CONFLICT when the path is taken). Its content is "
        "split into pieces by headings and paragraphs and indexed for searchFiles. The paths "
        "card.md and cards/... are kept for peer cards."
    )
    async def create_file(
        self,
        info: Info,
        workspace: Workspace,
        peer: PeerName,
        path: Path,
        content: Annotated[str, strawberry.argument(description="Markdown or plain text.")],
        metadata: Annotated[
            JSON | None, strawberry.argument(description="Any JSON object for your app.")
        ] = None,
    ) -> File:
        info.context.principal.require_peer(workspace, peer)
        record = await _writer(info).create(
            workspace, peer, path, content, as_map(metadata, "metadata")
        )
        return File.of(record)

    @strawberry.mutation(
        description="Replace a file's content (re-indexing it) and/or its metadata. Files the "
        "service manages (managedBy set) are refused: write peer cards with setPeerCard."
    )
    async def update_file(
        self,
        info: Info,
        workspace: Workspace,
        peer: PeerName,
        path: Path,
        content: Annotated[
            str | None, strawberry.argument(description="The new content; null keeps it.")
        ] = None,
        metadata: Annotated[
            JSON | None,
            strawberry.argument(description="The new metadata (replaces it); null keeps it."),
        ] = None,
    ) -> File:
        info.context.principal.require_peer(workspace, peer)
        if content is None and metadata is None:
            raise InvalidInput("updateFile: give content, metadata or both")
        record = await _writer(info).update(
            workspace,
            peer,
            check_stored_path(path),
            content=content,
            metadata=as_map(metadata, "metadata"),
        )
        return File.of(record)

    @strawberry.mutation(
        description="Delete a file and its index; false when there was no such file. Files the "
        "service manages (managedBy set) are refused."
    )
    async def delete_file(
        self, info: Info, workspace: Workspace, peer: PeerName, path: Path
    ) -> bool:
        info.context.principal.require_peer(workspace, peer)
        return await files.delete(
            info.context.services.db, workspace, peer, check_stored_path(path)
        )
