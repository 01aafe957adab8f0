// A rename's new peer or a split's sub-peer: a copy of the source's properties (metadata,
// settings, creation time) under the new name, never a purge's mark. Nothing else is copied:
// the job moves the rest.
// CREATE, not MERGE: a peer of that name made since the start's check fails the uniqueness
// constraint, and the start runs again and refuses it, instead of adopting that peer.
// No row: the source does not exist.
MATCH (s:Peer {workspace: $workspace, name: $source})
CREATE (t:Peer {workspace: $workspace, name: $target})
SET t = s {.*, name: $target, purge_id: null}
RETURN t.name AS name
