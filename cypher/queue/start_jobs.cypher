UNWIND $ids AS id
MATCH (j:Job {id: id})
SET j.status = 'running', j.attempts = j.attempts + 1, j.lease_owner = $owner,
    j.lease_until = $lease_until, j.updated_at = $now
// A job a purge deleted while this waited for its lock reads as empty: left out.
WITH j WHERE j.id IS NOT NULL
RETURN j {.*} AS job
ORDER BY j.seq
