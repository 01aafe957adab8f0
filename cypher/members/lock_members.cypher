// Takes the workspace's sub-peer lock (the one add_sub_peer.cypher takes) for the rest of the
// transaction, so that MEMBER_OF writes elsewhere (a merge moving links) check for cycles
// against a graph no concurrent add changes meanwhile. Its own statement, so that what follows
// reads under the lock.
MATCH (w:Workspace {name: $workspace})
SET w.member_lock = true
REMOVE w.member_lock
RETURN count(w) AS locked
