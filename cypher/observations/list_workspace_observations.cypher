// A workspace's current beliefs across its representations, oldest first, narrowed by any of
// $observer, $observed, $session and $levels (null: any): Honcho's workspace-wide conclusion
// list. Keyset paging on (created_at, id); $limit + 1 rows say whether a next page exists.
MATCH (o:Observation {workspace: $workspace})
WHERE o.deleted_at IS NULL AND o.superseded_at IS NULL AND NOT coalesce(o.stale, false)
  AND ($observer IS NULL OR o.observer = $observer)
  AND ($observed IS NULL OR o.observed = $observed)
  AND ($session IS NULL OR o.session = $session)
  AND ($levels IS NULL OR o.level IN $levels)
  AND ($after_time IS NULL OR o.created_at > $after_time
       OR (o.created_at = $after_time AND o.id > $after_id))
RETURN o {.*, embedding: null} AS observation
ORDER BY o.created_at, o.id
LIMIT $limit
