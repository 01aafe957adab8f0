// Hand unfinished jobs back (graceful shutdown): this attempt does not count.
UNWIND $ids AS id
MATCH (j:Job {id: id, work_unit: $key})
WHERE j.status = 'running' AND j.lease_owner = $owner
SET j.status = 'pending', j.attempts = j.attempts - 1, j.lease_until = null,
    j.updated_at = $now
RETURN count(j) AS released
