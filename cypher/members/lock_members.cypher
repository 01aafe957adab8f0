// Takes the workspace's sub-peer lock for the rest of the transaction: MEMBER_OF writes of one
// workspace (adding a sub-peer, a merge moving links) run one at a time, and each checks for
// cycles against the graph the previous one left (of two opposite adds racing, the later sees
// the earlier's edge and is refused as a cycle). Its own statement, so that what follows reads
// under the lock.
MATCH (w:Workspace {name: $workspace})
SET w.member_lock = true
REMOVE w.member_lock
RETURN count(w) AS locked
