// A unit whose pending input reached the token target need not wait for its max age.
UNWIND $units AS key
// Through the (unit, status, seq) index, as list_unit_head_jobs.cypher.
MATCH (j:Job {work_unit: key, status: 'pending'})
USING INDEX j:Job(work_unit, status, seq)
WHERE j.seq IS NOT NULL
WITH key, sum(j.tokens) AS tokens, collect(j) AS jobs
WHERE tokens >= $token_target
UNWIND jobs AS j
WITH j WHERE j.run_after > $now AND j.attempts = 0
SET j.run_after = $now
RETURN count(j) AS readied
