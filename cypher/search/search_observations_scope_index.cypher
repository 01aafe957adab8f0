// Approximate search through the scope's own vector index (so every candidate is in scope),
// rescored with the exact cosine: the index may rank by quantized vectors. The caller grows
// $candidates when the filters leave fewer than $limit.
CALL db.index.vector.queryNodes($index, $candidates, $embedding)
YIELD node AS o
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
WITH o, vector.similarity.cosine(o.embedding, $embedding) AS score
ORDER BY score DESC
LIMIT $limit
RETURN o {.*, embedding: null} AS observation, score
