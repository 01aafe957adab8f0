// Takes the workspace node's write lock for the rest of the transaction, as lock_session.cypher
// does for a session: a new session takes it to read the workspace's deletion mark under it,
// as a deletion setting its mark does.
MATCH (w:Workspace {name: $workspace})
SET w.write_lock = true
REMOVE w.write_lock
RETURN w.name AS name
