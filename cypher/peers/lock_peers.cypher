// Takes the write lock of each peer in $peers (in name order, so two transactions that lock
// overlapping sets through this statement cannot deadlock on them) for the rest of the
// transaction. A message write takes its senders' before it writes: a merge or rename step
// holding a sender's lock (lock_peer.cypher) then commits first, and the message is written
// after it, to a peer that is still there (and moved by a later step) or refused as gone.
UNWIND $peers AS name
WITH name ORDER BY name
MATCH (p:Peer {workspace: $workspace, name: name})
SET p.write_lock = true
REMOVE p.write_lock
RETURN count(p) AS locked
