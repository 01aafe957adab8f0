// Takes the peer's write lock for the rest of the transaction. Its own statement, so that what
// the transaction reads next is read under it. A file creation takes it before counting the
// peer's files (concurrent ones would each count below the limit); a merge step takes its
// source's before reading what to move, so that a relationship written to the source meanwhile
// (a message it sends, a view, a file) either committed before the step's reads or waits for
// the step, and none is cut off when the source is deleted.
MATCH (p:Peer {workspace: $workspace, name: $peer})
SET p.write_lock = true
REMOVE p.write_lock
RETURN count(p) AS locked
