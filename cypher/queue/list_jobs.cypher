// Most recently updated first; keyset on (updated_at, id) descending. A running job whose
// unit's lease ran out (its worker died) is pending, as count_queue_statuses counts it.
MATCH (j:Job {workspace: $workspace})
// Every job has a status: the (workspace, status) index serves the lookup.
WHERE j.status IS NOT NULL
  AND ($statuses IS NULL OR j.status IN $statuses
       OR (j.status = 'running' AND 'pending' IN $statuses))
  AND ($session IS NULL OR j.session = $session)
  AND ($peer IS NULL OR j.peer = $peer)
  AND (NOT $with_errors OR j.error IS NOT NULL)
  AND ($after_time IS NULL OR j.updated_at < $after_time
       OR (j.updated_at = $after_time AND j.id > $after_id))
WITH j, CASE WHEN j.status = 'running'
               AND NOT EXISTS { MATCH (u:WorkUnit {key: j.work_unit})
                                WHERE u.lease_until >= $now }
             THEN 'pending' ELSE j.status END AS status
WHERE $statuses IS NULL OR status IN $statuses
RETURN j {.*, status: status} AS job
ORDER BY j.updated_at DESC, j.id
LIMIT $limit
