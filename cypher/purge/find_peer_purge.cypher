// The purge a peer is marked with, if its record is still there (the purge has not finished):
// read under the peer's lock, so two purges of one peer never both begin.
MATCH (p:Peer {workspace: $workspace, name: $peer})
MATCH (r:Purge {id: p.purge_id})
RETURN r.id AS id, r.started_at AS started_at, r.lease_until AS lease_until
