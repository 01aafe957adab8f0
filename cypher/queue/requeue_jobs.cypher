// Jobs that made progress and go on in a later claim (a restructuring step committed, its
// operation unfinished): waiting again in their place in the unit, ready now and as new, their
// attempts and error cleared (those counted failures of steps now behind them). Ready now, not
// at their first run_after: other units that waited run before them, as before a new job.
UNWIND $ids AS id
MATCH (j:Job {id: id, work_unit: $key})
WHERE j.status = 'running' AND j.lease_owner = $owner
SET j.status = 'pending', j.attempts = 0, j.error = null, j.lease_until = null,
    j.run_after = $now, j.updated_at = $now
RETURN count(j) AS requeued
