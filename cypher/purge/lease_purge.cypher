// Leases an interrupted purge to the worker that resumes it, if its lease has still run out.
// `peer_marked`: for a peer's purge, whether the peer of that name is still the one it began
// erasing (not one made again after the purge had deleted it).
MATCH (r:Purge {id: $id})
WHERE r.lease_until < $now
SET r.lease_until = $lease_until, r.owner = $owner, r.attempts = r.attempts + 1
WITH r
OPTIONAL MATCH (p:Peer {workspace: r.workspace, name: r.peer})
RETURN r.id AS id, r.workspace AS workspace, r.peer AS peer, r.message_ids AS message_ids,
       r.attempts AS attempts, p IS NOT NULL AND p.purge_id = r.id AS peer_marked
