// Makes waiting jobs in scope runnable now (jobs in retry backoff keep their wait).
MATCH (j:Job {workspace: $workspace, status: 'pending'})
WHERE ($session IS NULL OR j.session = $session)
  AND ($peer IS NULL OR j.peer = $peer)
  AND j.run_after > $now AND j.attempts = 0
SET j.run_after = $now
RETURN count(j) AS flushed
