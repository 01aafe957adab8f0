// Approximate search: the global top $candidates from the index, kept if in scope; the caller
// grows $candidates until it has enough hits (or falls back to the exact scan).
CALL db.index.vector.queryNodes('observation_embedding', $candidates, $embedding)
YIELD node AS o, score
WHERE o.workspace = $workspace AND o.observer = $observer AND o.observed = $observed
  AND o.deleted_at IS NULL
  AND ($include_stale OR NOT coalesce(o.stale, false))
  AND ($include_superseded OR o.superseded_at IS NULL)
  AND ($levels IS NULL OR o.level IN $levels)
  AND ($session_ids IS NULL OR o.session IN $session_ids)
  AND ($exclude_session_ids IS NULL OR o.session IS NULL OR NOT o.session IN $exclude_session_ids)
  AND (NOT $exclude_derived OR o.session IS NOT NULL)
  AND ($since IS NULL OR coalesce(o.valid_at, o.created_at) >= $since)
  AND ($until IS NULL OR coalesce(o.valid_at, o.created_at) < $until)
RETURN o {.*, embedding: null} AS observation, score
ORDER BY score DESC
LIMIT $limit
