// Back off exponentially (capped) or dead-letter once the attempts are spent, or at once when
// $give_up (trying again cannot help: a rejected API key); the error stays.
UNWIND $ids AS id
MATCH (j:Job {id: id, work_unit: $key})
WHERE j.status = 'running' AND j.lease_owner = $owner
WITH j, $backoff_ms * 2 ^ (j.attempts - 1) AS wait
SET j.error = $error, j.updated_at = $now, j.lease_until = null,
    j.status = CASE WHEN $give_up OR j.attempts >= j.max_attempts THEN 'dead' ELSE 'pending' END,
    j.run_after = $now + duration({milliseconds: toInteger(CASE WHEN wait > $max_backoff_ms
                                                            THEN $max_backoff_ms ELSE wait END)})
RETURN j.id AS id, j.status AS status
