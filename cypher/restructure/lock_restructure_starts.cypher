// Takes the workspace node's write lock for the rest of the transaction, so that the starts of
// renames, merges and splits in one workspace run one at a time, each checking the operations
// queued by those before it. Its own statement, so that the checks which follow read after the
// lock is held. No row: the workspace does not exist.
MATCH (w:Workspace {name: $workspace})
SET w.restructure_lock = true
REMOVE w.restructure_lock
RETURN w.name AS name
