// The common cases of a scoped vector search in one round trip (graph/repo/observation_search):
// a scope with a published index of its own answers through it (first round, rescored
// exactly); an unindexed scope of at most $exact_scan_limit beliefs is scanned exactly. The
// first row always carries the scope's index and (unindexed) size, so the caller can go on:
// more index rounds, the global index, or the exact fallback. Hit rows carry the belief.
OPTIONAL MATCH (:Peer {workspace: $workspace, name: $observer})-[r:OBSERVES]->(:Peer {workspace: $workspace, name: $observed})
WITH r.vector_index AS index
WITH index,
     CASE WHEN index IS NULL
          THEN COUNT { MATCH (o:Observation {workspace: $workspace, observer: $observer, observed: $observed}) }
     END AS total
OPTIONAL CALL (index, total) {
  // The scan sits in a subquery of its own so that the planner tests the scope's size before
  // it (merged into the MATCH, the test ran after seeking every belief of an indexed scope).
  WITH index, total
  WHERE index IS NULL AND total <= $exact_scan_limit
  CALL (total) {
    MATCH (o:Observation {workspace: $workspace, observer: $observer, observed: $observed})
    WHERE total <= $exact_scan_limit AND o.deleted_at IS NULL AND o.embedding IS NOT NULL
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
    RETURN o, score
  }
  RETURN o, score
  UNION ALL
  WITH index
  WHERE index IS NOT NULL
  CALL db.index.vector.queryNodes(index, $candidates, $embedding)
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
  RETURN o, score
}
RETURN index, total, o {.*, embedding: null} AS observation, score
ORDER BY score DESC
