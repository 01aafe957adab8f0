// Only the lease holder may complete: a worker that lost its lease rolls back instead. A job's
// tokens add up over its attempts (a failed one's were added when it failed).
MATCH (u:WorkUnit {key: $key})
WHERE u.lease_owner = $owner
UNWIND $results AS r
MATCH (j:Job {id: r.id, work_unit: $key})
WHERE j.status = 'running' AND j.lease_owner = $owner
SET j.status = 'done', j.finished_at = $now, j.updated_at = $now, j.lease_until = null,
    j.error = null, j.tokens_in = coalesce(j.tokens_in, 0) + r.tokens_in,
    j.tokens_out = coalesce(j.tokens_out, 0) + r.tokens_out
RETURN count(j) AS done
