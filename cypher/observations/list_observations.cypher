// A representation's beliefs, oldest first. With $as_of, as they stood then: written by then
// and not yet superseded (a superseded belief is current until its superseded_at).
MATCH (o:Observation {workspace: $workspace, observer: $observer, observed: $observed})
WHERE o.deleted_at IS NULL
  AND ($levels IS NULL OR o.level IN $levels)
  AND ($include_stale OR NOT coalesce(o.stale, false))
  AND ($include_superseded OR o.superseded_at IS NULL OR o.superseded_at > $as_of)
  AND ($as_of IS NULL OR o.created_at <= $as_of)
  AND ($after_time IS NULL OR o.created_at > $after_time
       OR (o.created_at = $after_time AND o.id > $after_id))
RETURN o {.*, embedding: null} AS observation
ORDER BY o.created_at, o.id
LIMIT $limit
