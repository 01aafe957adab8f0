// Exact cosine over one (observer, observed) scope, for scopes small enough to scan.
MATCH (o:Observation {workspace: $workspace, observer: $observer, observed: $observed})
WHERE o.deleted_at IS NULL AND o.embedding IS NOT NULL
  AND ($include_stale OR NOT coalesce(o.stale, false))
  AND ($include_superseded OR o.superseded_at IS NULL)
  AND ($levels IS NULL OR o.level IN $levels)
  AND ($session_ids IS NULL OR o.session IN $session_ids)
  AND ($exclude_session_ids IS NULL OR o.session IS NULL OR NOT o.session IN $exclude_session_ids)
  AND (NOT $exclude_derived OR o.session IS NOT NULL)
  AND ($since IS NULL OR coalesce(o.valid_at, o.created_at) >= $since)
  AND ($until IS NULL OR coalesce(o.valid_at, o.created_at) < $until)
WITH o, vector.similarity.cosine(o.embedding, $embedding) AS score
ORDER BY score DESC
LIMIT $limit
RETURN o {.*, embedding: null} AS observation, score
