// Takes the workspace node's write lock for the rest of the transaction, as lock_session.cypher
// does for a session. Its own statement, so that what follows reads under the lock. Taken by:
// restructure starts (renames, merges and splits of one workspace start one at a time, each
// seeing those queued before it), MEMBER_OF writes (each checks for cycles against the graph
// the previous one left), new and reopened sessions (to read the deletion mark under it) and a
// deletion setting its mark (reading first whether one had begun). No row: the workspace does not
// exist.
MATCH (w:Workspace {name: $workspace})
SET w.write_lock = true
REMOVE w.write_lock
RETURN w.name AS name
