"""Sub-peers: MEMBER_OF edges between the peers of one workspace (many-to-many, no cycles).

alice-dm and alice-groupchat may be sub-peers of alice; a team may have its members as
sub-peers; a peer may have several parents. The cycle and chain-length checks run in the
transaction that writes the edge, under a per-workspace lock, so concurrent adds cannot build
a cycle between them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graph.db import Database, Row, Tx
from graph.errors import InvalidInput, LimitExceeded, NotFound
from graph.records import PeerRecord
from graph.repo import workspaces
from graph.settings import MAX_PEER_DEPTH_CAP
from graph.validation import now

ALL = MAX_PEER_DEPTH_CAP  # a depth that reaches every peer of a tree


@dataclass(frozen=True)
class Related:
    """A peer above or below another, at its shortest distance in MEMBER_OF edges."""

    peer: PeerRecord
    distance: int


async def add(db: Database, workspace: str, parent: str, child: str, *, max_depth: int) -> bool:
    """Make `child` a sub-peer of `parent`; False when it already was. Raises InvalidInput
    (a cycle, a chain over `max_depth`) or NotFound, having written nothing."""

    async def work(tx: Tx) -> bool:
        return await add_in(tx, workspace, parent, child, max_depth=max_depth)

    return await db.write_tx(work)


async def add_in(tx: Tx, workspace: str, parent: str, child: str, *, max_depth: int) -> bool:
    """`add` inside a caller's transaction, for writes that must commit with it."""
    # MEMBER_OF writes of one workspace run one at a time: of two opposite adds racing, the
    # later sees the earlier's edge and is refused as a cycle.
    if await tx.one("lock_workspace", workspace=workspace) is None:
        raise NotFound(f"workspace {workspace!r} does not exist")
    row = await tx.one("get_sub_peer_link", workspace=workspace, parent=parent, child=child)
    assert row is not None
    if row["missing"] is not None:
        missing = str(row["missing"])
        raise NotFound(
            f"peer {missing!r} does not exist in workspace {workspace!r}", peers=[missing]
        )
    if row["existed"]:
        return False
    above, parent_above = await _longest_chain(tx, workspace, parent, up=True)
    below, _ = await _longest_chain(tx, workspace, child, up=False)
    problem = link_problem(parent, child, parent_above, above, below, max_depth)
    if problem is not None:
        raise InvalidInput(problem)
    await tx.rows(
        "create_sub_peer_link", workspace=workspace, parent=parent, child=child, now=now()
    )
    return True


def link_problem(
    parent: str, child: str, parent_above: set[str], above: int, below: int, max_depth: int
) -> str | None:
    """Why `child` may not become a sub-peer of `parent`, or None (pure). `parent_above`: the
    peers above the parent; `above`, `below`: the longest chains of edges above the parent and
    below the child."""
    if parent == child:
        return "a peer cannot be its own sub-peer"
    if child in parent_above:
        return f"{child} is already above {parent}: adding it below would make a cycle"
    if above + 1 + below > max_depth:
        return (
            f"the chain of sub-peers through {parent} and {child} would be "
            f"{above + 1 + below} long; the limit is {max_depth} (BELIEFGRAPH_MAX_PEER_DEPTH)"
        )
    return None


async def _longest_chain(tx: Tx, workspace: str, start: str, *, up: bool) -> tuple[int, set[str]]:
    """The longest chain of MEMBER_OF edges from `start` upward (or downward), and every peer it
    reaches, walked layer by layer (list_member_layer.cypher says why). The graph has no cycle,
    so a layer is empty within MAX_PEER_DEPTH_CAP + 1 steps; one that is not would show a
    cycle, and counts as a chain over every limit."""
    frontier, reached, length = [start], set[str](), 0
    while frontier and length <= MAX_PEER_DEPTH_CAP:
        rows = await tx.rows("list_member_layer", workspace=workspace, names=frontier, up=up)
        frontier = sorted({str(r["name"]) for r in rows})
        if frontier:
            length += 1
            reached.update(frontier)
    return length, reached


async def children_in(tx: Tx, workspace: str, peer: str) -> list[str]:
    """The names of `peer`'s sub-peers (one edge below it), in order."""
    rows = await tx.rows("list_member_layer", workspace=workspace, names=[peer], up=False)
    return sorted(str(r["name"]) for r in rows)


async def move_links_in(
    tx: Tx, workspace: str, source: str, target: str, *, max_depth: int
) -> list[str]:
    """The source's sub-peer links become the target's, inside a merge's transaction. Each is
    checked as `add` checks one, against the links moved before it: a link that would close a
    cycle or make a chain over `max_depth` is dropped. Returns why each dropped one was."""
    await tx.rows("lock_workspace", workspace=workspace)  # as `add_in` takes it
    children = await tx.rows("list_member_layer", workspace=workspace, names=[source], up=False)
    parents = await tx.rows("list_member_layer", workspace=workspace, names=[source], up=True)
    moves = [(target, str(r["name"])) for r in children]
    moves += [(str(r["name"]), target) for r in parents]
    for parent, child in moves:
        old_parent, old_child = (source, child) if parent == target else (parent, source)
        await tx.rows("remove_sub_peer", workspace=workspace, parent=old_parent, child=old_child)
    dropped: list[str] = []
    for parent, child in moves:
        try:
            await add_in(tx, workspace, parent, child, max_depth=max_depth)
        except InvalidInput as refused:
            dropped.append(refused.message)
    return dropped


