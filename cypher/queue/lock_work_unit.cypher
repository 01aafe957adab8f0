// Takes the unit node's write lock for the rest of the transaction. It is its own statement
// so that the lease check that follows reads after the lock is held: inside one statement the
// planner may read the lease before the write that takes the lock.
MATCH (u:WorkUnit {key: $key})
SET u.lock_probe = $owner
RETURN u.key AS key
