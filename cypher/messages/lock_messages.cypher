// Takes the write lock of each message in $ids (in id order, so two transactions that lock
// overlapping sets through this statement cannot deadlock on them) for the rest of the
// transaction: an edit or deletion of one waits until it commits. Its own statement, so that
// what the transaction reads next is read under the lock.
UNWIND $ids AS id
WITH id ORDER BY id
MATCH (m:Message {workspace: $workspace, id: id})
SET m.write_lock = true
REMOVE m.write_lock
RETURN count(m) AS locked
