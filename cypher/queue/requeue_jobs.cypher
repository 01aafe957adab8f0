// Jobs that made progress and go on in a later claim (a restructuring step committed, its
// operation unfinished; a summary of a long stretch, part of it written): waiting again in
// their place in the unit, ready now and as new, their attempts and error cleared (those
// counted failures of steps now behind them), the tokens of the part done added. Ready now,
// not at their first run_after: other units that waited run before them, as before a new job.
UNWIND $jobs AS r
MATCH (j:Job {id: r.id, work_unit: $key})
WHERE j.status = 'running' AND j.lease_owner = $owner
SET j.status = 'pending', j.attempts = 0, j.error = null, j.lease_until = null,
    j.run_after = $now, j.updated_at = $now,
    j.tokens_in = coalesce(j.tokens_in, 0) + r.tokens_in,
    j.tokens_out = coalesce(j.tokens_out, 0) + r.tokens_out
RETURN count(j) AS requeued
