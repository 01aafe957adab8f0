// Takes the record's write lock for the rest of the transaction, in a statement of its own, so
// that the lease check that follows reads after the lock is held (two workers never both
// resume one purge).
MATCH (r:Purge {id: $id})
SET r.lock_probe = $now
RETURN r.id AS id
