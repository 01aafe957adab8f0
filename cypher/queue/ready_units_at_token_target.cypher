// A unit whose pending input reached the token target need not wait for its max age.
UNWIND $units AS key
MATCH (j:Job {work_unit: key, status: 'pending'})
WITH key, sum(j.tokens) AS tokens, collect(j) AS jobs
WHERE tokens >= $token_target
UNWIND jobs AS j
WITH j WHERE j.run_after > $now AND j.attempts = 0
SET j.run_after = $now
RETURN count(j) AS readied
