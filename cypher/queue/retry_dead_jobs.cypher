MATCH (j:Job {workspace: $workspace, status: 'dead'})
WHERE ($ids IS NULL OR j.id IN $ids)
  AND ($session IS NULL OR j.session = $session)
  AND ($peer IS NULL OR j.peer = $peer)
SET j.status = 'pending', j.attempts = 0, j.run_after = $now, j.updated_at = $now
RETURN count(j) AS retried
