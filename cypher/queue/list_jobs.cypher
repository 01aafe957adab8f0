MATCH (j:Job {workspace: $workspace})
WHERE ($session IS NULL OR j.session = $session)
  AND ($peer IS NULL OR j.peer = $peer)
  AND ($statuses IS NULL OR j.status IN $statuses)
  AND (NOT $with_errors OR j.error IS NOT NULL)
RETURN j {.*} AS job
ORDER BY j.updated_at DESC, j.id
LIMIT $limit