async def remove(db: Database, workspace: str, parent: str, child: str) -> bool:
    """`child` is no longer a sub-peer of `parent`; False when it was not one."""
    row = await db.write_one("remove_sub_peer", workspace=workspace, parent=parent, child=child)
    return bool(row and row["removed"])


@dataclass(frozen=True)
class RelatedPage:
    items: list[Related]
    total: int  # the whole list's length


def _related_page(row: Row | None, workspace: str, peer: str, after: str | None) -> RelatedPage:
    if row is None or not row["found"]:
        raise NotFound(f"peer {peer!r} does not exist in workspace {workspace!r}")
    if not row["after_found"]:
        raise InvalidInput(
            f"after: {after!r} is not in this list (it may have left it since): pass a peer the "
            "last page listed, or start again from the first page"
        )
    items = [Related(PeerRecord.from_row(r["peer"]), int(r["distance"])) for r in row["page"]]
    return RelatedPage(items, int(row["total"]))


@dataclass(frozen=True)
class RelatedQuery:
    """One page of the peers below or above `peer`, nearest first then by name: `limit` of
    them after the one named `after` (None: from the first), less the first `skip`. With
    `after_distance`, after the place (after_distance, after) has in that order, whether or not
    that peer is still listed: a cursor that survives the peer leaving the list. With
    `from_end` (and no `after`), the `limit` items before the last `skip`, in list order."""

    workspace: str
    peer: str
    depth: int
    limit: int
    after: str | None = None
    skip: int = 0
    after_distance: int | None = None
    from_end: bool = False

    def params(self) -> dict[str, Any]:
        return {
            "workspace": self.workspace,
            "peer": self.peer,
            "depth": self.depth,
            "limit": self.limit,
            "after": self.after,
            "after_distance": self.after_distance,
            "skip": self.skip,
            "from_end": self.from_end,
        }

    def page(self, row: Row | None) -> RelatedPage:
        return _related_page(row, self.workspace, self.peer, self.after)


async def below(
    db: Database,
    workspace: str,
    peer: str,
    *,
    depth: int,
    limit: int,
    after: str | None = None,
    skip: int = 0,
    after_distance: int | None = None,
    from_end: bool = False,
) -> RelatedPage:
    """The peers below `peer` (see RelatedQuery); NotFound for no such peer."""
    q = RelatedQuery(workspace, peer, depth, limit, after, skip, after_distance, from_end)
    return await _page(db, q, await db.read_one("list_sub_peers", **q.params()))


async def above(
    db: Database,
    workspace: str,
    peer: str,
    *,
    depth: int,
    limit: int,
    after: str | None = None,
    skip: int = 0,
    after_distance: int | None = None,
    from_end: bool = False,
) -> RelatedPage:
    """The peers above `peer` (see RelatedQuery); NotFound for no such peer."""
    q = RelatedQuery(workspace, peer, depth, limit, after, skip, after_distance, from_end)
    return await _page(db, q, await db.read_one("list_parent_peers", **q.params()))


async def _page(db: Database, q: RelatedQuery, row: Row | None) -> RelatedPage:
    if row is None or not row["found"]:
        await workspaces.get(db, q.workspace)  # a missing workspace is named as such
    return q.page(row)


async def is_below(db: Database, workspace: str, peer: str, ancestor: str) -> bool:
    """Whether `peer` is below `ancestor` (a sub-peer of it, or of a peer below it)."""
    row = await db.read_one("peer_is_below", workspace=workspace, peer=peer, ancestor=ancestor)
    return row is not None


async def aggregation_set(
    db: Database, workspace: str, peer: str, *, depth: int, max_peers: int
) -> list[str]:
    """`peer` first, then the peers below it down to `depth` levels (nearest first, except at
    depth ALL): the peers a read of `peer` covers. Just `peer` when it does not exist (the
    read then finds nothing). Raises LimitExceeded when the set would hold more than
    `max_peers` peers."""
    if depth == 0:
        return [peer]
    if depth >= ALL:
        row = await db.read_one("list_tree_peers", workspace=workspace, peer=peer, limit=max_peers)
    else:
        row = await db.read_one(
            "list_aggregation_peers", workspace=workspace, peer=peer, depth=depth, limit=max_peers
        )
    if row is None:
        return [peer]
    names = [str(n) for n in row["peers"]]
    if len(names) > max_peers:
        raise LimitExceeded(
            f"a read of {peer!r} at depth {depth} covers more than {max_peers} peers "
            "(BELIEFGRAPH_MAX_AGGREGATION_PEERS); ask for a smaller depth",
            limit="aggregation_peers",
        )
    return names
