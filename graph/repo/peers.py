"""Peers: any entity memory is kept about (people, agents, groups, projects)."""

from __future__ import annotations

from typing import Any

from graph import models
from graph.configuration import observes_itself
from graph.db import Database, Row, Tx
from graph.errors import Forbidden, InvalidInput, NotFound
from graph.paging import decode_name, name_cursor, page
from graph.props import NO_META, Meta, meta_kv, node_props
from graph.records import Page, PeerRecord, load_json
from graph.repo import workspaces
from graph.validation import check_name, now

MAX_EXTRACTION_CONTEXT = 4000


PEERS = "peers"  # the name in its cursors


async def get_or_create(
    db: Database,
    workspace: str,
    name: str,
    meta: Meta = NO_META,
) -> PeerRecord:
    return (await ensure(db, workspace, name, meta))[0]


async def ensure(
    db: Database, workspace: str, name: str, meta: Meta = NO_META
) -> tuple[PeerRecord, bool]:
    """The peer, and whether this call created it (of concurrent creators, one did)."""
    props = _new_peer(workspace, name, meta)
    row = await db.write_tx(lambda tx: _merge(tx, props))
    if row is None:
        await workspaces.get(db, workspace)  # raises NotFound naming the workspace
        raise AssertionError("peer MERGE returned nothing")
    return PeerRecord.from_row(row["peer"]), bool(row["created"])


async def ensure_in(tx: Tx, workspace: str, names: list[str]) -> None:
    """The peers `names`, the missing ones created in `tx`, so that they are not left behind
    when what they were made for is refused later in it (NOT_FOUND if the workspace is not)."""
    for name in names:
        if await _merge(tx, _new_peer(workspace, name, NO_META)) is None:
            raise NotFound(f"workspace {workspace!r} does not exist")


def _new_peer(workspace: str, name: str, meta: Meta) -> dict[str, Any]:
    return node_props(
        models.Peer,
        {
            "workspace": workspace,
            "name": check_name(name, "peer"),
            **meta.created(),
            "created_at": now(),
        },
    )


async def _merge(tx: Tx, props: dict[str, Any]) -> Row | None:
    row = await tx.one("merge_peer", props=props)
    if row is not None and row["created"]:
        # A peer made in a workspace being deleted is deleted with it.
        await workspaces.refuse_if_marked(tx, str(props["workspace"]))
    return row


def pair_missing(workspace: str, observer: str, observed: str) -> NotFound:
    """The error of a write about a view one of whose peers does not exist."""
    if observer == observed:
        return NotFound(f"peer {observer!r} must exist in {workspace!r}")
    return NotFound(f"peers {observer!r} and {observed!r} must both exist in {workspace!r}")


async def get(db: Database, workspace: str, name: str) -> PeerRecord:
    row = await db.read_one("get_peer", workspace=workspace, name=name)
    # An empty map: the node was being deleted as it was read.
    if row is None or not row["peer"]:
        await workspaces.get(db, workspace)  # a missing workspace is named as such
        raise NotFound(f"peer {name!r} does not exist in workspace {workspace!r}")
    return PeerRecord.from_row(row["peer"])


async def list_page(
    db: Database,
    workspace: str,
    *,
    metadata: dict[str, Any] | None,
    after: str | None,
    limit: int,
) -> Page[PeerRecord]:
    rows = await db.read(
        "list_peers",
        workspace=workspace,
        after=decode_name(after, PEERS),
        meta_kv=meta_kv(metadata),
        limit=limit + 1,
    )
    return page(rows, limit, lambda r: PeerRecord.from_row(r["peer"]), name_cursor(PEERS))


async def update(
    db: Database,
    workspace: str,
    name: str,
    meta: Meta,
    *,
    extraction_context: str | None,
    set_extraction_context: bool,
    may_observe_again: bool = True,
) -> PeerRecord:
    """`may_observe_again`: False for a caller that may turn the peer's `observe_me` off but
    not back on where it is off (a peer key: the app decides what is derived about its peers,
    and derivation costs the operator's model)."""
    if extraction_context is not None and len(extraction_context) > MAX_EXTRACTION_CONTEXT:
        raise InvalidInput(
            f"extractionContext is {len(extraction_context)} characters; "
            f"the limit is {MAX_EXTRACTION_CONTEXT}"
        )
    turning_on = meta.configuration is not None and observes_itself(load_json(meta.configuration))

    async def work(tx: Tx) -> Row | None:
        if turning_on and not may_observe_again:
            # Under the peer's lock: an app turning observation off meanwhile is either read
            # here or waits for this update.
            await tx.rows("lock_peer", workspace=workspace, peer=name)
            stored = await tx.one("get_peer", workspace=workspace, name=name)
            peer = stored["peer"] if stored is not None else None
            if peer and not observes_itself(load_json(peer.get("configuration"))):
                raise Forbidden(
                    f"peer {name!r} has observe_me false; this key may keep it off, not turn "
                    "it back on (send observe_me: false, or use a workspace key)"
                )
        return await tx.one(
            "update_peer",
            workspace=workspace,
            name=name,
            **meta.updated(),
            extraction_context=extraction_context,
            set_extraction_context=set_extraction_context,
        )

    row = await db.write_tx(work)
    if row is None:
        await workspaces.get(db, workspace)  # a missing workspace is named as such
        raise NotFound(f"peer {name!r} does not exist in workspace {workspace!r}")
    return PeerRecord.from_row(row["peer"])


async def existing(db: Database, workspace: str, names: list[str]) -> set[str]:
    """Those of `names` that are peers of the workspace (exact names, one indexed lookup each)."""
    rows = await db.read("find_peers", workspace=workspace, names=names)
    return {r["name"] for r in rows if r["found"]}


async def require_all(db: Database, workspace: str, names: list[str]) -> None:
    found = await existing(db, workspace, names)
    missing = [name for name in names if name not in found]
    if missing:
        await workspaces.get(db, workspace)  # a missing workspace is named as such
        raise NotFound(f"peers {missing} do not exist in workspace {workspace!r}", peers=missing)
