// A workspace's current beliefs across its representations, oldest first, narrowed by any of
// $observer, $observed, $session and $levels (null: any): Honcho's workspace-wide conclusion
// list. Keyset paging on (created_at, id); $limit + 1 rows say whether a next page exists. A
// belief is in its own session and in its live source messages' (list_observations.cypher):
// those of the others are found from the session's messages, not tested belief by belief. Each
// branch filters in full, so the first can seek the (workspace, observer, observed) index.
CALL () {
  MATCH (o:Observation {workspace: $workspace})
  WHERE ($session IS NULL OR o.session = $session)
    AND ($observer IS NULL OR o.observer = $observer)
    AND ($observed IS NULL OR o.observed = $observed)
    AND o.deleted_at IS NULL AND o.superseded_at IS NULL AND NOT coalesce(o.stale, false)
    AND ($levels IS NULL OR o.level IN $levels)
  RETURN o
  UNION
  MATCH (m:Message {workspace: $workspace, session: $session})<-[:DERIVED_FROM]-(o:Observation)
  WHERE m.deleted_at IS NULL AND o.workspace = $workspace
    AND ($observer IS NULL OR o.observer = $observer)
    AND ($observed IS NULL OR o.observed = $observed)
    AND o.deleted_at IS NULL AND o.superseded_at IS NULL AND NOT coalesce(o.stale, false)
    AND ($levels IS NULL OR o.level IN $levels)
  RETURN o
}
WITH o
WHERE $after_time IS NULL OR o.created_at > $after_time
      OR (o.created_at = $after_time AND o.id > $after_id)
RETURN o {.*, embedding: null} AS observation
ORDER BY o.created_at, o.id
LIMIT $limit
