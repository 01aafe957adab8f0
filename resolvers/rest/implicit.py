"""Implicit creation: Honcho clients may skip the create calls and rely on the routes that
write to create the workspace, the session and the peers they name on first use."""

from __future__ import annotations

from graph.configuration import ConfigKind
from graph.errors import NotFound
from graph.props import Meta
from graph.records import PeerRecord, SessionRecord
from graph.repo import peers, sessions, workspaces
from graph.validation import check_peer_count
from resolvers.rest.http import Call


def meta(
    call: Call,
    metadata: dict[str, object] | None,
    configuration: dict[str, object] | None,
    kind: ConfigKind,
) -> Meta:
    """Metadata and configuration of a body, checked (the size; the types of the configuration
    keys Honcho clients read back)."""
    return Meta.of(
        metadata, configuration, limit=call.services.settings.max_metadata_bytes, kind=kind
    )


async def ensure_workspace(call: Call) -> bool:
    """The path's workspace, created when missing (creating one takes an admin key);
    True when it was created."""
    db = call.services.db
    try:
        await workspaces.get(db, call.workspace)
        return False
    except NotFound:
        call.principal.require_admin(f"creating workspace {call.workspace!r}")
    return (await workspaces.ensure(db, call.workspace))[1]


async def creatable_peers(call: Call, names: list[str]) -> list[str]:
    """The peers of `names` that do not exist, each one the key may create (a workspace key
    any, a peer key its own; a session key none, as `POST …/peers` refuses it): checked before
    anything of a request is created, so a refusal leaves nothing behind. The change they
    are for creates them in its own transaction (`create` of the membership changes,
    `create_peers` of a batch), so a session deleted meanwhile leaves none either."""
    unique = sorted(set(names))
    check_peer_count(unique)
    try:
        await peers.require_all(call.services.db, call.workspace, unique)
    except NotFound as missing:
        absent = [str(name) for name in missing.details.get("peers", [])]
        for name in absent:
            call.principal.require_peer(call.workspace, name)
        return absent
    return []


async def get_or_create_peer(call: Call, name: str, m: Meta) -> tuple[PeerRecord, bool]:
    db = call.services.db
    try:
        return await peers.get(db, call.workspace, name), False
    except NotFound:
        return await peers.ensure(db, call.workspace, name, m)


async def get_or_create_session(call: Call, name: str, m: Meta) -> tuple[SessionRecord, bool]:
    db = call.services.db
    try:
        return await sessions.get(db, call.workspace, name), False
    except NotFound:
        return await sessions.ensure(db, call.workspace, name, m)
