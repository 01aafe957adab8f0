// Back off exponentially (capped) or dead-letter once the attempts are spent, or at once when
// $give_up (trying again cannot help: a rejected API key); the error stays. The LLM tokens the
// failed attempt was billed ($tokens_in, $tokens_out) are added to the first job charged.
UNWIND $ids AS id
MATCH (j:Job {id: id, work_unit: $key})
WHERE j.status = 'running' AND j.lease_owner = $owner
WITH j, id = $ids[0] AS first, $backoff_ms * 2 ^ (j.attempts - 1) AS wait
SET j.error = $error, j.updated_at = $now, j.lease_until = null,
    j.tokens_in = coalesce(j.tokens_in, 0) + CASE WHEN first THEN $tokens_in ELSE 0 END,
    j.tokens_out = coalesce(j.tokens_out, 0) + CASE WHEN first THEN $tokens_out ELSE 0 END,
    j.status = CASE WHEN $give_up OR j.attempts >= j.max_attempts THEN 'dead' ELSE 'pending' END,
    j.run_after = $now + duration({milliseconds: toInteger(CASE WHEN wait > $max_backoff_ms
                                                            THEN $max_backoff_ms ELSE wait END)})
RETURN j.id AS id, j.status AS status
