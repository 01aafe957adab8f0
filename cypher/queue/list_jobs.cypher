// Most recently updated first; keyset on (updated_at, id) descending.
MATCH (j:Job {workspace: $workspace})
// Every job has a status: the (workspace, status) index serves the lookup.
WHERE j.status IS NOT NULL
  AND ($session IS NULL OR j.session = $session)
  AND ($peer IS NULL OR j.peer = $peer)
  AND ($statuses IS NULL OR j.status IN $statuses)
  AND (NOT $with_errors OR j.error IS NOT NULL)
  AND ($after_time IS NULL OR j.updated_at < $after_time
       OR (j.updated_at = $after_time AND j.id > $after_id))
RETURN j {.*} AS job
ORDER BY j.updated_at DESC, j.id
LIMIT $limit
