// Takes the write lock of each peer in $peers, in name order (two uses of this statement do not
// deadlock each other), for the rest of the transaction. A message write takes its senders'
// after its session's and before it writes: a merge or rename step holding a sender's lock
// (lock_peer.cypher) then commits first, and the message is written after it, to a peer that is
// still there (and moved by a later step) or refused as gone. A deadlock with another order
// (a step moving memberships) is detected by Neo4j and the write run again.
UNWIND $peers AS name
WITH name ORDER BY name
MATCH (p:Peer {workspace: $workspace, name: name})
SET p.write_lock = true
REMOVE p.write_lock
RETURN count(p) AS locked
