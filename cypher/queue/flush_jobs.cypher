// Makes waiting jobs in scope runnable now (jobs in retry backoff keep their wait), and the
// jobs a worker claimed before they were due (a unit's later jobs ride with its first): one
// it hands back unrun (a large unit taken in parts) would wait out its time again.
MATCH (j:Job {workspace: $workspace})
WHERE j.status IN ['pending', 'running']
  AND ($session IS NULL OR j.session = $session)
  AND ($peer IS NULL OR j.peer = $peer)
  AND j.run_after > $now AND (j.attempts = 0 OR j.status = 'running')
SET j.run_after = $now
RETURN count(j) AS flushed
