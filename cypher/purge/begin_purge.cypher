// A purge's record, written before its first batch and deleted after its last: a purge
// interrupted half-way (a crash, Neo4j lost meanwhile) is finished by a worker once the record's
// lease has run out; `owner` names the run that holds the lease. A peer's purge marks the peer
// with the record's id, so that a peer made again under that name, after the purge deleted the
// first, is never erased by the record.
CREATE (r:Purge {id: $id, workspace: $workspace, peer: $peer, message_ids: $message_ids,
                 started_at: $now, lease_until: $lease_until, owner: $owner, attempts: 0})
WITH r
OPTIONAL MATCH (p:Peer {workspace: $workspace, name: $peer})
SET p.purge_id = r.id
RETURN r.id AS id
