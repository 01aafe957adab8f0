// Dead-letters jobs whose attempts are spent and whose last one ended with their worker gone
// (the lease ran out and no outcome was written): one of them may be what stops the worker (a
// message that makes the process run out of memory), and would stop every worker that claimed
// it, for good. An error an earlier attempt recorded is kept after $error. Run under the
// unit's lock and lease (claim).
UNWIND $ids AS id
MATCH (j:Job {id: id, work_unit: $key})
WHERE j.status = 'running'
SET j.status = 'dead', j.lease_until = null, j.updated_at = $now,
    j.error = $error + CASE WHEN j.error IS NULL THEN ''
                            ELSE '; the error before it: ' + j.error END
RETURN j.id AS id
